// What the tests make of each resource kind, one entry a kind: the inputs the fault matrix deploys
// (test/faults/matrix.test.ts fails for a kind with no entry and no suite of its own) and, for a
// kind the import takes over, the objects its seed makes outside Pulumi (on the emulator alone: a
// mysql store, the built-in directory) and the config a user gives the imported program for what
// the server never returns and for secrets (test/support/seed-import.ts, test/support/imported.ts;
// test/engine/testing-import.test.ts fails for a kind the import reads that no seed makes and that
// its list of exclusions does not name with the reason, test/engine/get.test.ts for a kind that can
// be read by its id).
// Every object made outside Pulumi comes from one raw-request factory (makeObject, RAW below): the
// seed, the import's untrusted-text test and the emulator's populate give only their values.
// The entries are in the order the seed makes them: what an object refers to comes first.
import type { Emulator } from "../../src/emulator";
import type { Props } from "./calls";
import { control, runApi, secretsApi } from "./emulator";
import { mustSucceed } from "./must";

/**
 * Values the servers never return, and secrets they return (a dual-factor method's keys): the
 * generated files must not hold them, and the user gives them.
 */
export const WRITE_ONLY = {
  hookToken: "seeded-hook-token-7c1d2e",
  kmsSecretKey: "seeded-kms-secret-key-4b9a",
  pluginEnv: "PLUGIN_PASSWORD=seeded-plugin-env-8d3c",
  duoSecret: "seeded-duo-secret-key-1a5b",
  duoIkey: "SEEDEDDUOINTEGRATION1",
  bindpass: "seeded-bind-password-5e2f",
  storePassword: "seeded-store-password-0c7a",
};

/** What seeding returns that the tests need: ids the servers chose and the registry's token. */
export interface Seeded {
  /** The id of the seed's object of each kind (of the first, where it makes several). */
  ids: Record<string, string>;
  hookId: string;
  aliasId: string;
  methodId: string;
  /** The registry's management token, which the emulator's registry makes (write-only like the rest). */
  registryToken: string;
}

export interface KindCase {
  kind: string;
  create: (emu: Emulator) => Props;
  /** Inputs changed in place; absent when the kind has nothing to update on the server. */
  update?: (emu: Emulator) => Props;
  /** How many objects of the kind the server holds. */
  count: (emu: Emulator) => Promise<number>;
  /** The service path prefix the kind writes to (a fault matches it). */
  prefix: string;
  /** The method of an update. */
  updateMethod?: string;
  /** The method of a delete (a check-in is a POST). */
  deleteMethod?: string;
  noDelete?: boolean;
  /** False for settings of an object that exists anyway: create and delete change no count. */
  creates?: boolean;
  /** Objects the matrix's case needs, made with raw requests. */
  setup?: (emu: Emulator) => Promise<void>;
  /** The import's seed: objects of the kind made by raw requests (no provider code). */
  seed?: (emu: Emulator) => Promise<Partial<Seeded>>;
  /** The stack config the imported program asks for the seeded objects' write-only values. */
  config?: (seeded: Seeded) => Record<string, string>;
}

const secrets = (emu: Emulator, method: string, path: string, body?: unknown) => mustSucceed(secretsApi(emu, method, path, body), `${method} ${path}`);
const keys = async (emu: Emulator, path: string) => {
  const r = await secretsApi(emu, "LIST", path);
  return r.status === 404 ? 0 : (r.body.data.keys as string[]).length;
};
const directoryConfig = { binddn: "cn=admin,dc=example,dc=org", bindpass: "Mb1Rq6Zt3Wx8Kp4L", url: "ldap://127.0.0.1:1" };
const kms = { provider: "awskms", key_collection: "eu-west-1", credentials: { access_key: "AKIAEXAMPLE0001", secret_key: "secret-0001-abcdef" } };
const SHA = "0123456789abcdef".repeat(4);
let management = "";

/** An object's values by the kind's input names; an undefined value leaves the field out of the request. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RawValues = Record<string, any>;

/** What making an object answers: its id (its path, or the id the service gave it), and what else the service answered. */
export interface RawObject {
  id: string;
  /** The registry access config's management token, made unless given. */
  registryToken?: string;
  /** The account a check-out lent, with its password. */
  account?: { name: string; password: string };
  /** A secondary token's activation token; a secondary's cluster id. */
  token?: string;
  clusterId?: string;
}

interface RawKind {
  /** The values of the seed's object, which the caller's values replace field by field. */
  usual: RawValues;
  make: (emu: Emulator, v: RawValues) => Promise<RawObject>;
}

const enc = encodeURIComponent;
/** The accounts a directory object names, added to the emulator's built-in directory (no server answers at the config's URL). */
const directoryAccounts = (emu: Emulator, accounts: string[]) => control(emu, "POST", "/directory/accounts", { accounts });

/**
 * The raw-request factory: one object of each kind made by requests to the service, with no
 * provider code, so that what the tests read, import or show was made as someone else makes it.
 * The wire shape of each object (its path, the body's names) is written here once; the import's
 * seed (the kinds' `seed`), the import's untrusted-text test and the emulator's populate give only
 * their values (makeObject).
 */
const RAW: Record<string, RawKind> = {
  "secrets:TransformAlphabet": {
    usual: { mount: "transform", name: "hexits", alphabet: "0123456789abcdef" },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/${v.mount}/alphabet/${enc(v.name)}`, { alphabet: v.alphabet });
      return { id: `${v.mount}/alphabet/${v.name}` };
    },
  },
  "secrets:TransformTemplate": {
    usual: { mount: "transform", name: "account", type: "regex", pattern: "(\\d{4})-(\\d{4})", alphabet: "hexits" },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/${v.mount}/template/${enc(v.name)}`, { type: v.type, pattern: v.pattern, alphabet: v.alphabet });
      return { id: `${v.mount}/template/${v.name}` };
    },
  },
  "secrets:TransformFpeTransformation": {
    usual: { mount: "transform", name: "account-fpe", template: "account", tweakSource: "internal", allowedRoles: ["payments"] },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/${v.mount}/transformations/fpe/${enc(v.name)}`, { template: v.template, tweak_source: v.tweakSource, allowed_roles: v.allowedRoles });
      return { id: `${v.mount}/transformation/${v.name}` };
    },
  },
  "secrets:TransformMaskingTransformation": {
    usual: { mount: "transform", name: "ssn-mask", template: "ssn", maskingCharacter: "#", allowedRoles: ["payments"] },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/${v.mount}/transformations/masking/${enc(v.name)}`, { template: v.template, masking_character: v.maskingCharacter, allowed_roles: v.allowedRoles });
      return { id: `${v.mount}/transformation/${v.name}` };
    },
  },
  "secrets:TransformStore": {
    usual: {
      mount: "transform", name: "tokens-db", type: "sql", driver: "mysql", supportedTransformations: ["tokenization"],
      connectionString: "{{username}}:{{password}}@tcp(db.example:3306)/tokens?parseTime=true", username: "tokens", password: WRITE_ONLY.storePassword,
    },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/${v.mount}/stores/${enc(v.name)}`, {
        type: v.type, driver: v.driver, supported_transformations: v.supportedTransformations, schema: v.schema,
        connection_string: v.connectionString, username: v.username, password: v.password,
      });
      return { id: `${v.mount}/stores/${v.name}` };
    },
  },
  "secrets:TransformTokenizationTransformation": {
    usual: { mount: "transform", name: "card-token", allowedRoles: ["payments"], maxTtl: "24h" },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/${v.mount}/transformations/tokenization/${enc(v.name)}`, { stores: v.stores, allowed_roles: v.allowedRoles, max_ttl: v.maxTtl });
      return { id: `${v.mount}/transformation/${v.name}` };
    },
  },
  "secrets:TransformRole": {
    usual: { mount: "transform", name: "payments", transformations: ["account-fpe", "ssn-mask", "card-token"] },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/${v.mount}/role/${enc(v.name)}`, { transformations: v.transformations });
      return { id: `${v.mount}/role/${v.name}` };
    },
  },
  "secrets:KeymgmtKey": {
    // latestVersion: rotated until the key has that many versions.
    usual: { mount: "keymgmt", name: "signing", type: "ecdsa-p256", deletionAllowed: true, latestVersion: 2 },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/${v.mount}/key/${enc(v.name)}`, { type: v.type, deletion_allowed: v.deletionAllowed });
      for (let version = 1; version < (v.latestVersion ?? 1); version++) await secrets(emu, "POST", `/${v.mount}/key/${enc(v.name)}/rotate`);
      return { id: `${v.mount}/key/${v.name}` };
    },
  },
  "secrets:KeymgmtKmsProvider": {
    usual: { mount: "keymgmt", name: "aws-east", provider: "awskms", keyCollection: "us-east-1", credentials: { access_key: "AKIASEEDED", secret_key: WRITE_ONLY.kmsSecretKey } },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/${v.mount}/kms/${enc(v.name)}`, { provider: v.provider, key_collection: v.keyCollection, credentials: v.credentials });
      return { id: `${v.mount}/kms/${v.name}` };
    },
  },
  "secrets:KeymgmtKeyDistribution": {
    usual: { mount: "keymgmt", kmsName: "aws-east", keyName: "signing", purpose: ["sign", "verify"], protection: "hsm" },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/${v.mount}/kms/${enc(v.kmsName)}/key/${enc(v.keyName)}`, { purpose: v.purpose, protection: v.protection });
      return { id: `${v.mount}/kms/${v.kmsName}/key/${v.keyName}` };
    },
  },
  "secrets:PluginCatalogEntry": {
    usual: { type: "database", name: "acme-db", sha256: "ab".repeat(32), command: "acme-db", args: ["--tls"], env: [WRITE_ONLY.pluginEnv] },
    make: async (emu, v) => {
      await secrets(emu, "PUT", `/sys/plugins/catalog/${enc(v.type)}/${enc(v.name)}`, { sha256: v.sha256, command: v.command, args: v.args, env: v.env });
      return { id: `sys/plugins/catalog/${v.type}/${v.name}` };
    },
  },
  "secrets:RegistryAccessConfig": {
    // token: a management token the emulator's registry makes, unless given.
    usual: { mount: "registry", address: "127.0.0.1:8500" },
    make: async (emu, v) => {
      const registryToken = v.token ?? (await control<{ token: string }>(emu, "POST", "/registry/tokens", { type: "management" })).token;
      await secrets(emu, "POST", `/${v.mount}/config/access`, { address: v.address, token: registryToken });
      return { id: `${v.mount}/config/access`, registryToken };
    },
  },
  "secrets:RegistryRole": {
    usual: { mount: "registry", name: "deployer", policies: ["deploy", "read-only"], ttl: "1h" },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/${v.mount}/roles/${enc(v.name)}`, { token_type: v.tokenType, policies: v.policies, ttl: v.ttl });
      return { id: `${v.mount}/roles/${v.name}` };
    },
  },
  "secrets:IdentityEntityAlias": {
    usual: { name: "carol", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd", customMetadata: { team: "payments" } },
    make: async (emu, v) => {
      const alias = await secrets(emu, "POST", "/identity/entity-alias", { name: v.name, canonical_id: v.canonicalId, mount_accessor: v.mountAccessor, custom_metadata: v.customMetadata });
      return { id: alias.data.id };
    },
  },
  "secrets:MfaDualFactorMethod": {
    usual: { secretKey: WRITE_ONLY.duoSecret, integrationKey: WRITE_ONLY.duoIkey, apiHostname: "api-1234abcd.example.com", pushInfo: "from=import" },
    make: async (emu, v) => {
      const method = await secrets(emu, "POST", "/identity/mfa/method/dualfactor", {
        secret_key: v.secretKey, integration_key: v.integrationKey, api_hostname: v.apiHostname, push_info: v.pushInfo, username_format: v.usernameFormat,
      });
      return { id: method.data.id };
    },
  },
  "secrets:DirectoryConfig": {
    // No server answers at the URL: the emulator's built-in directory holds the accounts.
    usual: { mount: "directory", ...directoryConfig, bindpass: WRITE_ONLY.bindpass, ttl: "12h", maxTtl: "24h" },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/${v.mount}/config`, {
        binddn: v.binddn, bindpass: v.bindpass, url: v.url, userdn: v.userdn, upndomain: v.upndomain, password_policy: v.passwordPolicy, ttl: v.ttl, max_ttl: v.maxTtl,
      });
      return { id: `${v.mount}/config` };
    },
  },
  "secrets:DirectoryLibrarySet": {
    usual: { mount: "directory", name: "pool", serviceAccountNames: ["lib-a", "lib-b"], ttl: "1h", maxTtl: "2h" },
    make: async (emu, v) => {
      await directoryAccounts(emu, v.serviceAccountNames);
      await secrets(emu, "POST", `/${v.mount}/library/${enc(v.name)}`, { service_account_names: v.serviceAccountNames, ttl: v.ttl, max_ttl: v.maxTtl });
      return { id: `${v.mount}/library/${v.name}` };
    },
  },
  "secrets:DirectoryRole": {
    usual: { mount: "directory", name: "app", serviceAccountName: "svc-app", ttl: 3600 },
    make: async (emu, v) => {
      await directoryAccounts(emu, [v.serviceAccountName]);
      await secrets(emu, "POST", `/${v.mount}/roles/${enc(v.name)}`, { service_account_name: v.serviceAccountName, ttl: v.ttl });
      return { id: `${v.mount}/roles/${v.name}` };
    },
  },
  "secrets:DirectoryCheckOut": {
    usual: { mount: "directory", setName: "pool" },
    make: async (emu, v) => {
      const lent = await secrets(emu, "POST", `/${v.mount}/library/${enc(v.setName)}/check-out`, {});
      return { id: lent.lease_id, account: { name: lent.data.service_account_name, password: lent.data.password } };
    },
  },
  "secrets:ReplicationPerformancePrimary": {
    usual: {},
    make: async (emu) => {
      await secrets(emu, "POST", "/sys/replication/performance/primary/enable", {});
      return { id: "sys/replication/performance/primary" };
    },
  },
  "secrets:ReplicationSecondaryToken": {
    usual: { secondaryId: "eu" },
    make: async (emu, v) => {
      const wrapped = await secrets(emu, "POST", "/sys/replication/performance/primary/secondary-token", { id: v.secondaryId });
      return { id: v.secondaryId, token: wrapped.wrap_info.token };
    },
  },
  "secrets:ReplicationPerformanceSecondary": {
    // emu: the secondary's cluster (onCluster); token: a secondary token of the primary.
    usual: {},
    make: async (emu, v) => {
      await secrets(emu, "POST", "/sys/replication/performance/secondary/enable", { token: v.token });
      const clusterId = (await secrets(emu, "GET", "/sys/replication/performance/status")).data.cluster_id as string;
      return { id: "sys/replication/performance/secondary", clusterId };
    },
  },
  "secrets:ReplicationPathsFilter": {
    usual: { mode: "deny", paths: ["transform/"] },
    make: async (emu, v) => {
      await secrets(emu, "POST", `/sys/replication/performance/primary/paths-filter/${enc(v.secondaryClusterId)}`, { mode: v.mode, paths: v.paths });
      return { id: `sys/replication/performance/primary/paths-filter/${v.secondaryClusterId}` };
    },
  },
  "runs:NotificationConfiguration": {
    // workspaceId: the emulator's workspace unless given.
    usual: { name: "ci-hook", destinationType: "generic", enabled: false, url: "https://hooks.example/ci", token: WRITE_ONLY.hookToken, triggers: ["run:completed", "run:errored"] },
    make: async (emu, v) => {
      const nc = await mustSucceed(runApi(emu, "POST", `/workspaces/${v.workspaceId ?? emu.workspaceId}/notification-configurations`, {
        data: { type: "notification-configurations", attributes: { name: v.name, "destination-type": v.destinationType, enabled: v.enabled, url: v.url, token: v.token, triggers: v.triggers } },
      }), "a notification configuration");
      return { id: nc.data.id };
    },
  },
};

/** Every kind the factory makes (test/integration/kind-factory.test.ts holds it to KIND_NAMES). */
export const RAW_KINDS: readonly string[] = Object.keys(RAW);

/** One object of `kind`, made by raw requests with `values` over the seed's (an undefined value leaves a field out). */
export async function makeObject(emu: Emulator, kind: string, values: RawValues = {}): Promise<RawObject> {
  const raw = RAW[kind];
  if (!raw) throw new Error(`${kind}: test/support/kindCases.ts has no raw-request factory for it`);
  return raw.make(emu, { ...raw.usual, ...values });
}

/** Cluster `i` of a multi-cluster emulator, as an emulator of its own for the secrets service. */
export function onCluster(emu: Emulator, i: number): Emulator {
  const c = emu.clusters[i];
  if (!c) throw new Error(`the emulator has no secrets cluster ${i}`);
  return { ...emu, secretsUrl: c.secretsUrl, controlUrl: c.controlUrl, tokens: { ...emu.tokens, ...c.tokens } };
}

/**
 * The import's seed of `kind`: its usual object (makeObject), and what `more` makes after it; the id
 * of the first, also for the kinds `readAs` whose classes read the same object.
 */
const seedOf = (kind: string, { more, readAs = [] }: { more?: (emu: Emulator) => Promise<unknown>; readAs?: string[] } = {}) =>
  async (emu: Emulator): Promise<Partial<Seeded>> => {
    const made = await makeObject(emu, kind);
    await more?.(emu);
    return { ids: Object.fromEntries([kind, ...readAs].map((k) => [k, made.id])), ...(made.registryToken ? { registryToken: made.registryToken } : {}) };
  };

// The two typed transformations the matrix deploys alike; the seed makes one of each from its template.
const transformations = ["Fpe", "Masking"].map((t): KindCase => ({
  kind: `secrets:Transform${t}Transformation`,
  create: () => ({ name: "t", template: "builtin/creditcardnumber", allowedRoles: ["a"] }),
  update: () => ({ name: "t", template: "builtin/creditcardnumber", allowedRoles: ["a", "b"] }),
  count: (emu) => keys(emu, "/transform/transformation"),
  prefix: "/v1/transform/*",
  // The class of any type reads a typed transformation too.
  seed: seedOf(`secrets:Transform${t}Transformation`, { readAs: t === "Fpe" ? ["secrets:TransformTransformation"] : [] }),
}));

export const KIND_CASES: KindCase[] = [
  {
    kind: "secrets:TransformAlphabet",
    create: () => ({ name: "hexa", alphabet: "0123456789abcdef" }),
    update: () => ({ name: "hexa", alphabet: "0123456789ABCDEF" }),
    count: (emu) => keys(emu, "/transform/alphabet"),
    prefix: "/v1/transform/*",
    seed: seedOf("secrets:TransformAlphabet"),
  },
  {
    kind: "secrets:TransformTemplate",
    create: () => ({ name: "card", pattern: "(\\d{4})-(\\d{4})", alphabet: "builtin/numeric" }),
    update: () => ({ name: "card", pattern: "(\\d{4}) (\\d{4})", alphabet: "builtin/numeric" }),
    count: (emu) => keys(emu, "/transform/template"),
    prefix: "/v1/transform/*",
    seed: seedOf("secrets:TransformTemplate", { more: (emu) => makeObject(emu, "secrets:TransformTemplate", { name: "ssn", pattern: "(\\d{3})-(\\d{2})-(\\d{4})", alphabet: "builtin/numeric" }) }),
  },
  ...transformations,
  {
    kind: "secrets:TransformTokenizationTransformation",
    create: () => ({ name: "tok", maxTtl: "24h", allowedRoles: ["a"] }),
    update: () => ({ name: "tok", maxTtl: "24h", allowedRoles: ["a", "b"] }),
    count: (emu) => keys(emu, "/transform/transformation"),
    prefix: "/v1/transform/*",
    seed: async (emu) => {
      const { id } = await makeObject(emu, "secrets:TransformTokenizationTransformation");
      // Its keys are the object of a key config: made with it, nothing to write.
      return { ids: { "secrets:TransformTokenizationTransformation": id, "secrets:TransformTokenizationKeyConfig": id.replace("/transformation/", "/tokenization/keys/") } };
    },
  },
  {
    kind: "secrets:TransformRole",
    setup: async (emu) => {
      for (const name of ["a", "b"]) await secretsApi(emu, "POST", `/transform/transformations/masking/${name}`, { template: "builtin/creditcardnumber" });
    },
    create: () => ({ name: "app", transformations: ["a"] }),
    update: () => ({ name: "app", transformations: ["a", "b"] }),
    count: (emu) => keys(emu, "/transform/role"),
    prefix: "/v1/transform/*",
    seed: seedOf("secrets:TransformRole"),
  },
  {
    kind: "secrets:KeymgmtKey",
    create: () => ({ name: "k", type: "aes256-gcm96", deletionAllowed: true }),
    update: () => ({ name: "k", type: "aes256-gcm96", deletionAllowed: true, rotationTrigger: "2" }),
    count: (emu) => keys(emu, "/keymgmt/key"),
    prefix: "/v1/keymgmt/*",
    seed: seedOf("secrets:KeymgmtKey"),
  },
  {
    kind: "secrets:KeymgmtKmsProvider",
    create: () => ({ name: "aws", provider: "awskms", keyCollection: "eu-west-1", credentials: { access_key: "AKIAEXAMPLE0001", secret_key: "secret-0001-abcdef" } }),
    update: () => ({ name: "aws", provider: "awskms", keyCollection: "eu-west-1", credentials: { access_key: "AKIAEXAMPLE0001", secret_key: "secret-0002-abcdef" } }),
    count: (emu) => keys(emu, "/keymgmt/kms"),
    prefix: "/v1/keymgmt/*",
    seed: seedOf("secrets:KeymgmtKmsProvider"),
    config: () => ({ awsEastCredentials: JSON.stringify({ access_key: "AKIASEEDED", secret_key: WRITE_ONLY.kmsSecretKey }) }),
  },
  {
    kind: "secrets:KeymgmtKeyDistribution",
    setup: async (emu) => {
      await secretsApi(emu, "POST", "/keymgmt/key/k", { type: "aes256-gcm96" });
      await secretsApi(emu, "POST", "/keymgmt/kms/aws", kms);
    },
    create: () => ({ kmsName: "aws", keyName: "k", purpose: ["encrypt"], protection: "hsm" }),
    count: (emu) => keys(emu, "/keymgmt/kms/aws/key"),
    prefix: "/v1/keymgmt/*",
    seed: seedOf("secrets:KeymgmtKeyDistribution"),
  },
  {
    kind: "secrets:PluginCatalogEntry",
    create: () => ({ type: "database", name: "acme-db", sha256: SHA, command: "acme-db-plugin" }),
    update: () => ({ type: "database", name: "acme-db", sha256: SHA, command: "acme-db-plugin", args: ["--tls"] }),
    count: (emu) => keys(emu, "/sys/plugins/catalog/database"),
    prefix: "/v1/sys/*",
    seed: seedOf("secrets:PluginCatalogEntry"),
    config: () => ({ databaseAcmeDbEnv: JSON.stringify([WRITE_ONLY.pluginEnv]) }),
  },
  {
    kind: "secrets:RegistryAccessConfig",
    setup: async (emu) => {
      management = (await control<{ token: string }>(emu, "POST", "/registry/tokens", { type: "management" })).token;
    },
    create: () => ({ address: "127.0.0.1:8500", token: management }),
    update: () => ({ address: "127.0.0.1:8501", token: management }),
    count: async (emu) => ((await secretsApi(emu, "GET", "/registry/config/access")).status === 200 ? 1 : 0),
    prefix: "/v1/registry/*",
    seed: seedOf("secrets:RegistryAccessConfig"),
    config: (seeded) => ({ registryAccessConfigToken: seeded.registryToken }),
  },
  {
    kind: "secrets:RegistryRole",
    create: () => ({ name: "reader", policies: ["read"], ttl: "1h" }),
    update: () => ({ name: "reader", policies: ["read", "list"], ttl: "1h" }),
    count: (emu) => keys(emu, "/registry/roles"),
    prefix: "/v1/registry/*",
    seed: seedOf("secrets:RegistryRole"),
  },
  {
    kind: "secrets:IdentityEntityAlias",
    create: () => ({ name: "carol", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd" }),
    update: () => ({ name: "carol", canonicalId: "ent-bob000000000001", mountAccessor: "auth_userpass_1234abcd" }),
    count: (emu) => keys(emu, "/identity/entity-alias/id"),
    prefix: "/v1/identity/*",
    seed: async (emu) => {
      const { id } = await makeObject(emu, "secrets:IdentityEntityAlias");
      return { ids: { "secrets:IdentityEntityAlias": id }, aliasId: id };
    },
  },
  {
    kind: "secrets:MfaDualFactorMethod",
    create: () => ({ secretKey: "s3cr3t-key-0001", integrationKey: "int-key-0001", apiHostname: "api-1.example.com" }),
    update: () => ({ secretKey: "s3cr3t-key-0001", integrationKey: "int-key-0001", apiHostname: "api-1.example.com", pushInfo: "from=ci" }),
    count: (emu) => keys(emu, "/identity/mfa/method/dualfactor"),
    prefix: "/v1/identity/*",
    seed: async (emu) => {
      const { id } = await makeObject(emu, "secrets:MfaDualFactorMethod");
      return { ids: { "secrets:MfaDualFactorMethod": id }, methodId: id };
    },
    config: () => ({ dualFactorMethodSecretKey: WRITE_ONLY.duoSecret, dualFactorMethodIntegrationKey: WRITE_ONLY.duoIkey }),
  },
  {
    kind: "runs:NotificationConfiguration",
    create: (emu) => ({ workspaceId: emu.workspaceId, name: "ci", destinationType: "generic", url: "https://hooks.example.com/ci", triggers: ["run:completed"] }),
    update: (emu) => ({ workspaceId: emu.workspaceId, name: "ci", destinationType: "generic", url: "https://hooks.example.com/ci", triggers: ["run:errored"] }),
    count: async (emu) => (await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/notification-configurations?page[size]=100`)).body.data.length,
    prefix: "/api/v2/*",
    updateMethod: "PATCH",
    seed: async (emu) => {
      const { id } = await makeObject(emu, "runs:NotificationConfiguration");
      return { ids: { "runs:NotificationConfiguration": id }, hookId: id };
    },
    config: () => ({ ciHookToken: WRITE_ONLY.hookToken }),
  },
  {
    kind: "runs:Run",
    create: (emu) => ({ workspaceId: emu.workspaceId, message: "deploy", triggers: { release: "1" } }),
    count: async (emu) => (await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/runs?page[size]=100`)).body.data.length,
    prefix: "/api/v2/*",
    noDelete: true, // a run is never deleted: delete discards it (covered by the runs suites)
  },
  {
    kind: "secrets:TransformTransformation",
    create: () => ({ name: "g", type: "masking", template: "builtin/creditcardnumber", allowedRoles: ["a"] }),
    update: () => ({ name: "g", type: "masking", template: "builtin/creditcardnumber", allowedRoles: ["a", "b"] }),
    count: (emu) => keys(emu, "/transform/transformation"),
    prefix: "/v1/transform/*",
  },
  {
    kind: "secrets:TransformTokenizationKeyConfig",
    // A second key version, so that the create sets minDecryptionVersion 2 (a POST the faults meet:
    // a create that finds the server's value already right sends nothing).
    setup: async (emu) => {
      await secretsApi(emu, "POST", "/transform/transformations/tokenization/tok", {});
      await secretsApi(emu, "POST", "/transform/tokenization/keys/tok/rotate", {});
    },
    create: () => ({ transformation: "tok", minDecryptionVersion: 2 }),
    update: () => ({ transformation: "tok", minDecryptionVersion: 2, rotationTrigger: "2" }),
    count: (emu) => keys(emu, "/transform/tokenization/keys"),
    prefix: "/v1/transform/*",
    creates: false,
    // Its delete sends nothing (the key versions belong to the transformation): no request to fail.
    noDelete: true,
  },
  {
    // A mysql store: the emulator records it without connecting (PostgreSQL stores have their own suite).
    kind: "secrets:TransformStore",
    create: () => ({ name: "my", driver: "mysql", connectionString: "{{username}}:{{password}}@tcp(db:3306)/t?parseTime=true", username: "u", password: "p4ss-w0rd-matrix" }),
    update: () => ({ name: "my", driver: "mysql", connectionString: "{{username}}:{{password}}@tcp(db:3306)/t?parseTime=true", username: "u", password: "p4ss-w0rd-matrix", maxOpenConnections: 8 }),
    count: (emu) => keys(emu, "/transform/stores"),
    prefix: "/v1/transform/*",
    seed: seedOf("secrets:TransformStore"),
    config: () => ({ tokensDbUsername: "tokens", tokensDbPassword: WRITE_ONLY.storePassword }),
  },
  {
    kind: "secrets:DirectoryConfig",
    create: () => ({ ...directoryConfig }),
    update: () => ({ ...directoryConfig, ttl: "1h" }),
    count: async (emu) => ((await secretsApi(emu, "GET", "/directory/config")).status === 200 ? 1 : 0),
    prefix: "/v1/directory/*",
    seed: seedOf("secrets:DirectoryConfig"),
    config: () => ({ directoryConfigBindpass: WRITE_ONLY.bindpass }),
  },
  {
    kind: "secrets:DirectoryLibrarySet",
    setup: async (emu) => {
      await control(emu, "POST", "/directory/accounts", { accounts: ["a", "b"] });
      await secretsApi(emu, "POST", "/directory/config", directoryConfig);
    },
    create: () => ({ name: "pool", serviceAccountNames: ["a"], ttl: "1h" }),
    update: () => ({ name: "pool", serviceAccountNames: ["a", "b"], ttl: "1h" }),
    count: (emu) => keys(emu, "/directory/library"),
    prefix: "/v1/directory/*",
    seed: seedOf("secrets:DirectoryLibrarySet"),
  },
  {
    kind: "secrets:DirectoryRole",
    setup: async (emu) => {
      await control(emu, "POST", "/directory/accounts", { accounts: ["svc-app"] });
      await secretsApi(emu, "POST", "/directory/config", directoryConfig);
    },
    create: () => ({ name: "app", serviceAccountName: "svc-app", ttl: "12h" }),
    update: () => ({ name: "app", serviceAccountName: "svc-app", ttl: "6h" }),
    count: (emu) => keys(emu, "/directory/roles"),
    prefix: "/v1/directory/*",
    seed: seedOf("secrets:DirectoryRole"),
  },
  {
    kind: "secrets:DirectoryCheckOut",
    setup: async (emu) => {
      await control(emu, "POST", "/directory/accounts", { accounts: ["a", "b"] });
      await secretsApi(emu, "POST", "/directory/config", directoryConfig);
      await secretsApi(emu, "POST", "/directory/library/pool", { service_account_names: ["a", "b"], ttl: "1h" });
    },
    // This process is the set's only borrower: a lost check-out can be told to be its own and returned
    // (without the declaration it is left out and recorded: test/faults/directory.test.ts).
    create: () => ({ setName: "pool", soleBorrower: true }),
    deleteMethod: "POST",
    // A borrowed account is an object held out of the set: count the accounts out.
    count: async (emu) => Object.values((await secretsApi(emu, "GET", "/directory/library/pool/status")).body.data as Record<string, { available: boolean }>)
      .filter((s) => !s.available).length,
    prefix: "/v1/directory/*",
  },
];
