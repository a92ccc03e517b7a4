import type { SecretsContext } from "../context";
import { sqlBackend } from "./sql";
import { table, type Transformation } from "./state";
import { storeOf } from "./store";
import { memoryBackend, type MemoryTokens, type TokenBackend } from "./tokens";

const tokenTable = (ctx: SecretsContext) => table<MemoryTokens>(ctx, "tokens", true);

/**
 * A tokenization transformation reads and writes its first store: a postgres store's database, or
 * the engine's own storage (`builtin/internal`, and mysql stores, which the emulator keeps in memory).
 */
export function backendFor(ctx: SecretsContext, name: string, t: Transformation): TokenBackend {
  const first = t.stores[0] ?? "builtin/internal";
  const store = storeOf(ctx, first);
  if (store && store.driver === "postgres") return sqlBackend(ctx, first, store, name);
  const tokens = tokenTable(ctx);
  tokens[name] ??= { seq: 0, records: Object.create(null), plain: Object.create(null) };
  return memoryBackend(t, tokens[name]);
}

export function dropTokens(ctx: SecretsContext, name: string): void {
  delete tokenTable(ctx)[name];
}
