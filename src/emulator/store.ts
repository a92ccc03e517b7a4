import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { replaceAtomically, seal, stateKey, unseal } from "./state-file";
import { randomHex, isRecord, now, nullProto } from "./util";
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

/** How long a write may wait before it is on disk (plus the time to write one snapshot). */
export const DEFAULT_FLUSH_MS = 1000;

export interface StoreOptions {
  /** The durability window in ms: a change reaches the file at most this long after it was made. */
  flushMs?: number;
  /** Where SVC_EMULATOR_STATE_KEY is read; process.env unless a test passes its own. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Holds the live data and keeps `statePath` (when given) in step with it by debounced snapshots:
 * save() only marks the data changed and the whole document is written, sealed and atomically
 * renamed into place at most `flushMs` later, so a burst of N writes costs one snapshot instead of N.
 * close() and process exit write the last snapshot; the CLI closes on SIGTERM and SIGINT.
 */
export class Store {
  data: Data;
  readonly tokens: EmulatorTokens;
  readonly flushMs: number;
  private readonly key: Buffer | undefined;
  /** Hash of the last plaintext written: an unchanged document is not written again. */
  private lastDigest = "";
  private timer: NodeJS.Timeout | undefined;
  private readonly onExit = () => this.flush();

  constructor(
    private readonly statePath: string | undefined,
    tokenOverrides: Partial<EmulatorTokens> = {},
    options: StoreOptions = {},
  ) {
    this.flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
    if (!Number.isInteger(this.flushMs) || this.flushMs < 0) throw new Error(`flushMs must be a non-negative integer, got ${this.flushMs}`);
    this.key = statePath ? stateKey(statePath, options.env) : undefined;
    const loaded = statePath && existsSync(statePath) ? load(statePath, this.key as Buffer) : undefined;
    this.data = loaded?.data ?? seededData(now());
    this.tokens = { ...randomTokens(), ...(loaded?.tokens ?? {}), ...definedOnly(tokenOverrides) };
    const values = TOKEN_KEYS.map((k) => this.tokens[k]);
    if (new Set(values).size !== values.length) throw new Error("emulator tokens must all differ");
    if (statePath) process.on("exit", this.onExit);
    // Written at once: tokens must be on disk before anyone is told them, and a version 1 file is sealed.
    this.flush();
  }

  reset(): void {
    this.data = seededData(now());
  }

  /** Marks the data changed; the snapshot follows within flushMs. */
  save(): void {
    if (!this.statePath || this.timer) return;
    if (this.flushMs === 0) return this.flush();
    this.timer = setTimeout(() => this.flush(), this.flushMs);
    this.timer.unref();
  }

  /** Writes the snapshot now if anything changed since the last one. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.statePath || !this.key) return;
    const text = JSON.stringify({ version: 1, tokens: this.tokens, data: this.data } satisfies FileShape);
    const digest = createHash("sha256").update(text).digest("hex");
    if (digest === this.lastDigest) return;
    replaceAtomically(this.statePath, seal(text, this.key));
    this.lastDigest = digest;
  }

  /** The final snapshot; later save() calls still flush (in-flight work may finish after close). */
  close(): void {
    this.flush();
    process.off("exit", this.onExit);
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

function load(path: string, key: Buffer): { tokens: Partial<EmulatorTokens>; data: Data } {
  const parsed = unseal(path, readFileSync(path, "utf8"), () => key);
  if (!isRecord(parsed) || parsed.version !== 1 || !isRecord(parsed.data)) {
    throw new Error(`${path} is not an emulator state file (version 1)`);
  }
  // Branches added in later versions (runs, more engines) start empty in an older file.
  const seeded = seededData(now());
  const data = parsed.data as Partial<Data>;
  return {
    tokens: isRecord(parsed.tokens) ? definedOnly(parsed.tokens as Partial<EmulatorTokens>) : {},
    data: nullProto({
      run: { ...seeded.run, ...(data.run ?? {}) },
      secrets: { ...seeded.secrets, ...(data.secrets ?? {}) },
    }),
  };
}
