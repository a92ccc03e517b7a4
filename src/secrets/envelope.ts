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
