// What the tests make of each resource kind, one entry a kind: the inputs the fault matrix deploys
// (test/faults/matrix.test.ts fails for a kind with no entry and no suite of its own) and, for a
// kind the import takes over, the raw requests that make its objects outside Pulumi (on the
// emulator alone: a mysql store, the built-in directory) and the config a user gives the imported
// program for what the server never returns and for secrets (test/support/seed-import.ts,
// test/support/imported.ts; test/engine/testing-import.test.ts fails for a kind the import reads
// that no seed makes and that its list of exclusions does not name with the reason).
// The entries are in the order the seed makes them: what an object refers to comes first.
import type { Emulator } from "../../src/emulator";
import { type Props } from "./calls";
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

// The two typed transformations the matrix deploys alike; the seed makes one of each from its template.
const SEEDED_TRANSFORMATIONS = {
  Fpe: ["/transform/transformations/fpe/account-fpe", { template: "account", tweak_source: "internal", allowed_roles: ["payments"] }],
  Masking: ["/transform/transformations/masking/ssn-mask", { template: "ssn", masking_character: "#", allowed_roles: ["payments"] }],
} as const;
const transformations = Object.entries(SEEDED_TRANSFORMATIONS).map(([t, [path, body]]): KindCase => ({
  kind: `secrets:Transform${t}Transformation`,
  create: () => ({ name: "t", template: "builtin/creditcardnumber", allowedRoles: ["a"] }),
  update: () => ({ name: "t", template: "builtin/creditcardnumber", allowedRoles: ["a", "b"] }),
  count: (emu) => keys(emu, "/transform/transformation"),
  prefix: "/v1/transform/*",
  seed: async (emu) => {
    await secrets(emu, "POST", path, body);
    return {};
  },
}));

export const KIND_CASES: KindCase[] = [
  {
    kind: "secrets:TransformAlphabet",
    create: () => ({ name: "hexa", alphabet: "0123456789abcdef" }),
    update: () => ({ name: "hexa", alphabet: "0123456789ABCDEF" }),
    count: (emu) => keys(emu, "/transform/alphabet"),
    prefix: "/v1/transform/*",
    seed: async (emu) => {
      await secrets(emu, "POST", "/transform/alphabet/hexits", { alphabet: "0123456789abcdef" });
      return {};
    },
  },
  {
    kind: "secrets:TransformTemplate",
    create: () => ({ name: "card", pattern: "(\\d{4})-(\\d{4})", alphabet: "builtin/numeric" }),
    update: () => ({ name: "card", pattern: "(\\d{4}) (\\d{4})", alphabet: "builtin/numeric" }),
    count: (emu) => keys(emu, "/transform/template"),
    prefix: "/v1/transform/*",
    seed: async (emu) => {
      await secrets(emu, "POST", "/transform/template/account", { type: "regex", pattern: "(\\d{4})-(\\d{4})", alphabet: "hexits" });
      await secrets(emu, "POST", "/transform/template/ssn", { type: "regex", pattern: "(\\d{3})-(\\d{2})-(\\d{4})", alphabet: "builtin/numeric" });
      return {};
    },
  },
  ...transformations,
  {
    kind: "secrets:TransformTokenizationTransformation",
    create: () => ({ name: "tok", maxTtl: "24h", allowedRoles: ["a"] }),
    update: () => ({ name: "tok", maxTtl: "24h", allowedRoles: ["a", "b"] }),
    count: (emu) => keys(emu, "/transform/transformation"),
    prefix: "/v1/transform/*",
    seed: async (emu) => {
      await secrets(emu, "POST", "/transform/transformations/tokenization/card-token", { allowed_roles: ["payments"], max_ttl: "24h" });
      return {};
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
    seed: async (emu) => {
      await secrets(emu, "POST", "/transform/role/payments", { transformations: ["account-fpe", "ssn-mask", "card-token"] });
      return {};
    },
  },
  {
    kind: "secrets:KeymgmtKey",
    create: () => ({ name: "k", type: "aes256-gcm96", deletionAllowed: true }),
    update: () => ({ name: "k", type: "aes256-gcm96", deletionAllowed: true, rotationTrigger: "2" }),
    count: (emu) => keys(emu, "/keymgmt/key"),
    prefix: "/v1/keymgmt/*",
    seed: async (emu) => {
      await secrets(emu, "POST", "/keymgmt/key/signing", { type: "ecdsa-p256", deletion_allowed: true });
      await secrets(emu, "POST", "/keymgmt/key/signing/rotate");
      return {};
    },
  },
  {
    kind: "secrets:KeymgmtKmsProvider",
    create: () => ({ name: "aws", provider: "awskms", keyCollection: "eu-west-1", credentials: { access_key: "AKIAEXAMPLE0001", secret_key: "secret-0001-abcdef" } }),
    update: () => ({ name: "aws", provider: "awskms", keyCollection: "eu-west-1", credentials: { access_key: "AKIAEXAMPLE0001", secret_key: "secret-0002-abcdef" } }),
    count: (emu) => keys(emu, "/keymgmt/kms"),
    prefix: "/v1/keymgmt/*",
    seed: async (emu) => {
      await secrets(emu, "POST", "/keymgmt/kms/aws-east", { provider: "awskms", key_collection: "us-east-1", credentials: { access_key: "AKIASEEDED", secret_key: WRITE_ONLY.kmsSecretKey } });
      return {};
    },
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
    seed: async (emu) => {
      await secrets(emu, "POST", "/keymgmt/kms/aws-east/key/signing", { purpose: ["sign", "verify"], protection: "hsm" });
      return {};
    },
  },
  {
    kind: "secrets:PluginCatalogEntry",
    create: () => ({ type: "database", name: "acme-db", sha256: SHA, command: "acme-db-plugin" }),
    update: () => ({ type: "database", name: "acme-db", sha256: SHA, command: "acme-db-plugin", args: ["--tls"] }),
    count: (emu) => keys(emu, "/sys/plugins/catalog/database"),
    prefix: "/v1/sys/*",
    seed: async (emu) => {
      await secrets(emu, "PUT", "/sys/plugins/catalog/database/acme-db", { sha256: "ab".repeat(32), command: "acme-db", args: ["--tls"], env: [WRITE_ONLY.pluginEnv] });
      return {};
    },
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
    seed: async (emu) => {
      const registryToken = (await control<{ token: string }>(emu, "POST", "/registry/tokens", { type: "management" })).token;
      await secrets(emu, "POST", "/registry/config/access", { address: "127.0.0.1:8500", token: registryToken });
      return { registryToken };
    },
    config: (seeded) => ({ registryAccessConfigToken: seeded.registryToken }),
  },
  {
    kind: "secrets:RegistryRole",
    create: () => ({ name: "reader", policies: ["read"], ttl: "1h" }),
    update: () => ({ name: "reader", policies: ["read", "list"], ttl: "1h" }),
    count: (emu) => keys(emu, "/registry/roles"),
    prefix: "/v1/registry/*",
    seed: async (emu) => {
      await secrets(emu, "POST", "/registry/roles/deployer", { policies: ["deploy", "read-only"], ttl: "1h" });
      return {};
    },
  },
  {
    kind: "secrets:IdentityEntityAlias",
    create: () => ({ name: "carol", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd" }),
    update: () => ({ name: "carol", canonicalId: "ent-bob000000000001", mountAccessor: "auth_userpass_1234abcd" }),
    count: (emu) => keys(emu, "/identity/entity-alias/id"),
    prefix: "/v1/identity/*",
    seed: async (emu) => {
      const alias = await secrets(emu, "POST", "/identity/entity-alias", { name: "carol", canonical_id: "ent-alice0000000001", mount_accessor: "auth_userpass_1234abcd", custom_metadata: { team: "payments" } });
      return { aliasId: alias.data.id };
    },
  },
  {
    kind: "secrets:MfaDualFactorMethod",
    create: () => ({ secretKey: "s3cr3t-key-0001", integrationKey: "int-key-0001", apiHostname: "api-1.example.com" }),
    update: () => ({ secretKey: "s3cr3t-key-0001", integrationKey: "int-key-0001", apiHostname: "api-1.example.com", pushInfo: "from=ci" }),
    count: (emu) => keys(emu, "/identity/mfa/method/dualfactor"),
    prefix: "/v1/identity/*",
    seed: async (emu) => {
      const method = await secrets(emu, "POST", "/identity/mfa/method/dualfactor", { secret_key: WRITE_ONLY.duoSecret, integration_key: WRITE_ONLY.duoIkey, api_hostname: "api-1234abcd.example.com", push_info: "from=import" });
      return { methodId: method.data.id };
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
      const nc = await mustSucceed(runApi(emu, "POST", `/workspaces/${emu.workspaceId}/notification-configurations`, {
        data: { type: "notification-configurations", attributes: { name: "ci-hook", "destination-type": "generic", enabled: false, url: "https://hooks.example/ci", token: WRITE_ONLY.hookToken, triggers: ["run:completed", "run:errored"] } },
      }), "a notification configuration");
      return { hookId: nc.data.id };
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
    seed: async (emu) => {
      await secrets(emu, "POST", "/transform/stores/tokens-db", {
        type: "sql", driver: "mysql", connection_string: "{{username}}:{{password}}@tcp(db.example:3306)/tokens?parseTime=true",
        username: "tokens", password: WRITE_ONLY.storePassword, supported_transformations: ["tokenization"],
      });
      return {};
    },
    config: () => ({ tokensDbUsername: "tokens", tokensDbPassword: WRITE_ONLY.storePassword }),
  },
  {
    kind: "secrets:DirectoryConfig",
    create: () => ({ ...directoryConfig }),
    update: () => ({ ...directoryConfig, ttl: "1h" }),
    count: async (emu) => ((await secretsApi(emu, "GET", "/directory/config")).status === 200 ? 1 : 0),
    prefix: "/v1/directory/*",
    // No server answers at the URL: the emulator's built-in directory holds the accounts the role and the set name.
    seed: async (emu) => {
      await control(emu, "POST", "/directory/accounts", { accounts: ["svc-app", "lib-a", "lib-b"] });
      await secrets(emu, "POST", "/directory/config", { ...directoryConfig, bindpass: WRITE_ONLY.bindpass, ttl: "12h", max_ttl: "24h" });
      return {};
    },
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
    seed: async (emu) => {
      await secrets(emu, "POST", "/directory/library/pool", { service_account_names: ["lib-a", "lib-b"], ttl: "1h", max_ttl: "2h" });
      return {};
    },
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
    seed: async (emu) => {
      await secrets(emu, "POST", "/directory/roles/app", { service_account_name: "svc-app", ttl: 3600 });
      return {};
    },
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
