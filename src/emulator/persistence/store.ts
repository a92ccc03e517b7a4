import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { envStateKey, replaceAtomically, seal, stateKey, unseal } from "./stateFile";
import { randomHex, isRecord, now, nullProto } from "../util";
import { initialData, type Data, type EmulatorTokens } from "./state";

/** The plaintext inside a state file, and inside a snapshot (snapshot.ts), per cluster. */
export interface FileShape {
  version: 1;
  tokens: EmulatorTokens;
  data: Data;
}

const TOKEN_KEYS: (keyof EmulatorTokens)[] = ["runAdmin", "runMember", "runTeam", "runOrganization", "secretsRoot", "secretsUser"];

/*
 * No separator between the prefix and the random part: the provider masks every six-character run
 * of a registered token wherever it appears, and with `emu-run-` the run `run-35` (the prefix and
 * the first two random digits) would mask the start of every run id that begins with those digits.
 */
function randomTokens(): EmulatorTokens {
  const run = () => `emurun${randomHex(16)}`;
  const sec = () => `emusec${randomHex(16)}`;
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
  /** Changed in place only (by replace), so whoever holds it sees the current tokens. */
  readonly tokens: EmulatorTokens;
  readonly flushMs: number;
  /**
   * Seals the state file and snapshots: SVC_EMULATOR_STATE_KEY, else the state file's key, else one
   * made for this process (its snapshots restore only into it).
   */
  readonly key: Buffer;
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
    this.key = statePath ? stateKey(statePath, options.env) : envStateKey(options.env) ?? randomBytes(32);
    const loaded = statePath && existsSync(statePath) ? load(statePath, this.key) : undefined;
    this.data = loaded?.data ?? initialData(now());
    this.tokens = { ...randomTokens(), ...(loaded?.tokens ?? {}), ...definedOnly(tokenOverrides) };
    distinct(this.tokens);
    if (statePath) process.on("exit", this.onExit);
    // Written at once: tokens must be on disk before anyone is told them, and a version 1 file is sealed.
    this.flush();
  }

  reset(): void {
    this.data = initialData(now());
  }

  /** The whole state of this cluster as the state file holds it (not a copy: serialise it at once). */
  document(): FileShape {
    return { version: 1, tokens: this.tokens, data: this.data };
  }

  /** Takes another state (a restored snapshot): its data and its tokens, so tokens that worked there work here. */
  replace(next: { tokens: Partial<EmulatorTokens>; data: Data }): void {
    const tokens = { ...this.tokens, ...next.tokens };
    distinct(tokens);
    Object.assign(this.tokens, tokens);
    this.data = next.data;
    this.save();
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
    if (!this.statePath) return;
    const text = JSON.stringify(this.document());
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

function distinct(tokens: EmulatorTokens): void {
  const values = TOKEN_KEYS.map((k) => tokens[k]);
  if (new Set(values).size !== values.length) throw new Error("emulator tokens must all differ");
}

function load(path: string, key: Buffer): { tokens: Partial<EmulatorTokens>; data: Data } {
  return readDocument(path, unseal(path, readFileSync(path, "utf8"), () => key));
}

/** A decrypted state document (a state file's, or one cluster's of a snapshot) as tokens and data. */
export function readDocument(source: string, parsed: unknown): { tokens: Partial<EmulatorTokens>; data: Data } {
  if (!isRecord(parsed) || parsed.version !== 1 || !isRecord(parsed.data)) {
    throw new Error(`${source} is not an emulator state file (version 1)`);
  }
  // Branches added in later versions (runs, more engines) start empty in an older file.
  const seeded = initialData(now());
  const data = parsed.data as Partial<Data>;
  return {
    tokens: isRecord(parsed.tokens) ? definedOnly(parsed.tokens as Partial<EmulatorTokens>) : {},
    data: nullProto({
      run: { ...seeded.run, ...(data.run ?? {}) },
      secrets: { ...seeded.secrets, ...(data.secrets ?? {}) },
    }),
  };
}
