// The config a policy pack runs with, as the CLI reconciles it (pkg/resource/analyzer/config.go of
// v3.259.0): each policy's schema defaults and its own enforcement level, then the pack's initial
// config (the PolicyPack's third argument), then the config file (`--policy-pack-config`), where
// `"all"` sets every policy's level first; the result is checked against each policy's schema.

export type EnforcementLevel = "advisory" | "mandatory" | "remediate" | "disabled";
export const LEVELS: readonly EnforcementLevel[] = ["advisory", "mandatory", "disabled", "remediate"];

/** A JSON schema, as far as the policies' config schemas use it. */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: JsonSchema | boolean;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  properties?: Record<string, JsonSchema | boolean>;
  required?: string[];
  default?: unknown;
}

export interface PolicyConfig { enforcementLevel?: EnforcementLevel; properties?: Record<string, unknown> }
export interface PolicyInfo { name: string; enforcementLevel: EnforcementLevel; configSchema?: { properties: Record<string, JsonSchema>; required: string[] } }

const isLevel = (v: unknown): v is EnforcementLevel => typeof v === "string" && (LEVELS as string[]).includes(v);

/** A config file's policies: a level (`"disabled"`) or an object of properties with an optional `enforcementLevel`. */
export function parseConfigFile(text: string, file: string): Record<string, PolicyConfig> {
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file}: not JSON (${(e as Error).message})`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`${file}: must be a JSON object of policy names`);
  const out: Record<string, PolicyConfig> = {};
  for (const [name, v] of Object.entries(parsed as Record<string, unknown>)) {
    if (name === "environments") continue;
    if (typeof v === "string") {
      if (!isLevel(v)) throw new Error(`${file}: parsing enforcement level for "${name}": "${v}" is not a valid enforcement level`);
      out[name] = { enforcementLevel: v };
    } else if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const { enforcementLevel, ...properties } = v as Record<string, unknown>;
      if (enforcementLevel !== undefined && !isLevel(enforcementLevel)) throw new Error(`${file}: parsing enforcement level for "${name}": ${JSON.stringify(enforcementLevel)} is not a valid enforcement level`);
      if (enforcementLevel === undefined && Object.keys(properties).length === 0) continue;
      out[name] = { ...(enforcementLevel ? { enforcementLevel } : {}), ...(Object.keys(properties).length ? { properties } : {}) };
    } else {
      throw new Error(`${file}: parsing "${name}": must be a string or object`);
    }
  }
  return out;
}

function apply(result: Record<string, PolicyConfig>, given: Record<string, PolicyConfig>): void {
  const all = given.all?.enforcementLevel;
  if (all) for (const k of Object.keys(result)) result[k] = { ...result[k], enforcementLevel: all };
  for (const [name, g] of Object.entries(given)) {
    const r = result[name] ?? {};
    result[name] = {
      ...(g.enforcementLevel ?? r.enforcementLevel ? { enforcementLevel: g.enforcementLevel ?? r.enforcementLevel } : {}),
      ...(r.properties || g.properties ? { properties: { ...r.properties, ...g.properties } } : {}),
    };
  }
}

/** The config of every policy, or the errors of its check against the schemas (one line each, `policy: problem`). */
export function reconcile(policies: PolicyInfo[], initial: Record<string, PolicyConfig>, given: Record<string, PolicyConfig>): { config: Record<string, PolicyConfig>; errors: string[] } {
  const result: Record<string, PolicyConfig> = {};
  for (const p of policies) {
    const defaults = Object.entries(p.configSchema?.properties ?? {}).filter(([, s]) => s.default !== undefined).map(([k, s]) => [k, s.default]);
    result[p.name] = { enforcementLevel: p.enforcementLevel, ...(defaults.length ? { properties: Object.fromEntries(defaults) } : {}) };
  }
  apply(result, initial);
  apply(result, given);
  const errors = policies.flatMap((p) => (p.configSchema ? problems({ type: "object", properties: p.configSchema.properties, required: p.configSchema.required }, result[p.name]?.properties ?? {}, "").map((e) => `${p.name}: ${e}`) : []));
  return { config: result, errors };
}

const typeOf = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v);

/** What `value` breaks of `schema` (the keywords the policies' schemas use), each naming its path. */
export function problems(schema: JsonSchema | boolean, value: unknown, at: string): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${at || "(root)"}: no value is allowed`];
  const where = at || "(root)";
  const types = schema.type === undefined ? undefined : Array.isArray(schema.type) ? schema.type : [schema.type];
  const t = typeOf(value);
  if (types && !types.some((x) => x === t || (x === "number" && t === "integer"))) return [`${where}: Invalid type. Expected: ${types.join(", ")}, given: ${t}`];
  const out: string[] = [];
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) out.push(`${where}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(value)) out.push(`${where}: must be ${JSON.stringify(schema.const)}`);
  if (typeof value === "number") out.push(...numberProblems(schema, value, where));
  if (typeof value === "string") out.push(...stringProblems(schema, value, where));
  if (Array.isArray(value)) out.push(...arrayProblems(schema, value, at));
  if (t === "object") out.push(...objectProblems(schema, value as Record<string, unknown>, at));
  return out;
}

function numberProblems(s: JsonSchema, v: number, where: string): string[] {
  const out: string[] = [];
  if (s.minimum !== undefined && v < s.minimum) out.push(`${where}: Must be greater than or equal to ${s.minimum}`);
  if (s.maximum !== undefined && v > s.maximum) out.push(`${where}: Must be less than or equal to ${s.maximum}`);
  if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) out.push(`${where}: Must be greater than ${s.exclusiveMinimum}`);
  if (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum) out.push(`${where}: Must be less than ${s.exclusiveMaximum}`);
  return out;
}

function stringProblems(s: JsonSchema, v: string, where: string): string[] {
  const out: string[] = [];
  if (s.minLength !== undefined && v.length < s.minLength) out.push(`${where}: String length must be greater than or equal to ${s.minLength}`);
  if (s.maxLength !== undefined && v.length > s.maxLength) out.push(`${where}: String length must be less than or equal to ${s.maxLength}`);
  if (s.pattern !== undefined && !new RegExp(s.pattern, "u").test(v)) out.push(`${where}: Does not match pattern '${s.pattern}'`);
  return out;
}

function arrayProblems(s: JsonSchema, v: unknown[], at: string): string[] {
  const where = at || "(root)";
  const out: string[] = [];
  if (s.minItems !== undefined && v.length < s.minItems) out.push(`${where}: Array must have at least ${s.minItems} items`);
  if (s.maxItems !== undefined && v.length > s.maxItems) out.push(`${where}: Array must have at most ${s.maxItems} items`);
  if (s.uniqueItems && new Set(v.map((e) => JSON.stringify(e))).size !== v.length) out.push(`${where}: array items must be unique`);
  if (s.items !== undefined && !Array.isArray(s.items)) v.forEach((e, i) => out.push(...problems(s.items as JsonSchema | boolean, e, `${at ? `${at}.` : ""}${i}`)));
  return out;
}

function objectProblems(s: JsonSchema, v: Record<string, unknown>, at: string): string[] {
  const out: string[] = [];
  for (const r of s.required ?? []) if (!(r in v)) out.push(`${at || "(root)"}: ${r} is required`);
  for (const [k, sub] of Object.entries(s.properties ?? {})) if (k in v) out.push(...problems(sub, v[k], at ? `${at}.${k}` : k));
  return out;
}
