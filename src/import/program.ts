/**
 * Writes the Pulumi program that takes over what the walk found: one declaration per object with
 * the values read back, references between objects as references, `adopt: true` or `adoptId` on
 * each, and every value read from stack config that the servers never return (write-only) or that
 * is a secret (a dual-factor method's keys, which the service does return). The text never holds a
 * secret value: those the user fills in with the `pulumi config set` lines.
 */
import { ADOPT_ID, type Props } from "../core/definition";
import type { Field } from "../core/fields";
import { SETTINGS } from "../core/config";
import { oneLine, shellWord, tsString } from "../core/text";
import { classOf } from "./classes";
import { keyInput } from "../core/path";
import type { Found } from "./walk";
import { routeWords } from "../http/route";

/** A value the program reads from stack config, and the line that sets it. */
export interface ConfigValue {
  key: string;
  secret: boolean;
  optional: boolean;
  /** What to put there: which object's which value (names from the servers as they are: escape to show). */
  about: string;
  /** The server returns it (a secret read back): it is left out of the files all the same. */
  returned: boolean;
  /** The value's form: a JSON object or list is set as JSON text. */
  form: "string" | "object" | "list";
}

export interface Written {
  program: string;
  config: ConfigValue[];
  /** The script of `pulumi config set` lines written beside the program. */
  script: string;
  /** The script's lines that set values, each under its comment (what the command prints). */
  settings: string;
}

export interface Source {
  runUrl?: string;
  secretsUrl?: string;
  workspaces: readonly string[];
}

const IDENT = /^[A-Za-z_$][\w$]*$/;
const words = (s: string) => s.split(/[^A-Za-z0-9]+/).filter(Boolean);
const camel = (s: string) => words(s).map((w, i) => (i === 0 ? w[0]!.toLowerCase() + w.slice(1) : w[0]!.toUpperCase() + w.slice(1))).join("");
const leaf = (qualified: string) => qualified.split(".").pop()!;

/** A value as TypeScript source, every text a string literal whatever it holds; identifiers unquoted. */
function literal(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(literal).join(", ")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return "{}";
    return `{ ${entries.map(([k, x]) => `${IDENT.test(k) ? k : tsString(k)}: ${literal(x)}`).join(", ")} }`;
  }
  return typeof v === "string" ? tsString(v) : JSON.stringify(v);
}

const equal = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The zod type name of a field (`record`, `array`, `string`...), unwrapping optional. */
export function typeName(f: Field): string {
  let s = f.type?.() as { _zod?: { def: { type: string; innerType?: unknown } } } | undefined;
  while (s?._zod?.def.type === "optional" || s?._zod?.def.type === "pipe") s = (s._zod.def as { innerType?: typeof s; in?: typeof s }).innerType ?? (s._zod.def as { in?: typeof s }).in;
  return s?._zod?.def.type ?? "string";
}

interface Decl {
  found: Found;
  cls: string;
  name: string;
  variable: string;
}

/** Readable, unique resource names (per class) and variable names (per program). */
function declarations(found: readonly Found[], classes: ReadonlyMap<string, string>): Decl[] {
  const names = new Set<string>();
  const variables = new Set<string>();
  return found.map((f) => {
    const cls = classes.get(f.kind)!;
    const base = resourceName(f, cls);
    let name = base;
    for (let i = 2; names.has(`${cls}/${name}`); i++) name = `${base}-${i}`;
    names.add(`${cls}/${name}`);
    const vbase = variableName(name, leaf(cls));
    let variable = /^[0-9]/.test(vbase) ? `_${vbase}` : vbase;
    for (let i = 2; variables.has(variable); i++) variable = `${vbase}${i}`;
    variables.add(variable);
    return { found: f, cls, name, variable };
  });
}

/** The resource's name then its class's, the words they share said once (`account-fpe` → accountFpeTransformation). */
function variableName(name: string, cls: string): string {
  const a = words(name);
  const b = words(cls.replace(/([a-z0-9])([A-Z])/g, "$1 $2"));
  let overlap = Math.min(a.length, b.length);
  while (overlap > 0 && a.slice(-overlap).join(" ").toLowerCase() !== b.slice(0, overlap).join(" ").toLowerCase()) overlap--;
  return camel([...a, ...b.slice(overlap)].join(" "));
}

/**
 * A path-keyed object is named by its path's own segments without the default mount; others by
 * their `name`; an object with neither (a mount's config, an MFA method) by its mount and class.
 * Letters, digits, `.`, `_` and `-` only: a resource's name shows in every line the CLI prints.
 */
function resourceName(f: Found, cls: string): string {
  const def = f.def;
  const dfltMount = def.fields?.mount?.default;
  if (def.path) {
    const words = new Set(routeWords(def.path.route));
    const kept = slug(f.id.split("/").filter((p, i) => !(i === 0 && p === dfltMount) && !words.has(p)).join("-"));
    if (kept) return kept;
  }
  const named = typeof f.props.name === "string" ? slug(f.props.name) : "";
  if (named) return named;
  const kebab = leaf(cls).replace(/[A-Z]/g, (c, i: number) => `${i ? "-" : ""}${c.toLowerCase()}`);
  return typeof f.props.mount === "string" && slug(f.props.mount) ? `${slug(f.props.mount)}-${kebab}` : kebab;
}

const slug = (s: string) => s.replace(/[^\p{L}\p{N}._-]+/gu, "-").replace(/^-+|-+$/g, "");

/** The program's source text and the config it reads. */
export async function writeProgram(found: readonly Found[], source: Source): Promise<Written> {
  const classes = new Map<string, string>();
  for (const kind of new Set(found.map((f) => f.kind))) classes.set(kind, await classOf(kind));
  const decls = declarations(found, classes);
  const config: ConfigValue[] = [];
  const body: string[] = [];
  for (const d of decls) body.push(declaration(d, decls, config));
  const head = [
    `// Written by pulumi-svc-import from ${oneLine([source.secretsUrl, source.runUrl].filter(Boolean).join(" and ") || "the configured servers")}` +
      `${source.workspaces.length ? ` (workspaces ${oneLine(source.workspaces.join(", "))})` : ""}.`,
    "// Every object below exists already: adopt and adoptId take it over on the first `pulumi up`,",
    "// which writes only what differs from the server. Values the servers never return, and secrets",
    "// (which no file the import writes holds), come from stack config: pulumi-config.sh sets them.",
    ...(config.length ? ['import * as pulumi from "@pulumi/pulumi";'] : []),
    'import * as svc from "pulumi-svc";',
    "",
    ...(config.length ? ["const config = new pulumi.Config();", ""] : []),
  ];
  const program = found.length === 0
    ? `${head.join("\n")}// Nothing was found on the servers: there is nothing to take over yet.\n`
    : `${head.join("\n")}${body.join("\n")}`;
  const settings = settingLines(config, source);
  return { program, config, script: `${SCRIPT_HEAD.join("\n")}\n${settings}`, settings };
}

function declaration(d: Decl, all: readonly Decl[], config: ConfigValue[]): string {
  const { def, props, id } = d.found;
  const args: string[] = [];
  for (const [k, f] of Object.entries(def.fields ?? {})) {
    if (f.flags.output || f.flags.local) continue;
    if (f.flags.secret || f.flags.writeOnly) {
      // A write-only value that steers the provider only (a rotation trigger) stays out, and so does
      // one the object cannot use (a notification token of another destination than generic).
      if (!f.flags.secret && f.flags.optional) continue;
      if (f.usedOnlyIf && !Object.entries(f.usedOnlyIf).every(([input, values]) => values.includes(props[input] as never))) continue;
      const key = uniqueKey(camel(`${d.name} ${k}`), config);
      const type = typeName(f);
      const form = type === "array" ? "list" : ["record", "object"].includes(type) ? "object" : "string";
      const optional = f.flags.optional === true;
      const getter = `${optional ? "get" : "require"}${f.flags.secret ? "Secret" : ""}${form === "string" ? "" : "Object"}`;
      args.push(`${k}: config.${getter}(${tsString(key)})`);
      config.push({ key, secret: f.flags.secret === true, optional, form, about: `${k} of ${d.cls} ${d.name} (${id})`, returned: !f.flags.writeOnly });
      continue;
    }
    const v = props[k];
    if (v === undefined) continue;
    // A reference is written even where it holds the default (a role's mount): it orders the two.
    const ref = reference(v, f, d.found, all);
    if (ref !== undefined) args.push(`${k}: ${ref}`);
    else if (f.default === undefined || !equal(v, f.default)) args.push(`${k}: ${literal(v)}`);
  }
  if (def.fields?.adopt) args.push("adopt: true");
  if (def.fields?.[ADOPT_ID]) args.push(`${ADOPT_ID}: ${tsString(id)}`);
  return `const ${d.variable} = new svc.${d.cls}(${tsString(d.name)}, {\n${args.map((a) => `  ${a},\n`).join("")}});\n`;
}

/** A value naming other objects found, written as references to their resources (literal where none is found). */
function reference(v: unknown, f: Field, from: Found, all: readonly Decl[]): string | undefined {
  const kinds = (f.refers ?? []).filter((k) => k !== from.kind);
  if (kinds.length === 0) return undefined;
  const target = (name: unknown) => all.find((d) => kinds.includes(d.found.kind) && sameMount(d.found.props, from.props) && d.found.props[keyInput(d.found.def) ?? ""] === name);
  const names = Array.isArray(v) ? v : [v];
  if (!names.some(target)) return undefined;
  const one = (name: unknown): string => {
    const to = target(name);
    return to ? `${to.variable}.${keyInput(to.found.def)}` : literal(name);
  };
  return Array.isArray(v) ? `[${v.map(one).join(", ")}]` : one(v);
}

const sameMount = (a: Props, b: Props) => a.mount === undefined || b.mount === undefined || a.mount === b.mount;

/** A config key no other value of the program has (two names may spell the same words). */
function uniqueKey(base: string, taken: readonly ConfigValue[]): string {
  const k = base === "" || /^[0-9]/.test(base) ? `value${base}` : base;
  let key = k;
  for (let i = 2; taken.some((c) => c.key === key); i++) key = `${k}${i}`;
  return key;
}

/** What stands where the user puts a value: the script refuses to run while one is left. */
export const PLACEHOLDER = "<VALUE>";
const PLACEHOLDERS: Record<ConfigValue["form"], string> = {
  string: PLACEHOLDER,
  object: `{"<NAME>": "${PLACEHOLDER}"}`,
  list: `["${PLACEHOLDER}"]`,
};

/** How the script starts: what to do with it, and a refusal to set anything while a placeholder is left. */
const SCRIPT_HEAD = [
  "#!/usr/bin/env bash",
  "# Stack config for the program pulumi-svc-import wrote beside this file: values the servers never",
  "# return, and secrets, which the import writes into no file even where the server returns them",
  `# (each such line says so). Replace each ${PLACEHOLDER} with the real value (a JSON object or list`,
  "# where the line shows one), uncomment the optional lines your objects need, then run it in the",
  "# project's folder: bash pulumi-config.sh. Names from the servers are shown escaped (\\n, \\u202e).",
  "set -euo pipefail",
  `if grep -n '^pulumi config set .*${PLACEHOLDER}' "$0" >&2; then`,
  `  echo "$0: replace each ${PLACEHOLDER} above with the real value first; nothing was set" >&2`,
  "  exit 1",
  "fi",
];

/**
 * The lines that fill the program's config: the connection first, then each value, each under a
 * comment saying which object's which value it is. Names and ids from the servers appear only in
 * those comments, escaped to one line (src/core/text.ts): nothing a server holds is ever run.
 */
function settingLines(config: readonly ConfigValue[], source: Source): string {
  const lines: string[] = [];
  const connection: Array<[keyof typeof SETTINGS, keyof typeof SETTINGS, string | undefined]> = [
    ["secretsUrl", "secretsToken", source.secretsUrl], ["runUrl", "runToken", source.runUrl]];
  for (const [urlKey, tokenKey, url] of connection) {
    if (!url) continue;
    const token = SETTINGS[tokenKey];
    // The CLI refuses a key that says "secret" without --secret or --plaintext; a URL is no secret.
    lines.push("", `# ${token.about}: the tokens the import ran with, or others that may write`,
      `pulumi config set --plaintext ${SETTINGS[urlKey].key} ${shellWord(url)}`,
      `pulumi config set --secret ${token.key} ${shellWord(PLACEHOLDER)}`);
  }
  for (const c of config) {
    const line = `pulumi config set ${c.secret ? "--secret" : "--plaintext"} ${c.key} ${shellWord(PLACEHOLDERS[c.form])}`;
    const said = `${c.returned ? "; a secret the server returns, kept out of the files" : ""}${c.optional ? "; optional: uncomment if the object has one" : ""}`;
    lines.push("", `# ${oneLine(c.about)}${said}`, c.optional ? `# ${line}` : line);
  }
  return `${lines.join("\n")}\n`;
}
