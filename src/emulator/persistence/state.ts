/**
 * The state document's model, put together from the areas' stored parts (area.ts): the data a
 * fresh emulator holds and `reset` puts back, the tokens, and how a decrypted document is read and
 * checked. It names no area: each brings its entries of `data.<service>` and its tokens.
 */
import type { StoredPart } from "../area";
import { isRecord, now, nullProto, randomHex } from "../util";

/** A decrypted state document (a state file's, or one cluster's of a snapshot) as tokens and data. */
export interface StoredState<D, T> {
  tokens: Partial<T>;
  data: D;
}

type Services = Record<string, Record<string, unknown>>;

export class StoredModel<D, T> {
  /** Every token's name, in the document's order. */
  readonly tokenNames: readonly string[];

  constructor(private readonly parts: readonly StoredPart[]) {
    this.tokenNames = parts.flatMap((p) => p.tokens?.names ?? []);
  }

  /** The data a fresh emulator holds, every map free of a prototype (see nullProto). */
  initial(at: string): D {
    const data: Services = {};
    for (const part of this.parts) data[part.service] = { ...data[part.service], ...part.initial(at) };
    return nullProto(data) as D;
  }

  /*
   * No separator between the prefix and the random part: the provider masks every six-character run
   * of a registered token wherever it appears, and with `emu-run-` the run `run-35` (the prefix and
   * the first two random digits) would mask the start of every run id that begins with those digits.
   */
  randomTokens(): T {
    return Object.fromEntries(this.parts.flatMap(({ tokens }) => (tokens?.names ?? []).map((name) => [name, `${tokens!.prefix}${randomHex(16)}`]))) as T;
  }

  /** The tokens `given` sets to a non-empty string; nothing else. */
  definedTokens(given: Partial<T>): Partial<T> {
    const values = given as Record<string, unknown>;
    return Object.fromEntries(this.tokenNames.filter((k) => typeof values[k] === "string" && values[k] !== "").map((k) => [k, values[k]])) as Partial<T>;
  }

  /** Every token differs from the others: one token, one principal. */
  checkDistinct(tokens: T): void {
    const values = this.tokenNames.map((k) => (tokens as Record<string, string>)[k]);
    if (new Set(values).size !== values.length) throw new Error("emulator tokens must all differ");
  }

  read(source: string, parsed: unknown): StoredState<D, T> {
    if (!isRecord(parsed) || parsed.version !== 1 || !isRecord(parsed.data)) {
      throw new Error(`${source} is not an emulator state file (version 1)`);
    }
    // Entries added in later versions (runs, more engines) start at their initial value in an older file.
    const initial = this.initial(now()) as Services;
    const data = parsed.data as Partial<Services>;
    return {
      tokens: isRecord(parsed.tokens) ? this.definedTokens(parsed.tokens as Partial<T>) : {},
      data: nullProto(Object.fromEntries(Object.entries(initial).map(([service, entries]) => [service, { ...entries, ...(data[service] ?? {}) }]))) as D,
    };
  }

  /**
   * What is wrong with read data, if anything: every entry of every service is a map (as the
   * initial data's are), and each area checks its own (a mount names an engine this emulator has),
   * so a document that passes cannot make a later request fail on its shape.
   */
  problem(data: D): string | undefined {
    const services = data as Services;
    for (const [service, entries] of Object.entries(services)) {
      for (const [entry, value] of Object.entries(entries)) {
        if (!isRecord(value)) return `data.${service}.${entry} must be an object`;
      }
    }
    for (const part of this.parts) {
      const problem = part.problem?.(services[part.service]);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
}
