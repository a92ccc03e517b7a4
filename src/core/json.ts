/**
 * Outputs must be plain JSON: the host's Struct conversion rejects undefined, BigInt, Buffer, Date
 * and Map. Undefined members are dropped; everything else that is not JSON is an error in our code.
 * A copy by walking, as JSON.stringify then JSON.parse would make it, at a fifth of the cost.
 */
const hasOwn = Object.prototype.hasOwnProperty;

export function plainJson<T>(value: T): T {
  return plain(value) as T;
}

function plain(v: unknown): unknown {
  if (v === null || typeof v !== "object") {
    if (typeof v === "bigint") throw new TypeError("BigInt in provider output");
    return typeof v === "number" && !Number.isFinite(v) ? null : v;
  }
  // Objects with their own JSON form (Date, Buffer) take the JSON road, as they did before.
  if (typeof (v as { toJSON?: unknown }).toJSON === "function") return JSON.parse(JSON.stringify(v));
  if (Array.isArray(v)) {
    return v.map((x) => {
      const c = plain(x);
      return c === undefined || typeof c === "function" || typeof c === "symbol" ? null : c;
    });
  }
  const out: Record<string, unknown> = {};
  // for-in over own keys: no key array is allocated per object (Object.keys makes one).
  for (const k in v) {
    if (!hasOwn.call(v, k)) continue;
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined || typeof x === "function" || typeof x === "symbol") continue;
    set(out, k, plain(x));
  }
  return out;
}

/**
 * `out[key] = value`, except that a key "__proto__" (check refuses it, but still copies the
 * inputs it reports on) becomes data instead of replacing the copy's prototype.
 */
function set(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/**
 * A shallow copy without the given keys. Rest destructuring does the same, but V8 runs it through a
 * slow generic path, and every operation strips its bookkeeping keys more than once.
 */
export function omit<T extends Record<string, unknown>>(value: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const k in value) if (hasOwn.call(value, k) && !keys.includes(k)) set(out, k, value[k]);
  return out as T;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
    const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
    return ka.length === kb.length &&
      ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}
