import { isUnknown } from "./unknown";

/**
 * What validation needs of a schema. zod's schemas have this shape; declaring it here keeps zod's
 * types out of the public declarations, which must compile without skipLibCheck or esModuleInterop.
 */
export interface Schema {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: ReadonlyArray<Issue> } };
}

interface Issue {
  path: ReadonlyArray<PropertyKey>;
  message: string;
  code?: string;
  /** Unrecognized keys (zod's strict objects). */
  keys?: ReadonlyArray<string>;
}

export interface CheckFailure {
  property: string;
  reason: string;
}

/** `["users", 0, "id"]` → `users[0].id`, the way the engine and users write property paths. */
export function propertyPath(path: ReadonlyArray<PropertyKey>): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else out += out === "" ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): { unknown: boolean } {
  let cur: unknown = root;
  for (const seg of path) {
    if (isUnknown(cur)) return { unknown: true };
    if (cur === null || typeof cur !== "object") return { unknown: false };
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return { unknown: isUnknown(cur) };
}

/**
 * Validates inputs with a zod schema. Problems at a value that is still unknown (preview) are not
 * problems yet: the same check runs again with the real value before anything is created.
 */
export function validate(schema: Schema, value: unknown): CheckFailure[] {
  const result = schema.safeParse(value);
  const failures: CheckFailure[] = [];
  if (!result.success) {
    for (const issue of result.error.issues) {
      if (valueAt(value, issue.path).unknown) continue;
      if (issue.code === "unrecognized_keys" && issue.keys) {
        const known = keysAt(schema, issue.path);
        for (const key of issue.keys) {
          const near = nearest(key, known);
          failures.push({ property: propertyPath([...issue.path, key]), reason: `unknown property${near ? `; did you mean ${near}?` : ""}` });
        }
        continue;
      }
      // Zod reports a bad member of a union at the union's path; look one level down too.
      const property = propertyPath(issue.path) || "(inputs)";
      failures.push({ property, reason: ownWording(issue.message) });
    }
  }
  // Rules for every input of every kind and function, whatever its schema says. A value too long
  // to send is refused for that alone: the schema's rules about it say nothing more useful (and
  // some quote the value, such as a pattern that does not compile).
  const problems = valueProblems(value);
  if (problems.length === 0) return failures.map(shortened);
  const replaced = new Set(problems.map((f) => f.property));
  return [...failures.filter((f) => !replaced.has(f.property)), ...problems].map(shortened);
}

/**
 * zod's own type message ("Invalid input: expected string, received undefined") in the words every
 * field declared with its own message uses ("must be a string"), so one output never says both.
 */
function ownWording(message: string): string {
  const m = /^Invalid input: expected (\w+), received \w+$/.exec(message);
  if (!m) return message;
  const type = m[1]!;
  return `must be ${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}

const MAX_REASON = 1000;

/** A reason that quotes a long value (a regular expression's own error does) is cut, not printed whole. */
function shortened(f: CheckFailure): CheckFailure {
  return f.reason.length <= MAX_REASON ? f : { property: f.property, reason: `${f.reason.slice(0, MAX_REASON)}… (${f.reason.length} characters)` };
}

/**
 * Longest string an input may hold, in UTF-8 bytes: the secrets service's default limit on a whole
 * request body (`max_request_size`, 32 MiB), which answers a bigger one with 413. The run service
 * publishes no limit of its own; the same one applies. A value over it could never be sent.
 */
export const MAX_VALUE_BYTES = 32 * 1024 * 1024;

const PROTO_KEY = "__proto__";

/**
 * Strings too long for any request, and `__proto__` as a key of a map-typed input (metadata,
 * credentials, triggers, ...), at any depth. zod's records skip such a key silently, and both the
 * Pulumi SDK and the provider host carry inputs by assigning keys to plain objects, which turns
 * this one into the object's prototype: it can never arrive as data, so it is refused by name.
 * Other keys (`constructor`, `toString`) are data like any other.
 */
export function valueProblems(root: unknown): CheckFailure[] {
  const out: CheckFailure[] = [];
  const seen = new Set<object>();
  // One path, pushed and popped: a batch of thousands of items allocates no path per item.
  const path: PropertyKey[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") {
      if (v.length * 3 <= MAX_VALUE_BYTES) return;
      const bytes = Buffer.byteLength(v, "utf8");
      if (bytes > MAX_VALUE_BYTES) out.push({ property: propertyPath(path) || "(inputs)", reason: `must be at most ${MAX_VALUE_BYTES} bytes (32 MiB, a request body); got ${bytes}` });
      return;
    }
    if (v === null || typeof v !== "object" || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        walk(v[i]);
        path.pop();
      }
      return;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return; // an iterable, a Buffer, an Output: not JSON input
    for (const key of Object.keys(v)) {
      path.push(key);
      if (key === PROTO_KEY) {
        out.push({ property: propertyPath(path), reason: `"${PROTO_KEY}" cannot be a key: JavaScript takes it as the object's prototype, so the value would be lost on the way to the server` });
      } else {
        walk((v as Record<string, unknown>)[key]);
      }
      path.pop();
    }
  };
  walk(root);
  return out;
}

/**
 * Failures as the engine should get them. The engine prints a failure's value by looking its
 * property up among the top-level inputs, so a nested path (`triggers[0]`) shows as `{<nil>}`
 * beside a value that was given; such a failure goes to the resource, its path leading the reason.
 */
export function forEngine(failures: CheckFailure[]): CheckFailure[] {
  return failures.map((f) => /[.[]/.test(f.property) ? { property: "", reason: `${f.property}: ${f.reason}` } : f);
}

/** Formats failures as one error line, for the function forms that have no engine to show them. */
export function describeFailures(failures: CheckFailure[]): string {
  return failures.map((f) => `${f.property}: ${f.reason}`).join("; ");
}

type Walkable = { shape?: Record<string, unknown>; element?: unknown; unwrap?: () => unknown; valueType?: unknown };

/** The property names a strict object schema knows at `path` (to suggest the nearest one). */
function keysAt(schema: Schema, path: ReadonlyArray<PropertyKey>): string[] {
  let cur = schema as unknown as Walkable | undefined;
  const unwrap = () => {
    while (cur && !cur.shape && !cur.element && typeof cur.unwrap === "function") cur = cur.unwrap() as Walkable;
  };
  for (const seg of path) {
    unwrap();
    if (!cur) return [];
    if (typeof seg === "number") cur = cur.element as Walkable | undefined;
    else cur = (cur.shape?.[String(seg)] ?? cur.valueType) as Walkable | undefined;
  }
  unwrap();
  return cur?.shape ? Object.keys(cur.shape) : [];
}

// The suggestion for a misspelt name lives here rather than in a module of its own: a module costs
// every host a resolve, read and compile on its first (valid) check, a function is compiled by V8
// only when a property is unknown.

/** The nearest known name to a misspelt one (edit distance at most a third of its length). */
/** The known name nearest to `name` (case aside), within a third of its length in edits; for "did you mean". */
export function nearest(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestCost = Math.max(2, Math.floor(name.length / 3)) + 1;
  const lower = name.toLowerCase();
  for (const k of known) {
    const cost = distance(lower, k.toLowerCase());
    if (cost < bestCost) {
      best = k;
      bestCost = cost;
    }
  }
  return best;
}

function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 8) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
