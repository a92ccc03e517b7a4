// Each policy of the ready pack (pulumi-svc/policy's svcPolicies) on the inputs check gives it, as
// the engine gives them: one that breaks the rule, one that keeps it, and a config that moves its
// threshold. The policies are called with CrossGuard's arguments built here (the engine's own, as
// a pack gets them under the CLI and the engine double, are test/engine/policy.test.ts's and
// test/cli/policy.test.ts's); remediations return what they change.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { PolicyResource, ResourceValidationArgs, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { typeToken } from "../../src/core/token";
import { svcPolicies } from "../../src/policy";
import type { Emulator } from "../../src/emulator";
import { checked, type Props } from "../support/calls";
import { root } from "../support/dist";
import { useEmulator } from "../support/emulator";

const { emu } = useEmulator({ secretsToken: "secretsRoot", reset: false });

class NotApplicable extends Error {}

interface Res { kind: string; name: string; inputs: Props; serverUrl?: string }

function args(r: Res & { props: Props }, config: Props): ResourceValidationArgs & PolicyResource {
  const type = typeToken(r.kind);
  const isType = (c: unknown) => (c as { __pulumiType?: string }).__pulumiType === type;
  return {
    type, props: r.props, urn: `urn:pulumi:dev::p::${type}::${r.name}`, name: r.name, stackTags: new Map(),
    opts: { protect: false, ignoreChanges: [], aliases: [], customTimeouts: { createSeconds: 0, updateSeconds: 0, deleteSeconds: 0 }, additionalSecretOutputs: [] },
    isType, asType: ((c: unknown) => (isType(c) ? r.props : undefined)) as never, getConfig: (() => config) as never,
    notApplicable: (reason?: string) => { throw new NotApplicable(reason); }, dependencies: [], propertyDependencies: {},
  };
}

const policy = (name: string) => {
  const p = svcPolicies().find((x) => x.name === name);
  if (!p) throw new Error(`no policy ${name}`);
  return p;
};

/** What `name` reports of `resources` (each checked first) under `config`; a stack policy sees them all at once. */
async function reported(name: string, resources: Res[], config: Props = {}): Promise<string[]> {
  const p = policy(name);
  const out: string[] = [];
  const report = (m: unknown) => void out.push(String(m));
  const all = [];
  for (const r of resources) all.push(args({ ...r, props: { ...(await checked(r.kind, r.inputs)), ...(r.serverUrl ? { serverUrl: r.serverUrl } : {}) } }, config));
  try {
    if ("validateStack" in p) await (p as StackValidationPolicy).validateStack({ resources: all, getConfig: (() => config) as never, stackTags: new Map(), notApplicable: all[0]!.notApplicable }, report);
    else for (const a of all) await ((p as ResourceValidationPolicy).validateResource as (a: unknown, r: unknown) => unknown)(a, report);
  } catch (e) {
    if (!(e instanceof NotApplicable)) throw e;
  }
  return out;
}

/** What `name`'s remediation changes of one resource: the properties it returns that differ from check's. */
async function remediated(name: string, r: Res, config: Props = {}): Promise<Props | undefined> {
  const props = await checked(r.kind, r.inputs);
  const before = { ...props };
  const out = (await (policy(name) as ResourceValidationPolicy).remediateResource!(args({ ...r, props }, config))) as Props | undefined;
  if (out === undefined) return undefined;
  return Object.fromEntries(Object.entries(out).filter(([k, v]) => JSON.stringify(before[k]) !== JSON.stringify(v)));
}

const hook = (e: Emulator, more: Props): Res => ({ kind: "runs:NotificationConfiguration", name: "hook", inputs: { workspaceId: e.workspaceId, name: "ci", destinationType: "generic", url: "https://hooks.example.com/ci", token: "x".repeat(40), triggers: ["run:completed"], ...more } });
const res = (kind: string, inputs: Props, name = "r"): Res => ({ kind: `secrets:${kind}`, name, inputs });

describe("the ready pack's policies", () => {
  it("every policy has a name, a description saying why with its source, a default level and a config schema", () => {
    const all = svcPolicies();
    expect(all.length).toBeGreaterThanOrEqual(18);
    expect(new Set(all.map((p) => p.name)).size).toBe(all.length);
    for (const p of all) {
      expect(p.description, p.name).toMatch(/\((run service seed|secrets service seed [AB]|the three seeds)[^)]*\)/);
      expect(["advisory", "mandatory"], p.name).toContain(p.enforcementLevel);
      expect(p.configSchema?.properties, p.name).toBeDefined();
    }
    // A fresh list each time: a pack may change its copies.
    svcPolicies()[0]!.enforcementLevel = "disabled";
    expect(svcPolicies()[0]!.enforcementLevel).not.toBe("disabled");
  });

  it("docs/policy.md lists every policy with its default level, config keys and what it rests on", () => {
    const doc = fs.readFileSync(path.join(root, "docs/policy.md"), "utf8");
    const rows = doc.split("\n").filter((l) => l.startsWith("| `"));
    for (const p of svcPolicies()) {
      const row = rows.find((r) => r.startsWith(`| \`${p.name}\``));
      expect(row, `${p.name} has a row in docs/policy.md`).toBeDefined();
      const cells = row!.split(" | ");
      expect(cells[1], p.name).toMatch(new RegExp(`^${p.enforcementLevel}`));
      expect(cells[1]!.includes("remediates"), `${p.name}: "remediates" when it has a remediation`).toBe("remediateResource" in p && p.remediateResource !== undefined);
      for (const k of Object.keys(p.configSchema?.properties ?? {})) expect(cells[3], `${p.name}: config ${k}`).toContain(`\`${k}\``);
      expect(cells[4]!.length, `${p.name}: what it rests on`).toBeGreaterThan(20);
    }
    expect(rows.filter((r) => svcPolicies().some((p) => r.startsWith(`| \`${p.name}\``))).length).toBe(svcPolicies().length);
  });

  it("notification-url-tls: plain http outside loopback, unless allowed", async () => {
    expect(await reported("notification-url-tls", [hook(emu, { url: "http://hooks.example.com/ci" })])).toEqual(["ci: generic destination http://hooks.example.com/ci is plain http outside loopback"]);
    expect(await reported("notification-url-tls", [hook(emu, {}), hook(emu, { url: "http://127.0.0.1:9/ci" }), hook(emu, { url: "http://[::1]:9/ci" })])).toEqual([]);
    expect(await reported("notification-url-tls", [hook(emu, { url: "http://hooks.example.com/ci" })], { allowedHttpHosts: ["hooks.example.com"] })).toEqual([]);
  });

  it("notification-signing-token: a generic destination without a token, or with a short one", async () => {
    expect(await reported("notification-signing-token", [hook(emu, { token: undefined })])).toEqual(["ci: generic destination without a token: its notifications are not signed"]);
    expect(await reported("notification-signing-token", [hook(emu, { token: "t".repeat(21) })])).toEqual(["ci: token of 21 characters, fewer than 32"]);
    expect(await reported("notification-signing-token", [hook(emu, { token: "t".repeat(21) })], { minLength: 16 })).toEqual([]);
    expect(await reported("notification-signing-token", [hook(emu, { token: undefined, destinationType: "chat-a" })])).toEqual([]);
  });

  it("notification-triggers: enabled with none, or without a required one", async () => {
    expect(await reported("notification-triggers", [hook(emu, { enabled: true, triggers: [] })])).toEqual(["ci: enabled without triggers: it sends nothing"]);
    expect(await reported("notification-triggers", [hook(emu, { enabled: false, triggers: [] })])).toEqual([]);
    expect(await reported("notification-triggers", [hook(emu, { enabled: true })], { requiredTriggers: ["run:errored"] })).toEqual(["ci: missing required trigger(s) run:errored"]);
  });

  it("key-deletion-allowed: reported, exempted by name, and remediated to false", async () => {
    const key = res("KeymgmtKey", { name: "k", type: "aes256-gcm96", deletionAllowed: true });
    expect(await reported("key-deletion-allowed", [key])).toEqual(["key k allows its deletion, and every value encrypted under it would go with it"]);
    expect(await reported("key-deletion-allowed", [key], { allowedNames: ["k"] })).toEqual([]);
    expect(await reported("key-deletion-allowed", [res("KeymgmtKey", { name: "k" })])).toEqual([]);
    expect(await remediated("key-deletion-allowed", key)).toEqual({ deletionAllowed: false });
    expect(await remediated("key-deletion-allowed", res("KeymgmtKey", { name: "k" }))).toBeUndefined();
  });

  it("key-distribution-protection and key-single-distribution", async () => {
    const dist = (kms: string, more: Props = {}) => res("KeymgmtKeyDistribution", { kmsName: kms, keyName: "k", purpose: ["encrypt"], ...more }, kms);
    expect(await reported("key-distribution-protection", [dist("aws", { protection: "software" })])).toEqual(["key k in aws: protection software is not one of hsm"]);
    expect(await reported("key-distribution-protection", [dist("aws", { protection: "software" })], { allowedProtections: ["hsm", "software"] })).toEqual([]);
    expect(await reported("key-single-distribution", [dist("aws"), dist("gcp")])).toEqual(["key k is distributed to aws and to gcp"]);
    expect(await reported("key-single-distribution", [dist("aws"), { ...dist("gcp"), inputs: { ...dist("gcp").inputs, keyName: "other" } }])).toEqual([]);
  });

  it("mfa-provider-host checks nothing until the provider's domains are given", async () => {
    const method = (host: string) => res("MfaDualFactorMethod", { secretKey: "s3cr3t-key-0001", integrationKey: "int-key-0001", apiHostname: host });
    expect(await reported("mfa-provider-host", [method("api-1.example.com")])).toEqual([]);
    expect(await reported("mfa-provider-host", [method("api-1.example.com")], { allowedDomains: ["duo.example.net"] })).toEqual(["dual-factor method's apiHostname api-1.example.com is not in duo.example.net"]);
    expect(await reported("mfa-provider-host", [method("api-1.duo.example.net")], { allowedDomains: ["duo.example.net"] })).toEqual([]);
  });

  it("replication: paths filters and primaries", async () => {
    const filter = (mode: string, paths: string[]) => res("ReplicationPathsFilter", { secondaryClusterId: "west", mode, paths });
    expect(await reported("replication-paths-filter", [filter("allow", [])])).toEqual(["filter of west: allow mode with no paths replicates nothing"]);
    expect(await reported("replication-paths-filter", [filter("deny", ["transform/"])], { neverReplicate: ["transform"] })).toEqual([]);
    expect(await reported("replication-paths-filter", [filter("allow", ["transform/"])], { neverReplicate: ["transform/"] })).toEqual(["filter of west: transform/ would replicate to the secondary"]);
    expect(await reported("replication-paths-filter", [filter("deny", ["kv/"])], { neverReplicate: ["transform/"] })).toEqual(["filter of west: transform/ would replicate to the secondary"]);
    const primary = (name: string) => res("ReplicationPerformancePrimary", {}, name);
    expect(await reported("replication-single-primary", [primary("a"), primary("b")])).toEqual([`b and a both enable a primary on ${emu.secretsUrl}`]);
    expect(await reported("replication-single-primary", [primary("a")])).toEqual([]);
  });

  it("registry-role-ttl and registry-access-tls", async () => {
    const role = (more: Props) => res("RegistryRole", { name: "reader", policies: ["read"], ...more });
    expect(await reported("registry-role-ttl", [role({})])).toEqual(["registry role reader: no ttl, so the engine's default applies"]);
    expect(await reported("registry-role-ttl", [role({ ttl: "48h" })])).toEqual(["registry role reader: ttl 48h, above 24h"]);
    expect(await reported("registry-role-ttl", [role({ ttl: "48h" })], { maximum: "72h" })).toEqual([]);
    expect(await remediated("registry-role-ttl", role({}))).toEqual({ ttl: "24h" });
    expect(await remediated("registry-role-ttl", role({ maxTtl: "2h" }))).toEqual({ ttl: "2h" });
    const access = (address: string, more: Props = {}) => res("RegistryAccessConfig", { address, token: "management-token-0001", ...more });
    expect(await reported("registry-access-tls", [access("consul.example.com:8500")])).toEqual(["registry access to consul.example.com:8500 uses http: the management token crosses the network readable"]);
    expect(await reported("registry-access-tls", [access("consul.example.com:8500", { scheme: "https" }), access("127.0.0.1:8500")])).toEqual([]);
  });

  it("tokenization: exportable mapping mode, tokens that never expire, and a store run as its schema's user", async () => {
    const tok = (more: Props) => res("TransformTokenizationTransformation", { name: "cards", ...more });
    expect(await reported("tokenization-exportable", [tok({ mappingMode: "exportable" })])).toEqual(["cards: exportable mapping mode lets export-decoded return every plaintext"]);
    expect(await reported("tokenization-exportable", [tok({})])).toEqual([]);
    expect(await reported("tokenization-max-ttl", [tok({})])).toEqual(["cards: maxTtl 0 lets tokens live for ever"]);
    expect(await reported("tokenization-max-ttl", [tok({ maxTtl: "9000h" })])).toEqual(["cards: maxTtl 9000h is above 8760h"]);
    expect(await reported("tokenization-max-ttl", [tok({ maxTtl: "9000h" })], { maximum: "9999h" })).toEqual([]);
    expect(await remediated("tokenization-max-ttl", tok({}))).toEqual({ maxTtl: "8760h" });
    const store = res("TransformStore", { name: "my", driver: "mysql", connectionString: "{{username}}:{{password}}@tcp(db:3306)/t?parseTime=true", username: "owner", password: "p4ss-w0rd-one" }, "store");
    const schema = (user: string) => res("TransformStoreSchema", { store: "my", username: user, password: "p4ss-w0rd-two" }, "schema");
    expect(await reported("store-schema-user", [store, schema("owner")])).toEqual(["store my runs as owner, the user its schema was made with"]);
    expect(await reported("store-schema-user", [store, schema("admin")])).toEqual([]);
  });

  it("directory: role ttl, library set ttls (0 is no limit), and TLS to the directory", async () => {
    expect(await reported("directory-role-ttl", [res("DirectoryRole", { name: "app", serviceAccountName: "svc-app", ttl: "48h" })])).toEqual(["role app: ttl 48h, above 24h"]);
    expect(await reported("directory-role-ttl", [res("DirectoryRole", { name: "app", serviceAccountName: "svc-app", ttl: "48h" })], { maximum: "72h" })).toEqual([]);
    const set = (more: Props) => res("DirectoryLibrarySet", { name: "pool", serviceAccountNames: ["a"], ...more });
    expect(await reported("library-set-ttl", [set({ ttl: "0" })])).toEqual(["library set pool: ttl 0, no limit"]);
    expect(await reported("library-set-ttl", [set({ ttl: "48h", maxTtl: "48h" })])).toEqual(["library set pool: ttl 48h, above 24h", "library set pool: maxTtl 48h, above 24h"]);
    expect(await reported("library-set-ttl", [set({})])).toEqual([]);
    expect(await remediated("library-set-ttl", set({ ttl: "0" }))).toEqual({ ttl: "24h" });
    const dir = (more: Props) => res("DirectoryConfig", { binddn: "cn=admin,dc=example,dc=org", bindpass: "Mb1Rq6Zt3Wx8Kp4L", url: "ldaps://ldap.example.org", ...more });
    expect(await reported("directory-tls", [dir({ insecureTls: true })])).toEqual(["directory config: insecureTls skips the verification of the directory's certificate"]);
    expect(await reported("directory-tls", [dir({ url: "ldap://ldap.example.org,ldap://127.0.0.1" })])).toEqual(["directory config: ldap://ldap.example.org is unencrypted LDAP (no ldaps://, no starttls)"]);
    expect(await reported("directory-tls", [dir({}), dir({ url: "ldap://ldap.example.org", starttls: true })])).toEqual([]);
    expect(await remediated("directory-tls", dir({ insecureTls: true }))).toEqual({ insecureTls: false });
  });

  it("connection-tls: a resource whose server is plain http outside loopback, of any kind", async () => {
    const alphabet = { ...res("TransformAlphabet", { name: "digits", alphabet: "0123456789" }) };
    expect(await reported("connection-tls", [{ ...alphabet, serverUrl: "http://secrets.example.com/v1" }])).toEqual(["r is reached at http://secrets.example.com/v1, plain http outside loopback"]);
    expect(await reported("connection-tls", [alphabet, { ...alphabet, serverUrl: "https://secrets.example.com/v1" }])).toEqual([]);
    expect(await reported("connection-tls", [{ ...alphabet, serverUrl: "http://secrets.example.com/v1" }], { allowedHttpHosts: ["secrets.example.com"] })).toEqual([]);
  });
});
