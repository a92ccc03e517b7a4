/** The secrets service wraps read results in `data`; lists are `{data: {keys: [...]}}`. */
export function dataOf<T = Record<string, unknown>>(body: unknown): T {
  if (body && typeof body === "object" && "data" in body) {
    const data = (body as { data: unknown }).data;
    if (data && typeof data === "object") return data as T;
  }
  throw new Error(`unexpected response from the secrets service: no "data" object`);
}

export function keysOf(body: unknown): string[] {
  const keys = dataOf<{ keys?: unknown }>(body).keys;
  return Array.isArray(keys) ? keys.map(String) : [];
}

/** Whether a read holds `key` (null counts as left out). */
export const present = (d: Record<string, unknown>, key: string): boolean => d[key] !== undefined && d[key] !== null;

/**
 * A field of a read, or the value recorded in state when the server leaves it out. Reads of real
 * servers may hold fewer fields than were written (the seeds' reads list only some): a default in
 * place of a missing field would show a change on every up, or a replacement where the field replaces.
 */
export function kept<T>(d: Record<string, unknown>, key: string, recorded: T | undefined, map: (v: unknown) => T, fallback: T): T {
  if (present(d, key)) return map(d[key]);
  return recorded !== undefined ? recorded : fallback;
}
