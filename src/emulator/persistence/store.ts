import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { envStateKey, replaceAtomically, seal, stateKey, unseal } from "./stateFile";
import { now } from "../util";
import type { StoredModel, StoredState } from "./state";

/** The plaintext inside a state file, and inside a snapshot (snapshot.ts), per cluster. */
export interface FileShape<D, T> {
  version: 1;
  tokens: T;
  data: D;
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
export class Store<D, T extends object> {
  data: D;
  /** Changed in place only (by replace), so whoever holds it sees the current tokens. */
  readonly tokens: T;
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

  /** `model` is what the areas store (areas.ts); `statePath` holds it across restarts. */
  constructor(
    readonly model: StoredModel<D, T>,
    private readonly statePath: string | undefined,
    tokenOverrides: Partial<T> = {},
    options: StoreOptions = {},
  ) {
    this.flushMs = options.flushMs ?? DEFAULT_FLUSH_MS;
    if (!Number.isInteger(this.flushMs) || this.flushMs < 0) throw new Error(`flushMs must be a non-negative integer, got ${this.flushMs}`);
    this.key = statePath ? stateKey(statePath, options.env) : envStateKey(options.env) ?? randomBytes(32);
    const loaded = statePath && existsSync(statePath) ? model.read(statePath, unseal(statePath, readFileSync(statePath, "utf8"), () => this.key)) : undefined;
    this.data = loaded?.data ?? model.initial(now());
    this.tokens = { ...model.randomTokens(), ...(loaded?.tokens ?? {}), ...model.definedTokens(tokenOverrides) };
    model.checkDistinct(this.tokens);
    if (statePath) process.on("exit", this.onExit);
    // Written at once: tokens must be on disk before anyone is told them, and a version 1 file is sealed.
    this.flush();
  }

  reset(): void {
    this.data = this.model.initial(now());
  }

  /** The whole state of this cluster as the state file holds it (not a copy: serialise it at once). */
  document(): FileShape<D, T> {
    return { version: 1, tokens: this.tokens, data: this.data };
  }

  /** Takes another state (a restored snapshot): its data and its tokens, so tokens that worked there work here. */
  replace(next: StoredState<D, T>): void {
    const tokens = { ...this.tokens, ...next.tokens };
    this.model.checkDistinct(tokens);
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
