// The fault matrix of issue 7: every resource kind but replication (two clusters: its own suite)
// × create/read/update/delete × {429 with and without Retry-After, 503, dropped connection} ×
// {before the server acted, after it acted}. Each cell plays deployments the way `pulumi up` does
// (a partial failure keeps its object; any other failure leaves state as it was, and the next up
// tries again) and then lists the server: 0 duplicates, 0 orphans, 0 lost updates, and state equal
// to the server. A read cell plays `pulumi refresh` under the fault: it may fail (state is kept) or
// succeed after a retry, but never reports the object gone. Store schemas run against a real
// PostgreSQL in matrix-postgres.test.ts.
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { KIND_NAMES } from "../../src/kinds";
import { root } from "../support/dist";
import { call } from "../../src/runtime";
import { type Props } from "../support/calls";
import { CELLS, clearMetFaults, refreshUnderFault } from "./cells";
import { inSync, settle } from "./deploy";
import { control, runApi, secretsApi, useEmulator } from "../support/emulator";

const { emu } = useEmulator({ secretsToken: "secretsRoot" });
beforeAll(() => {
  // One retry inside the client: most faults reach the provider, which is what this suite tests.
  process.env.SVC_MAX_RETRIES = "1";
});

interface Case {
  kind: string;
  create: () => Props;
  /** Inputs changed in place; absent when the kind has nothing to update on the server. */
  update?: () => Props;
  /** How many objects of the kind the server holds. */
  count: () => Promise<number>;
  /** The service path prefix the kind writes to (the fault matches it). */
  prefix: () => string;
  /** The method of an update. */
  updateMethod?: string;
  /** The method of a delete (a check-in is a POST). */
  deleteMethod?: string;
  noDelete?: boolean;
  /** False for settings of an object that exists anyway: create and delete change no count. */
  creates?: boolean;
  /** Objects the kind needs, made with raw requests. */
  setup?: () => Promise<void>;
}

const keys = async (path: string) => {
  const r = await secretsApi(emu, "LIST", path);
  return r.status === 404 ? 0 : (r.body.data.keys as string[]).length;
};
const ws = () => emu.workspaceId;
let management = "";
const SHA = "0123456789abcdef".repeat(4);

const CASES: Case[] = [
  {
    kind: "runs:NotificationConfiguration",
    create: () => ({ workspaceId: ws(), name: "ci", destinationType: "generic", url: "https://hooks.example.com/ci", triggers: ["run:completed"] }),
    update: () => ({ workspaceId: ws(), name: "ci", destinationType: "generic", url: "https://hooks.example.com/ci", triggers: ["run:errored"] }),
    count: async () => (await runApi(emu, "GET", `/workspaces/${ws()}/notification-configurations?page[size]=100`)).body.data.length,
    prefix: () => "/api/v2/*",
    updateMethod: "PATCH",
  },
  {
    kind: "runs:Run",
    create: () => ({ workspaceId: ws(), message: "deploy", triggers: { release: "1" } }),
    count: async () => (await runApi(emu, "GET", `/workspaces/${ws()}/runs?page[size]=100`)).body.data.length,
    prefix: () => "/api/v2/*",
    noDelete: true, // a run is never deleted: delete discards it (covered by the runs suites)
  },
  {
    kind: "secrets:TransformAlphabet",
    create: () => ({ name: "hexa", alphabet: "0123456789abcdef" }),
    update: () => ({ name: "hexa", alphabet: "0123456789ABCDEF" }),
    count: () => keys("/transform/alphabet"),
    prefix: () => "/v1/transform/*",
  },
  {
    kind: "secrets:TransformRole",
    setup: async () => {
      for (const name of ["a", "b"]) await secretsApi(emu, "POST", `/transform/transformations/masking/${name}`, { template: "builtin/creditcardnumber" });
    },
    create: () => ({ name: "app", transformations: ["a"] }),
    update: () => ({ name: "app", transformations: ["a", "b"] }),
    count: () => keys("/transform/role"),
    prefix: () => "/v1/transform/*",
  },
  {
    kind: "secrets:KeymgmtKey",
    create: () => ({ name: "k", type: "aes256-gcm96", deletionAllowed: true }),
    update: () => ({ name: "k", type: "aes256-gcm96", deletionAllowed: true, rotationTrigger: "2" }),
    count: () => keys("/keymgmt/key"),
    prefix: () => "/v1/keymgmt/*",
  },
  {
    kind: "secrets:KeymgmtKmsProvider",
    create: () => ({ name: "aws", provider: "awskms", keyCollection: "eu-west-1", credentials: { access_key: "AKIAEXAMPLE0001", secret_key: "secret-0001-abcdef" } }),
    update: () => ({ name: "aws", provider: "awskms", keyCollection: "eu-west-1", credentials: { access_key: "AKIAEXAMPLE0001", secret_key: "secret-0002-abcdef" } }),
    count: () => keys("/keymgmt/kms"),
    prefix: () => "/v1/keymgmt/*",
  },
  {
    kind: "secrets:IdentityEntityAlias",
    create: () => ({ name: "carol", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd" }),
    update: () => ({ name: "carol", canonicalId: "ent-bob000000000001", mountAccessor: "auth_userpass_1234abcd" }),
    count: () => keys("/identity/entity-alias/id"),
    prefix: () => "/v1/identity/*",
  },
  {
    kind: "secrets:MfaDualFactorMethod",
    create: () => ({ secretKey: "s3cr3t-key-0001", integrationKey: "int-key-0001", apiHostname: "api-1.example.com" }),
    update: () => ({ secretKey: "s3cr3t-key-0001", integrationKey: "int-key-0001", apiHostname: "api-1.example.com", pushInfo: "from=ci" }),
    count: () => keys("/identity/mfa/method/dualfactor"),
    prefix: () => "/v1/identity/*",
  },
  {
    kind: "secrets:PluginCatalogEntry",
    create: () => ({ type: "database", name: "acme-db", sha256: SHA, command: "acme-db-plugin" }),
    update: () => ({ type: "database", name: "acme-db", sha256: SHA, command: "acme-db-plugin", args: ["--tls"] }),
    count: () => keys("/sys/plugins/catalog/database"),
    prefix: () => "/v1/sys/*",
  },
  {
    kind: "secrets:RegistryRole",
    create: () => ({ name: "reader", policies: ["read"], ttl: "1h" }),
    update: () => ({ name: "reader", policies: ["read", "list"], ttl: "1h" }),
    count: () => keys("/registry/roles"),
    prefix: () => "/v1/registry/*",
  },
  {
    kind: "secrets:TransformTemplate",
    create: () => ({ name: "card", pattern: "(\\d{4})-(\\d{4})", alphabet: "builtin/numeric" }),
    update: () => ({ name: "card", pattern: "(\\d{4}) (\\d{4})", alphabet: "builtin/numeric" }),
    count: () => keys("/transform/template"),
    prefix: () => "/v1/transform/*",
  },
  ...(["Fpe", "Masking"] as const).map((t): Case => ({
    kind: `secrets:Transform${t}Transformation`,
    create: () => ({ name: "t", template: "builtin/creditcardnumber", allowedRoles: ["a"] }),
    update: () => ({ name: "t", template: "builtin/creditcardnumber", allowedRoles: ["a", "b"] }),
    count: () => keys("/transform/transformation"),
    prefix: () => "/v1/transform/*",
  })),
  {
    kind: "secrets:TransformTokenizationTransformation",
    create: () => ({ name: "tok", maxTtl: "24h", allowedRoles: ["a"] }),
    update: () => ({ name: "tok", maxTtl: "24h", allowedRoles: ["a", "b"] }),
    count: () => keys("/transform/transformation"),
    prefix: () => "/v1/transform/*",
  },
  {
    kind: "secrets:KeymgmtKeyDistribution",
    setup: async () => {
      await secretsApi(emu, "POST", "/keymgmt/key/k", { type: "aes256-gcm96" });
      await secretsApi(emu, "POST", "/keymgmt/kms/aws", { provider: "awskms", key_collection: "eu-west-1", credentials: { access_key: "AKIAEXAMPLE0001", secret_key: "secret-0001-abcdef" } });
    },
    create: () => ({ kmsName: "aws", keyName: "k", purpose: ["encrypt"], protection: "hsm" }),
    count: () => keys("/keymgmt/kms/aws/key"),
    prefix: () => "/v1/keymgmt/*",
  },
  {
    kind: "secrets:DirectoryConfig",
    create: () => ({ binddn: "cn=admin,dc=example,dc=org", bindpass: "Mb1Rq6Zt3Wx8Kp4L", url: "ldap://127.0.0.1:1" }),
    update: () => ({ binddn: "cn=admin,dc=example,dc=org", bindpass: "Mb1Rq6Zt3Wx8Kp4L", url: "ldap://127.0.0.1:1", ttl: "1h" }),
    count: async () => ((await secretsApi(emu, "GET", "/directory/config")).status === 200 ? 1 : 0),
    prefix: () => "/v1/directory/*",
  },
  {
    kind: "secrets:DirectoryLibrarySet",
    setup: async () => {
      await control(emu, "POST", "/directory/accounts", { accounts: ["a", "b"] });
      await secretsApi(emu, "POST", "/directory/config", { binddn: "cn=admin,dc=example,dc=org", bindpass: "Mb1Rq6Zt3Wx8Kp4L", url: "ldap://127.0.0.1:1" });
    },
    create: () => ({ name: "pool", serviceAccountNames: ["a"], ttl: "1h" }),
    update: () => ({ name: "pool", serviceAccountNames: ["a", "b"], ttl: "1h" }),
    count: () => keys("/directory/library"),
    prefix: () => "/v1/directory/*",
  },
  {
    kind: "secrets:DirectoryRole",
    setup: async () => {
      await control(emu, "POST", "/directory/accounts", { accounts: ["svc-app"] });
      await secretsApi(emu, "POST", "/directory/config", { binddn: "cn=admin,dc=example,dc=org", bindpass: "Mb1Rq6Zt3Wx8Kp4L", url: "ldap://127.0.0.1:1" });
    },
    create: () => ({ name: "app", serviceAccountName: "svc-app", ttl: "12h" }),
    update: () => ({ name: "app", serviceAccountName: "svc-app", ttl: "6h" }),
    count: () => keys("/directory/roles"),
    prefix: () => "/v1/directory/*",
  },
  {
    kind: "secrets:RegistryAccessConfig",
    setup: async () => {
      management = (await control<{ token: string }>(emu, "POST", "/registry/tokens", { type: "management" })).token;
    },
    create: () => ({ address: "127.0.0.1:8500", token: management }),
    update: () => ({ address: "127.0.0.1:8501", token: management }),
    count: async () => ((await secretsApi(emu, "GET", "/registry/config/access")).status === 200 ? 1 : 0),
    prefix: () => "/v1/registry/*",
  },
  {
    kind: "secrets:TransformTransformation",
    create: () => ({ name: "g", type: "masking", template: "builtin/creditcardnumber", allowedRoles: ["a"] }),
    update: () => ({ name: "g", type: "masking", template: "builtin/creditcardnumber", allowedRoles: ["a", "b"] }),
    count: () => keys("/transform/transformation"),
    prefix: () => "/v1/transform/*",
  },
  {
    kind: "secrets:DirectoryCheckOut",
    setup: async () => {
      await control(emu, "POST", "/directory/accounts", { accounts: ["a", "b"] });
      await secretsApi(emu, "POST", "/directory/config", { binddn: "cn=admin,dc=example,dc=org", bindpass: "Mb1Rq6Zt3Wx8Kp4L", url: "ldap://127.0.0.1:1" });
      await secretsApi(emu, "POST", "/directory/library/pool", { service_account_names: ["a", "b"], ttl: "1h" });
    },
    // This process is the set's only borrower: a lost check-out can be told to be its own and returned
    // (without the declaration it is left out and recorded: test/faults/directory.test.ts).
    create: () => ({ setName: "pool", soleBorrower: true }),
    deleteMethod: "POST",
    // A borrowed account is an object held out of the set: count the accounts out.
    count: async () => Object.values((await secretsApi(emu, "GET", "/directory/library/pool/status")).body.data as Record<string, { available: boolean }>)
      .filter((s) => !s.available).length,
    prefix: () => "/v1/directory/*",
  },
  {
    kind: "secrets:TransformTokenizationKeyConfig",
    // A second key version, so that the create sets minDecryptionVersion 2 (a POST the faults meet:
    // a create that finds the server's value already right sends nothing).
    setup: async () => {
      await secretsApi(emu, "POST", "/transform/transformations/tokenization/tok", {});
      await secretsApi(emu, "POST", "/transform/tokenization/keys/tok/rotate", {});
    },
    create: () => ({ transformation: "tok", minDecryptionVersion: 2 }),
    update: () => ({ transformation: "tok", minDecryptionVersion: 2, rotationTrigger: "2" }),
    count: () => keys("/transform/tokenization/keys"),
    prefix: () => "/v1/transform/*",
    creates: false,
    // Its delete sends nothing (the key versions belong to the transformation): no request to fail.
    noDelete: true,
  },
  {
    // A mysql store: the emulator records it without connecting (PostgreSQL stores have their own suite).
    kind: "secrets:TransformStore",
    create: () => ({ name: "my", driver: "mysql", connectionString: "{{username}}:{{password}}@tcp(db:3306)/t?parseTime=true", username: "u", password: "p4ss-w0rd-matrix" }),
    update: () => ({ name: "my", driver: "mysql", connectionString: "{{username}}:{{password}}@tcp(db:3306)/t?parseTime=true", username: "u", password: "p4ss-w0rd-matrix", maxOpenConnections: 8 }),
    count: () => keys("/transform/stores"),
    prefix: () => "/v1/transform/*",
  },
];

/** Kinds whose cells live in a suite of their own, and where. */
const ELSEWHERE: Record<string, string> = {
  "secrets:TransformStoreSchema": "test/faults/matrix-postgres.test.ts",
  "secrets:ReplicationPerformancePrimary": "test/faults/replication.test.ts",
  "secrets:ReplicationPerformanceSecondary": "test/faults/replication.test.ts",
  "secrets:ReplicationSecondaryToken": "test/faults/replication.test.ts",
  "secrets:ReplicationPathsFilter": "test/faults/replication.test.ts",
};

// The cases come from the list of kinds: a kind added without fault cells fails here.
describe("every resource kind has fault cells", () => {
  it.each(KIND_NAMES.map((k) => [k]))("%s", (kind) => {
    const here = CASES.filter((c) => c.kind === kind).length;
    const there = ELSEWHERE[kind];
    expect(here > 0 || there !== undefined, `${kind} has no case in CASES and no suite in ELSEWHERE`).toBe(true);
    if (there) expect(fs.readFileSync(path.join(root, there), "utf8"), `${there} covers ${kind}`).toContain(`"${kind}"`);
  });
});

const fault = (c: Case, method: string, how: Record<string, unknown>, when: string) =>
  // More faults than the client retries: the failure reaches the provider, and the next up follows.
  control(emu, "POST", "/faults", { method, path: c.prefix(), ...how, when, count: 3 });

describe.each(CASES)("$kind under faults", (c) => {
  beforeEach(async () => {
    await c.setup?.();
  });

  it.each(CELLS)("create: %s %s the server acted → exactly one object, in state", async (_n, when, how) => {
    const before = await c.count();
    await fault(c, "POST", how, when);
    const state = await settle(c.kind, undefined, c.create());
    await clearMetFaults(emu);
    expect(await c.count(), "no duplicate, no orphan").toBe(before + (c.creates === false ? 0 : 1));
    await inSync(c.kind, state, c.create());
  });

  it.each(c.update ? CELLS : [])("update: %s %s the server acted → no lost update, state equals the server", async (_n, when, how) => {
    let state = await settle(c.kind, undefined, c.create());
    const before = await c.count();
    await fault(c, c.updateMethod ?? "POST", how, when);
    state = await settle(c.kind, state, c.update!());
    await clearMetFaults(emu);
    expect(await c.count()).toBe(before);
    await inSync(c.kind, state, c.update!());
  });

  it.each(CELLS)("read: %s %s the server acted → refresh fails or retries, never drops the object", async (_n, when, how) => {
    const state = await settle(c.kind, undefined, c.create());
    await refreshUnderFault(emu, c.kind, state, c.prefix(), how, when);
    await inSync(c.kind, state, c.create());
  });

  it.each(c.noDelete ? [] : CELLS)("delete: %s %s the server acted → gone after the next destroy at most", async (_n, when, how) => {
    const state = await settle(c.kind, undefined, c.create());
    const before = await c.count();
    await fault(c, c.deleteMethod ?? "DELETE", how, when);
    let done = false;
    for (let i = 0; i < 7 && !done; i++) {
      done = await call(c.kind, "delete", [state!.id, state!.outs]).then(() => true, () => false);
    }
    await clearMetFaults(emu);
    expect(done).toBe(true);
    expect(await c.count()).toBe(before - (c.creates === false ? 0 : 1));
  });
});
