import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { checked, created, failureLines, type Props, type Res } from "../support/calls";
import { control, requests, secretsApi, useEmulator } from "../support/emulator";
import { rejectionOf } from "../support/errors";

const { emu } = useEmulator();
const raw = (method: string, path: string, body?: unknown) => secretsApi(emu, method, `/transform/${path}`, body);

async function noDiff(kind: string, outs: Props, news: Props) {
  const inputs = await checked(kind, news, outs);
  expect(await call(kind, "diff", ["id", outs, inputs])).toMatchObject({ changes: false });
}

describe("Role", () => {
  it("creates, reads without diff, updates the set, refreshes after an out-of-band delete", async () => {
    await created("secrets:TransformMaskingTransformation", { name: "m1", template: "builtin/creditcardnumber" });
    await created("secrets:TransformMaskingTransformation", { name: "m2", template: "builtin/creditcardnumber" });
    const { id, outs } = await created("secrets:TransformRole", { name: "app", transformations: ["m2", "m1"] });
    expect(id).toBe("transform/role/app");
    expect(outs).toEqual({ serverUrl: expect.any(String), name: "app", mount: "transform", transformations: ["m1", "m2"] });
    await noDiff("secrets:TransformRole", outs, { name: "app", transformations: ["m1", "m2", "m1"] });
    const updated = (await call("secrets:TransformRole", "update", [id, outs, await checked("secrets:TransformRole", { name: "app", transformations: ["m1"] })])) as { outs: Props };
    expect((await raw("GET", "role/app")).body.data.transformations).toEqual(["m1"]);
    await raw("DELETE", "role/app");
    expect(await call("secrets:TransformRole", "read", [id, updated.outs])).toEqual({ id: "", props: {} });
  });

  it("rejects builtin/ names and bad lists at check, before any request", async () => {
    await control(emu, "DELETE", "/requests");
    expect(await failureLines("secrets:TransformRole", { name: "builtin/x", transformations: [1] })).toEqual([
      'name: names starting with "builtin/" are reserved for the built-in objects', "transformations[0]: must be a string",
    ]);
    expect(await requests(emu)).toEqual([]);
  });
});

describe("FpeTransformation", () => {
  it("creates, reads back the templates list as template, updates in place, delete guarded by the role", async () => {
    const { id, outs } = await created("secrets:TransformFpeTransformation", { name: "card", template: "builtin/creditcardnumber", allowedRoles: ["pay", "audit"] });
    expect(id).toBe("transform/transformation/card");
    expect(outs).toEqual({ serverUrl: expect.any(String), name: "card", mount: "transform", template: "builtin/creditcardnumber", tweakSource: "supplied", allowedRoles: ["audit", "pay"] });
    await noDiff("secrets:TransformFpeTransformation", outs, { name: "card", template: "builtin/creditcardnumber", allowedRoles: ["pay", "audit"] });
    const news = await checked("secrets:TransformFpeTransformation", { name: "card", template: "builtin/creditcardnumber", tweakSource: "internal", allowedRoles: ["pay"] });
    expect(await call("secrets:TransformFpeTransformation", "diff", [id, outs, news])).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs: after } = (await call("secrets:TransformFpeTransformation", "update", [id, outs, news])) as { outs: Props };
    expect(after.tweakSource).toBe("internal");
    await created("secrets:TransformRole", { name: "pay", transformations: ["card"] });
    const err = await rejectionOf(call("secrets:TransformFpeTransformation", "delete", [id, after]));
    expect(err.code).toBe("conflict");
    expect(err.message).toContain("transformation card is used by role pay: remove it from the Role's transformations");
    await raw("DELETE", "role/pay");
    await call("secrets:TransformFpeTransformation", "delete", [id, after]);
    expect((await raw("GET", "transformation/card")).status).toBe(404);
  });

  it("a rename replaces (create first); a mount change too; bad tweak source at check", async () => {
    const { outs } = await created("secrets:TransformFpeTransformation", { name: "a", template: "builtin/creditcardnumber" });
    const renamed = await checked("secrets:TransformFpeTransformation", { name: "b", template: "builtin/creditcardnumber" });
    expect(await call("secrets:TransformFpeTransformation", "diff", ["id", outs, renamed])).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
    expect(await failureLines("secrets:TransformFpeTransformation", { name: "x", template: "", tweakSource: "random" })).toEqual([
      "template: must not be empty", "tweakSource: must be one of supplied, generated, internal",
    ]);
  });

  it("refuses to take over an existing transformation without adopt", async () => {
    await raw("POST", "transformations/fpe/taken", { template: "builtin/creditcardnumber" });
    const inputs = await checked("secrets:TransformFpeTransformation", { name: "taken", template: "builtin/socialsecuritynumber" });
    await expect(call("secrets:TransformFpeTransformation", "create", [inputs])).rejects.toThrow(/already exists\. If a pulumi up that was stopped .*npx pulumi-svc-recover.*--cleared.*If you renamed this resource in your program, give it aliases: .*deleteBeforeReplace: false.*to manage the existing .* set adopt: true/);
    const adopted = (await call("secrets:TransformFpeTransformation", "create", [{ ...inputs, adopt: true }])) as Res;
    expect(adopted.outs.template).toBe("builtin/socialsecuritynumber");
  });
});

describe("MaskingTransformation", () => {
  it("only the first masking character counts: no diff for '#x' read back as '#'", async () => {
    const { outs } = await created("secrets:TransformMaskingTransformation", { name: "m", template: "builtin/creditcardnumber", maskingCharacter: "#x" });
    expect((await raw("GET", "transformation/m")).body.data.masking_character).toBe("#");
    expect(outs.maskingCharacter).toBe("#x");
    const read = (await call("secrets:TransformMaskingTransformation", "read", ["transform/transformation/m", outs])) as { props: Props };
    expect(read.props).toEqual(outs);
    await noDiff("secrets:TransformMaskingTransformation", read.props, { name: "m", template: "builtin/creditcardnumber", maskingCharacter: "#x" });
  });
});

describe("TokenizationTransformation", () => {
  it("durations do not diff; mapping mode and stores replace, deleting first", async () => {
    const { id, outs } = await created("secrets:TransformTokenizationTransformation", { name: "ssn", maxTtl: "24h", allowedRoles: ["app"] });
    expect(outs).toEqual({ serverUrl: expect.any(String), name: "ssn", mount: "transform", mappingMode: "default", maxTtl: "24h", allowedRoles: ["app"], stores: ["builtin/internal"] });
    expect((await raw("GET", "transformation/ssn")).body.data.max_ttl).toBe(86400);
    const read = (await call("secrets:TransformTokenizationTransformation", "read", [id, outs])) as { props: Props };
    expect(read.props).toEqual(outs);
    await noDiff("secrets:TransformTokenizationTransformation", read.props, { name: "ssn", maxTtl: "24h", allowedRoles: ["app"] });
    const exportable = await checked("secrets:TransformTokenizationTransformation", { name: "ssn", maxTtl: "24h", allowedRoles: ["app"], mappingMode: "exportable" });
    expect(await call("secrets:TransformTokenizationTransformation", "diff", [id, outs, exportable])).toEqual({ changes: true, replaces: ["mappingMode"], deleteBeforeReplace: true });
    await call("secrets:TransformTokenizationTransformation", "delete", [id, outs]);
    const { outs: again } = (await call("secrets:TransformTokenizationTransformation", "create", [exportable])) as Res;
    expect(again.mappingMode).toBe("exportable");
  });

  it("a max_ttl changed out of band shows as seconds (a diff to repair)", async () => {
    const { id, outs } = await created("secrets:TransformTokenizationTransformation", { name: "t", maxTtl: 60 });
    await raw("POST", "transformations/tokenization/t", { max_ttl: "2m" });
    const read = (await call("secrets:TransformTokenizationTransformation", "read", [id, outs])) as { props: Props };
    expect(read.props.maxTtl).toBe(120);
    expect(await failureLines("secrets:TransformTokenizationTransformation", { name: "t", maxTtl: "soon", stores: [] })).toEqual([
      'maxTtl: must be integer seconds (≥ 0) or a duration such as "90s", "1h30m" or "24h"', "stores: must name at least one store",
    ]);
  });
});

describe("Transformation (generic endpoint)", () => {
  it("type is required and immutable; fields of other types keep the input", async () => {
    expect((await failureLines("secrets:TransformTransformation", { name: "g", template: "builtin/creditcardnumber" }))[0]).toContain("type: is required");
    const { id, outs } = await created("secrets:TransformTransformation", { name: "g", type: "masking", template: "builtin/creditcardnumber", tweakSource: "internal" });
    expect(outs).toMatchObject({ type: "masking", tweakSource: "internal", maskingCharacter: "*" });
    const read = (await call("secrets:TransformTransformation", "read", [id, outs])) as { props: Props };
    expect(read.props).toEqual(outs);
    const asFpe = await checked("secrets:TransformTransformation", { name: "g", type: "fpe", template: "builtin/creditcardnumber" });
    expect(await call("secrets:TransformTransformation", "diff", [id, outs, asFpe])).toMatchObject({ replaces: ["type"], deleteBeforeReplace: true });
  });
});

describe("Store", () => {
  const mysql = { name: "my", driver: "mysql", connectionString: "{{username}}:{{password}}@tcp(db:3306)/t?parseTime=true", username: "u", password: "p4ss-w0rd" };

  it("keeps the write-only credentials from the inputs, never from a read; password is a secret output", async () => {
    const { id, outs } = await created("secrets:TransformStore", mysql);
    expect(outs).toEqual({ serverUrl: expect.any(String), ...mysql, mount: "transform", type: "sql", supportedTransformations: ["tokenization"], schema: "public", maxOpenConnections: 4, maxIdleConnections: 4, maxConnectionLifetime: 0, passwordVersion: 1 });
    const stored = JSON.stringify((await raw("GET", "stores/my")).body);
    expect(stored).not.toContain("p4ss-w0rd");
    const read = (await call("secrets:TransformStore", "read", [id, outs])) as { props: Props };
    expect(read.props).toEqual(outs);
    await noDiff("secrets:TransformStore", outs, mysql);
    const { storeDefinition } = await import("../../src/secrets/transform/store");
    expect(storeDefinition.secrets).toEqual(["password"]);
  });

  it("validates slots, drivers and options at check; delete guarded by the transformation", async () => {
    expect(await failureLines("secrets:TransformStore", { ...mysql, connectionString: "{{user}}@tcp(db)/t", driver: "mysql", maxOpenConnections: 0 })).toEqual([
      "connectionString: must contain the {{username}} and {{password}} slots", "connectionString: has a slot other than {{username}} and {{password}}",
      "maxOpenConnections: must be 1 or more", "connectionString: a mysql connection string must carry the parseTime=true option",
    ]);
    expect(await failureLines("secrets:TransformStore", { ...mysql, connectionString: "{{username}}:{{password}}@tcp(db)/t" })).toEqual([
      "connectionString: a mysql connection string must carry the parseTime=true option",
    ]);
    expect(await failureLines("secrets:TransformStore", { ...mysql, driver: "postgres" })).toEqual([
      "connectionString: a postgres connection string must be a URL starting with postgresql://",
    ]);
    const { id, outs } = await created("secrets:TransformStore", mysql);
    await created("secrets:TransformTokenizationTransformation", { name: "tok", stores: ["my"] });
    const err = await rejectionOf(call("secrets:TransformStore", "delete", [id, outs]));
    expect(err.message).toContain("store my is used by tokenization transformation tok: delete that TokenizationTransformation first");
  });
});

describe("Template and Alphabet delete guards", () => {
  it("name the user and the fix", async () => {
    const a = await created("secrets:TransformAlphabet", { name: "hex", alphabet: "0123456789abcdef" });
    const t = await created("secrets:TransformTemplate", { name: "h", pattern: "([0-9a-f]{8})", alphabet: "hex" });
    await created("secrets:TransformFpeTransformation", { name: "f", template: "h" });
    expect((await rejectionOf(call("secrets:TransformAlphabet", "delete", [a.id, a.outs]))).message).toContain("alphabet hex is used by template h");
    expect((await rejectionOf(call("secrets:TransformTemplate", "delete", [t.id, t.outs]))).message).toContain("template h is used by transformation f");
  });
});

describe("StoreSchema and TokenizationKeyConfig", () => {
  it("the schema call runs with its own credentials, again when they change; gone with its store", async () => {
    await created("secrets:TransformStore", { name: "my", driver: "mysql", connectionString: "{{username}}:{{password}}@tcp(db)/t?parseTime=true", username: "u", password: "p" });
    await control(emu, "DELETE", "/requests");
    const { id, outs } = await created("secrets:TransformStoreSchema", { store: "my", username: "admin", password: "adm1n" });
    expect(id).toBe("transform/stores/my/schema");
    const news = await checked("secrets:TransformStoreSchema", { store: "my", username: "admin", password: "other" }, outs);
    expect(await call("secrets:TransformStoreSchema", "diff", [id, outs, news])).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    await call("secrets:TransformStoreSchema", "update", [id, outs, news]);
    expect((await requests(emu)).filter((r) => r.path === "/v1/transform/stores/my/schema").map((r) => r.status)).toEqual([204, 204]);
    await raw("DELETE", "stores/my");
    expect(await call("secrets:TransformStoreSchema", "read", [id, outs])).toEqual({ id: "", props: {} });
  });

  it("runs again by itself when the Store's connectionString or schema change in place; refuses values that are not the store's", async () => {
    const store = { name: "my", driver: "mysql", connectionString: "{{username}}:{{password}}@tcp(db)/t?parseTime=true", username: "u", password: "p", schema: "one" };
    const s = await created("secrets:TransformStore", store);
    await control(emu, "DELETE", "/requests");
    const args = { store: "my", username: "admin", password: "adm1n", connectionString: store.connectionString, schema: "one" };
    const { id, outs } = await created("secrets:TransformStoreSchema", args);
    expect(outs).toMatchObject({ connectionString: store.connectionString, schema: "one" });
    await noDiff("secrets:TransformStoreSchema", outs, args);

    // The Store moves to another schema and database in place (an update, not a replacement)...
    const moved = { ...store, schema: "two", connectionString: "{{username}}:{{password}}@tcp(db2)/t?parseTime=true" };
    const storeNews = await checked("secrets:TransformStore", moved, s.outs);
    expect(await call("secrets:TransformStore", "diff", [s.id, s.outs, storeNews])).toMatchObject({ changes: true, replaces: [] });
    await call("secrets:TransformStore", "update", [s.id, s.outs, storeNews]);
    // ...and the schema follows it with no triggers: its inputs are the Store's outputs.
    const news = await checked("secrets:TransformStoreSchema", { ...args, connectionString: moved.connectionString, schema: "two" }, outs);
    expect(await call("secrets:TransformStoreSchema", "diff", [id, outs, news])).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs: after } = (await call("secrets:TransformStoreSchema", "update", [id, outs, news])) as { outs: Props };
    expect(after).toMatchObject({ connectionString: moved.connectionString, schema: "two" });
    expect((await requests(emu)).filter((r) => r.path === "/v1/transform/stores/my/schema").map((r) => r.status)).toEqual([204, 204]);

    // Values that are not the store's (a typo, another store's) are refused before the schema call.
    await control(emu, "DELETE", "/requests");
    const wrong = await checked("secrets:TransformStoreSchema", { ...args, connectionString: store.connectionString, schema: "three" }, after);
    const err = await rejectionOf(call("secrets:TransformStoreSchema", "update", [id, after, wrong]));
    expect(err.message).toContain("connectionString: is not store my's connection_string on the server; pass the Store's own output (store.connectionString)");
    expect(err.message).toContain("schema: is not store my's schema on the server");
    expect((await requests(emu)).filter((r) => r.path === "/v1/transform/stores/my/schema")).toEqual([]);

    // Changed out of band, the store shows in the schema's refresh: the next up runs the call again.
    await raw("POST", "stores/my", { type: "sql", driver: "mysql", connection_string: store.connectionString, username: "u", password: "p", schema: "four" });
    const read = (await call("secrets:TransformStoreSchema", "read", [id, after])) as { props: Props };
    expect(read.props).toMatchObject({ connectionString: store.connectionString, schema: "four" });
    expect(await failureLines("secrets:TransformStoreSchema", { ...args, schema: "no-dashes", connectionString: "" })).toEqual([
      "connectionString: must not be empty", "schema: must be a plain identifier (letters, digits, underscore)",
    ]);
  });

  it("rotates on a trigger change and sets min_decryption_version", async () => {
    await created("secrets:TransformTokenizationTransformation", { name: "tok" });
    const { id, outs } = await created("secrets:TransformTokenizationKeyConfig", { transformation: "tok", rotationTrigger: "a" });
    expect(id).toBe("transform/tokenization/keys/tok");
    expect(outs).toEqual({ serverUrl: expect.any(String), transformation: "tok", mount: "transform", minDecryptionVersion: 1, rotationTrigger: "a", latestVersion: 1, minAvailableVersion: 0 });
    const news = await checked("secrets:TransformTokenizationKeyConfig", { transformation: "tok", rotationTrigger: "b", minDecryptionVersion: 2 }, outs);
    const { outs: after } = (await call("secrets:TransformTokenizationKeyConfig", "update", [id, outs, news])) as { outs: Props };
    expect(after).toMatchObject({ latestVersion: 2, minDecryptionVersion: 2, rotationTrigger: "b" });
    const tooHigh = await checked("secrets:TransformTokenizationKeyConfig", { transformation: "tok", rotationTrigger: "b", minDecryptionVersion: 5 }, after);
    expect((await rejectionOf(call("secrets:TransformTokenizationKeyConfig", "update", [id, after, tooHigh]))).message).toContain("min_decryption_version must be between");
    expect((await rejectionOf(call("secrets:TransformTokenizationKeyConfig", "create", [await checked("secrets:TransformTokenizationKeyConfig", { transformation: "nope" })]))).message)
      .toContain("create the TokenizationTransformation nope first");
  });
});

describe("every transform resource", () => {
  const cases: [string, Props, string][] = [
    ["secrets:TransformFpeTransformation", { name: "f", template: "builtin/creditcardnumber" }, "transformation/f"],
    ["secrets:TransformMaskingTransformation", { name: "m", template: "builtin/creditcardnumber" }, "transformation/m"],
    ["secrets:TransformTokenizationTransformation", { name: "t" }, "transformation/t"],
    ["secrets:TransformTransformation", { name: "g", type: "fpe", template: "builtin/creditcardnumber" }, "transformation/g"],
    ["secrets:TransformStore", { name: "s", driver: "mysql", connectionString: "{{username}}:{{password}}@tcp(db)/t?parseTime=true", username: "u", password: "p" }, "stores/s"],
    ["secrets:TransformRole", { name: "r" }, "role/r"],
  ];

  it.each(cases)("%s: a fresh read has no diff; refresh drops it after an out-of-band delete; delete of a gone object succeeds", async (kind, args, path) => {
    const { id, outs } = await created(kind, args);
    const read = (await call(kind, "read", [id, outs])) as { props: Props };
    await noDiff(kind, read.props, args);
    await raw("DELETE", path);
    expect(await call(kind, "read", [id, outs])).toEqual({ id: "", props: {} });
    await expect(call(kind, "delete", [id, outs])).resolves.toBeUndefined();
  });

  it("a store updates in place (limits) and replaces on a driver change, deleting first", async () => {
    const args = { name: "s", driver: "mysql", connectionString: "{{username}}:{{password}}@tcp(db)/t?parseTime=true", username: "u", password: "p" };
    const { id, outs } = await created("secrets:TransformStore", args);
    const news = await checked("secrets:TransformStore", { ...args, maxOpenConnections: 8, maxConnectionLifetime: "1h" }, outs);
    expect(await call("secrets:TransformStore", "diff", [id, outs, news])).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs: after } = (await call("secrets:TransformStore", "update", [id, outs, news])) as { outs: Props };
    expect(after).toMatchObject({ maxOpenConnections: 8, maxConnectionLifetime: "1h" });
    expect((await raw("GET", "stores/s")).body.data).toMatchObject({ max_open_connections: 8, max_connection_lifetime: 3600 });
    const pg = await checked("secrets:TransformStore", { ...args, driver: "postgres", connectionString: "postgresql://{{username}}:{{password}}@db/t" }, after);
    expect(await call("secrets:TransformStore", "diff", [id, after, pg])).toMatchObject({ replaces: expect.arrayContaining(["driver"]), deleteBeforeReplace: true });
  });
});
