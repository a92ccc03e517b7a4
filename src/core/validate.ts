import { nearest } from "./nearest";
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
  if (result.success) return [];
  const failures: CheckFailure[] = [];
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
    failures.push({ property, reason: issue.message });
  }
  return failures;
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
