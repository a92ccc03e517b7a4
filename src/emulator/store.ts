import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { randomHex, isRecord, now } from "./util";
import { seededData, type Data, type EmulatorTokens } from "./state";

interface FileShape {
  version: 1;
  tokens: EmulatorTokens;
  data: Data;
}

const TOKEN_KEYS: (keyof EmulatorTokens)[] = ["runAdmin", "runMember", "runTeam", "runOrganization", "secretsRoot", "secretsUser"];

function randomTokens(): EmulatorTokens {
  const run = () => `emu-run-${randomHex(16)}`;
  const sec = () => `emu-sec-${randomHex(16)}`;
  return { runAdmin: run(), runMember: run(), runTeam: run(), runOrganization: run(), secretsRoot: sec(), secretsUser: sec() };
}

/**
 * Holds the live data and writes it to `statePath` (when given) as one JSON document.
 * The file is replaced by rename so a crash mid-write never leaves half a document behind.
 */
export class Store {
  data: Data;
  readonly tokens: EmulatorTokens;
  private lastWritten = "";

  constructor(
    private readonly statePath: string | undefined,
    tokenOverrides: Partial<EmulatorTokens> = {},
  ) {
    const loaded = statePath && existsSync(statePath) ? load(statePath) : undefined;
    this.data = loaded?.data ?? seededData(now());
    this.tokens = { ...randomTokens(), ...(loaded?.tokens ?? {}), ...definedOnly(tokenOverrides) };
    const values = TOKEN_KEYS.map((k) => this.tokens[k]);
    if (new Set(values).size !== values.length) throw new Error("emulator tokens must all differ");
    this.save();
  }

  reset(): void {
    this.data = seededData(now());
  }

  save(): void {
    if (!this.statePath) return;
    const text = JSON.stringify({ version: 1, tokens: this.tokens, data: this.data } satisfies FileShape, null, 2);
    if (text === this.lastWritten) return;
    const temp = `${this.statePath}.${process.pid}.${randomHex(4)}.tmp`;
    writeFileSync(temp, text, { mode: 0o600 });
    renameSync(temp, this.statePath);
    this.lastWritten = text;
  }
}

function definedOnly(tokens: Partial<EmulatorTokens>): Partial<EmulatorTokens> {
  const out: Partial<EmulatorTokens> = {};
  for (const key of TOKEN_KEYS) {
    const value = tokens[key];
    if (typeof value === "string" && value !== "") out[key] = value;
  }
  return out;
}

function load(path: string): { tokens: Partial<EmulatorTokens>; data: Data } {
  const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (!isRecord(parsed) || parsed.version !== 1 || !isRecord(parsed.data)) {
    throw new Error(`${path} is not an emulator state file (version 1)`);
  }
  // Branches added in later versions (runs, more engines) start empty in an older file.
  const seeded = seededData(now());
  const data = parsed.data as Partial<Data>;
  return {
    tokens: isRecord(parsed.tokens) ? definedOnly(parsed.tokens as Partial<EmulatorTokens>) : {},
    data: {
      run: { ...seeded.run, ...(data.run ?? {}) },
      secrets: { ...seeded.secrets, ...(data.secrets ?? {}) },
    },
  };
}
