// pulumi-svc-import against servers whose objects someone else named: every free-text field of every
// kind the import reads holds a value built to break out of the files it writes (a newline and a
// command, quotes, $(...), backticks, ${...}, */, line separators, a bidi override, a terminal
// escape). The written pulumi-config.sh is run as docs/adopting.md says, with a stub `pulumi` on
// PATH and every command bash runs traced: only `pulumi config set` may run, each with the value the
// user put in; index.ts must parse to one declaration per object with every value intact. A kind
// the seed below does not make by hand is made with every free-text field planted, read from its
// declaration (plantTheRest), so a new kind is covered without a line here unless it needs one.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KIND_NAMES, kindDefinition } from "../../src/kinds";
import { main } from "../../src/import/cli";
import type { Field } from "../../src/core/fields";
import { typeName } from "../../src/import/program";
import { classOf } from "../../src/import/classes";
import { useEmulator } from "../support/emulator";
import { makeObject, onCluster, type RawValues } from "../support/kindCases";
import { fillConfigScript } from "../support/imported";

/** A value that ends a line, closes every quote and starts commands, each creating a file named after `tag`. */
function hostile(tag: string, opts: { slash?: boolean } = {}): string {
  const pwned = `PWNED-${tag}`;
  return `${tag}\ntouch ${pwned}-nl\n#'; touch ${pwned}-q; '$(touch ${pwned}-sub)\`touch ${pwned}-bt\`\${IFS}"\r\u2028\u2029\u202e\u001b[2J\u0085\u007f` +
    (opts.slash ? `*/ // \u0000` : "");
}

/**
 * Fields the service holds to a form that leaves no room for such a value, and why. A field carried
 * by a JSON:API relationship is an id the service assigns or checks (a workspace, users): it is no
 * free text (freeTextFields).
 */
const CONSTRAINED: Record<string, Record<string, string>> = {
  "secrets:TransformStore": { schema: "a plain identifier (the emulator, as PostgreSQL)" },
  "secrets:IdentityEntityAlias": { canonicalId: "an entity's id the service assigns", mountAccessor: "an auth mount's accessor the service assigns" },
  "secrets:PluginCatalogEntry": { sha256: "hex digits" },
  "secrets:MfaDualFactorMethod": { apiHostname: "a host name" },
  "secrets:DirectoryConfig": { url: "ldap://host[:port], no space (the host part holds the payload's quotes and $(...))", formatter: "mutually exclusive with passwordPolicy, which holds the payload", certificate: "PEM" },
  "secrets:RegistryAccessConfig": { address: "host:port", caCert: "PEM", clientCert: "PEM" },
  "secrets:RegistryRole": { policy: "base64" },
  "secrets:ReplicationPathsFilter": { secondaryClusterId: "an id the service assigns" },
};

/** Every value planted, by kind and field. */
const planted: Array<{ kind: string; field: string; value: string }> = [];
function plant(kind: string, field: string, opts: { slash?: boolean; wrap?: (v: string) => string } = {}): string {
  const raw = hostile(`${kind.split(":")[1]}.${field}`, opts);
  const value = opts.wrap ? opts.wrap(raw) : raw;
  planted.push({ kind, field, value });
  return value;
}

// Every request names the emulator; the seed is made once for the file.
const { emu } = useEmulator({ clusters: 2, reset: false, env: false });
let dir: string;
/** One object of each kind the import reads, every free-text field planted (names: no `/`, a path segment). */
async function seed(): Promise<void> {
  const make = (kind: string, values: RawValues, at = emu) => makeObject(at, kind, values);
  const alphabet = plant("secrets:TransformAlphabet", "name");
  await make("secrets:TransformAlphabet", { name: alphabet, alphabet: plant("secrets:TransformAlphabet", "alphabet", { wrap: (v) => [...new Set(v)].join("") }) });
  const template = plant("secrets:TransformTemplate", "name");
  await make("secrets:TransformTemplate", { name: template, alphabet,
    pattern: plant("secrets:TransformTemplate", "pattern", { slash: true, wrap: (v) => `(\\d{4})${v.replace(/\[/g, "\\[")}` }) });
  const fpe = plant("secrets:TransformFpeTransformation", "name");
  await make("secrets:TransformFpeTransformation", { name: fpe, template, allowedRoles: [plant("secrets:TransformFpeTransformation", "allowedRoles", { slash: true })] });
  const masking = plant("secrets:TransformMaskingTransformation", "name");
  await make("secrets:TransformMaskingTransformation", { name: masking, template, maskingCharacter: "'", allowedRoles: [plant("secrets:TransformMaskingTransformation", "allowedRoles", { slash: true })] });
  planted.push({ kind: "secrets:TransformMaskingTransformation", field: "maskingCharacter", value: "'" });
  const store = plant("secrets:TransformStore", "name");
  await make("secrets:TransformStore", { name: store, schema: "tokens", username: "u", password: "p",
    connectionString: plant("secrets:TransformStore", "connectionString", { slash: true, wrap: (v) => `{{username}}:{{password}}@tcp(127.0.0.1:3306)/${v}?parseTime=true` }) });
  const tokenization = plant("secrets:TransformTokenizationTransformation", "name");
  await make("secrets:TransformTokenizationTransformation", { name: tokenization, stores: [store], maxTtl: undefined,
    allowedRoles: [plant("secrets:TransformTokenizationTransformation", "allowedRoles", { slash: true })] });
  await make("secrets:TransformRole", { name: plant("secrets:TransformRole", "name"), transformations: [fpe, masking, tokenization] });
  const key = plant("secrets:KeymgmtKey", "name");
  await make("secrets:KeymgmtKey", { name: key, deletionAllowed: undefined, latestVersion: 1 });
  const kms = plant("secrets:KeymgmtKmsProvider", "name");
  await make("secrets:KeymgmtKmsProvider", { name: kms, keyCollection: plant("secrets:KeymgmtKmsProvider", "keyCollection", { slash: true }), credentials: undefined });
  await make("secrets:KeymgmtKeyDistribution", { kmsName: kms, keyName: key, purpose: ["sign"] });
  await make("secrets:PluginCatalogEntry", { name: plant("secrets:PluginCatalogEntry", "name"), env: undefined,
    command: plant("secrets:PluginCatalogEntry", "command", { slash: true }), args: [plant("secrets:PluginCatalogEntry", "args", { slash: true })] });
  const metaKey = plant("secrets:IdentityEntityAlias", "customMetadata", { slash: true });
  await make("secrets:IdentityEntityAlias", { name: plant("secrets:IdentityEntityAlias", "name", { slash: true }), customMetadata: { [metaKey]: metaKey } });
  await make("secrets:MfaDualFactorMethod", { secretKey: "s", integrationKey: "i",
    pushInfo: plant("secrets:MfaDualFactorMethod", "pushInfo", { slash: true }), usernameFormat: plant("secrets:MfaDualFactorMethod", "usernameFormat", { slash: true }) });
  const ldapHost = "ldap://h'$(touch${IFS}PWNED-DirectoryConfig.url)`touch${IFS}PWNED-bt`";
  planted.push({ kind: "secrets:DirectoryConfig", field: "url", value: ldapHost });
  await make("secrets:DirectoryConfig", { bindpass: "b", url: ldapHost, ttl: undefined, maxTtl: undefined, binddn: plant("secrets:DirectoryConfig", "binddn", { slash: true }),
    userdn: plant("secrets:DirectoryConfig", "userdn", { slash: true }), upndomain: plant("secrets:DirectoryConfig", "upndomain", { slash: true }),
    passwordPolicy: plant("secrets:DirectoryConfig", "passwordPolicy", { slash: true }) });
  await make("secrets:DirectoryRole", { name: plant("secrets:DirectoryRole", "name"), serviceAccountName: plant("secrets:DirectoryRole", "serviceAccountName", { slash: true }), ttl: "1h" });
  await make("secrets:DirectoryLibrarySet", { name: plant("secrets:DirectoryLibrarySet", "name"), maxTtl: undefined,
    serviceAccountNames: [plant("secrets:DirectoryLibrarySet", "serviceAccountNames", { slash: true })] });
  await make("secrets:RegistryAccessConfig", {});
  await make("secrets:RegistryRole", { name: plant("secrets:RegistryRole", "name"), policies: [plant("secrets:RegistryRole", "policies", { slash: true })], ttl: undefined });
  // A secondary (cluster 1) joined to cluster 0, and a filter of its paths there.
  await make("secrets:ReplicationPerformancePrimary", {});
  const { token } = await make("secrets:ReplicationSecondaryToken", { secondaryId: "eu" });
  const { clusterId } = await make("secrets:ReplicationPerformanceSecondary", { token }, onCluster(emu, 1));
  await make("secrets:ReplicationPathsFilter", { secondaryClusterId: clusterId, paths: [plant("secrets:ReplicationPathsFilter", "paths", { slash: true, wrap: (v) => `${v}/` })] });
  const url = "https://hooks.example/'$(touch PWNED-nc-url)`touch PWNED-nc-bt`";
  await make("runs:NotificationConfiguration", { name: plant("runs:NotificationConfiguration", "name", { slash: true }), url, token: "t", triggers: ["run:completed"] });
  planted.push({ kind: "runs:NotificationConfiguration", field: "url", value: url });
  await plantTheRest();
}

/** The kinds the import reads that plantTheRest could not make, and why. */
const unplanted: Record<string, string> = {};

/**
 * One object of each kind the import reads that the lines above do not make, every free-text field
 * planted (a field of its path, an identity, without `/`), through the kind's raw-request maker.
 */
async function plantTheRest(): Promise<void> {
  for (const [kind, names] of Object.entries(await freeTextFields())) {
    const open = names.filter((n) => CONSTRAINED[kind]?.[n] === undefined);
    if (open.length === 0 || planted.some((p) => p.kind === kind)) continue;
    const def = (await kindDefinition(kind))!;
    const values: RawValues = {};
    for (const f of open) {
      const value = plant(kind, f, { slash: !def.identity?.includes(f) });
      const type = typeName(def.fields![f]!);
      values[f] = type === "array" ? [value] : type === "record" ? { [value]: value } : value;
    }
    try {
      await makeObject(emu, kind, values);
    } catch (e) {
      unplanted[kind] = (e as Error).message;
    }
  }
}

/** Every kind the import reads, with its free-text inputs: strings, lists and maps that name no other object. */
async function freeTextFields(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const kind of KIND_NAMES) {
    const def = (await kindDefinition(kind))!;
    if (!def.discover || "none" in def.discover) continue;
    out[kind] = Object.entries(def.fields ?? {}).filter(([k, f]) => !f.flags.output && !f.flags.local && !f.flags.secret && !f.flags.writeOnly && !f.refers && !f.relationship && k !== "mount" &&
      (typeName(f) === "string" || typeName(f) === "record" || (typeName(f) === "array" && elementType(f) === "string"))).map(([k]) => k);
  }
  return out;
}

/** The zod type name of a list field's elements (`string`, `enum`). */
function elementType(f: Field): string {
  let z = f.type?.() as any;
  while (z?._zod?.def.type !== "array") z = z?._zod?.def.innerType ?? z?._zod?.def.in;
  let e = z._zod.def.element;
  while (["optional", "pipe"].includes(e?._zod?.def.type)) e = e._zod.def.innerType ?? e._zod.def.in;
  return e?._zod?.def.type;
}

/** Every string literal of a source file: values, list members and property names written as strings. */
function stringLiterals(source: ts.SourceFile): Set<string> {
  const found = new Set<string>();
  const visit = (n: ts.Node) => {
    if (ts.isStringLiteral(n)) found.add(n.text);
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

const UNSAFE_CHAR = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "import-untrusted-"));
  await seed();
}, 60_000);
afterAll(async () => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("pulumi-svc-import of objects named by someone else", () => {
  it("plants a value in every free-text field of every kind the import reads", async () => {
    expect(unplanted, "kinds whose object could not be made with every free-text field planted: give each a line of its own in seed()").toEqual({});
    const fields = await freeTextFields();
    for (const [kind, names] of Object.entries(fields)) {
      for (const f of names) {
        expect(planted.some((p) => p.kind === kind && p.field === f) || CONSTRAINED[kind]?.[f] !== undefined, `${kind}.${f}: planted or constrained`).toBe(true);
      }
    }
  });

  let out = "";
  const project = () => path.join(dir, "project");
  it("writes index.ts: one declaration per object, every planted value a string literal, intact", async () => {
    const env = { SVC_SECRETS_URL: emu.secretsUrl, SVC_SECRETS_TOKEN: emu.tokens.secretsRoot, SVC_RUN_URL: emu.runUrl, SVC_RUN_TOKEN: emu.tokens.runAdmin };
    const progress: string[] = [];
    const r = await main(["--workspace", emu.workspaceId, "--out", project()], (l) => progress.push(l), env);
    out = r.out;
    const objects = Number(/Wrote .*: (\d+) objects/.exec(r.out)?.[1]);
    expect(objects).toBeGreaterThanOrEqual(Object.keys(await freeTextFields()).length);
    // What the command prints holds no character that moves a terminal's cursor or ends a line early.
    for (const line of [...r.out.split("\n"), ...progress]) expect(line).not.toMatch(UNSAFE_CHAR);

    const text = fs.readFileSync(path.join(project(), "index.ts"), "utf8");
    for (const line of text.split("\n")) expect(line).not.toMatch(UNSAFE_CHAR);
    const source = ts.createSourceFile("index.ts", text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
    expect((source as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics.map((d) => d.messageText)).toEqual([]);
    // Only imports, the config and one `const x = new svc.Kind("name", {...})` per object.
    const declared = source.statements.filter((s) => ts.isVariableStatement(s) && s.declarationList.declarations.length === 1 &&
      ts.isNewExpression(s.declarationList.declarations[0]!.initializer!) && s.declarationList.declarations[0]!.initializer!.expression.getText(source).startsWith("svc."));
    const others = source.statements.filter((s) => !declared.includes(s)).map((s) => s.getText(source));
    expect(others).toEqual(['import * as pulumi from "@pulumi/pulumi";', 'import * as svc from "pulumi-svc";', "const config = new pulumi.Config();"]);
    expect(declared).toHaveLength(objects);
    // An object of every kind the import reads.
    const classes = new Set(declared.map((s) => ((s as ts.VariableStatement).declarationList.declarations[0]!.initializer as ts.NewExpression).expression.getText(source)));
    for (const kind of Object.keys(await freeTextFields())) expect(classes, kind).toContain(`svc.${await classOf(kind)}`);
    const literals = stringLiterals(source);
    for (const p of planted) expect(literals.has(p.value), `${p.kind}.${p.field} = ${JSON.stringify(p.value)}`).toBe(true);
    // Resource names are plain: the CLI prints them on every line about the resource.
    for (const s of declared) {
      const name = ((s as ts.VariableStatement).declarationList.declarations[0]!.initializer as ts.NewExpression).arguments![0] as ts.StringLiteral;
      expect(name.text).toMatch(/^[\p{L}\p{N}._-]+$/u);
    }
  });

  it("writes pulumi-config.sh that runs nothing but pulumi config set, each with the value put in, and refuses to run before the placeholders are replaced", () => {
    const script = path.join(project(), "pulumi-config.sh");
    const text = fs.readFileSync(script, "utf8");
    for (const line of text.split("\n")) expect(line).not.toMatch(UNSAFE_CHAR);
    expect(spawnSync("bash", ["-n", script], { encoding: "utf8" }).status).toBe(0);
    // Server values reach only comments: every other line is the script's own.
    for (const line of text.split("\n").filter((l) => l !== "" && !l.startsWith("#"))) {
      expect(line).toMatch(/^(set -euo pipefail|if grep .*|  echo .*|  exit 1|fi|pulumi config set --(secret|plaintext) [\w:]+ '[^']*')$/);
    }
    const stub = path.join(dir, "bin");
    fs.mkdirSync(stub, { recursive: true });
    const calls = path.join(dir, "calls");
    const trace = path.join(dir, "trace");
    fs.writeFileSync(path.join(stub, "pulumi"), `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done >> ${JSON.stringify(calls)}\nprintf '\\036' >> ${JSON.stringify(calls)}\n`, { mode: 0o755 });
    // Sourced by bash before the script: logs every command it runs, in command substitutions too.
    fs.writeFileSync(path.join(dir, "trace.sh"), `set -T\ntrap 'printf "%s\\n" "$BASH_COMMAND" >> ${JSON.stringify(trace)}' DEBUG\n`);
    const run = () => {
      for (const f of [calls, trace]) fs.rmSync(f, { force: true });
      const r = spawnSync("bash", ["pulumi-config.sh"], { cwd: project(), encoding: "utf8", env: { ...process.env, PATH: `${stub}:${process.env.PATH}`, BASH_ENV: path.join(dir, "trace.sh") } });
      const made = fs.existsSync(calls) ? fs.readFileSync(calls, "utf8").split("\u001e").filter(Boolean).map((c) => c.split("\0").slice(0, -1)) : [];
      return { ...r, made, traced: fs.existsSync(trace) ? fs.readFileSync(trace, "utf8").trim().split("\n") : [] };
    };

    const unfilled = run();
    expect(unfilled.status).toBe(1);
    expect(unfilled.stderr).toContain("replace each <VALUE> above with the real value first; nothing was set");
    expect(unfilled.made).toEqual([]);

    const keys = [...text.matchAll(/^(?:# )?pulumi config set --\w+ (\S+) '[^']*<VALUE>/gm)].map((m) => m[1]!);
    const values = Object.fromEntries(keys.map((k) => [k, `value of ${k}`]));
    fs.writeFileSync(script, fillConfigScript(text, values));
    const filled = run();
    expect(filled.status, filled.stderr).toBe(0);
    expect(filled.stderr).toBe("");
    const sets = [...text.matchAll(/^(?:# )?pulumi config set (--\w+) (\S+) ('[^']*')$/gm)].map((m) => ["config", "set", m[1]!, m[2]!, values[m[2]!] ?? m[3]!.slice(1, -1)]);
    expect(sets.length).toBeGreaterThan(10);
    expect(filled.made).toEqual(sets);
    expect(filled.traced.filter((c) => !c.startsWith("pulumi config set ") && c !== "set -euo pipefail" && !c.startsWith("grep -n "))).toEqual([]);
    expect(fs.readdirSync(project()).filter((f) => f.includes("PWNED"))).toEqual([]);
    expect(fs.readdirSync(dir).filter((f) => f.includes("PWNED"))).toEqual([]);
    expect(out).toContain("bash ");
  });
});
