import * as pulumi from "@pulumi/pulumi";
import { beforeEach, describe, expect, it } from "vitest";
import * as transform from "../../src/secrets/transform";
import { control, requests, secretsApi, useEmulator } from "../support/emulator";
import { rejectionOf } from "../support/errors";

const { emu } = useEmulator();
const raw = (path: string, body?: unknown) => secretsApi(emu, "POST", `/transform/${path}`, body);
const mocks: pulumi.runtime.Mocks = {
  newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }),
  call: (a) => a.inputs,
};
const TWEAK = Buffer.from("1234567").toString("base64");
const value = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));
const isSecret = (o: pulumi.Output<unknown>) => (o as unknown as { isSecret: Promise<boolean> }).isSecret;

beforeEach(async () => {
  await pulumi.runtime.setMocks(mocks, "proj", "stack", false);
  await raw("transformations/fpe/card", { template: "builtin/creditcardnumber", allowed_roles: ["pay"] });
  await raw("transformations/tokenization/tok", { allowed_roles: ["pay"], mapping_mode: "exportable" });
  await raw("role/pay", { transformations: ["card", "tok"] });
});

describe("value functions", () => {
  it("encode and decode, single and batch (results in input order, failures per item)", async () => {
    const enc = await transform.encode({ role: "pay", transformation: "card", value: "4111-1111-1111-1111", tweak: TWEAK });
    expect(enc.encodedValue).toMatch(/^\d{4}-\d{4}-\d{4}-\d{4}$/);
    expect(await transform.decode({ role: "pay", transformation: "card", value: enc.encodedValue!, tweak: TWEAK })).toEqual({ decodedValue: "4111-1111-1111-1111" });
    const batch = await transform.encode({ role: "pay", batchSize: 2, batchInput: [
      { value: "4111111111111111", transformation: "card", tweak: TWEAK }, { value: "x", transformation: "card", tweak: TWEAK },
      { value: "secret", transformation: "tok", ttl: "1h", metadata: { owner: "alice" } },
    ] });
    expect(batch.batchResults).toHaveLength(3);
    expect(batch.batchResults![1].error).toContain("does not match");
    const token = batch.batchResults![2].encodedValue!;
    const dec = await transform.decode({ role: "pay", batchInput: [{ value: token, transformation: "tok" }, { value: batch.batchResults![0].encodedValue!, transformation: "card", tweak: TWEAK }] });
    expect(dec.batchResults).toEqual([{ decodedValue: "secret" }, { decodedValue: "4111111111111111" }]);
    expect(await transform.validate({ role: "pay", transformation: "tok", value: token })).toEqual({ valid: true });
    expect(await transform.tokenized({ role: "pay", transformation: "tok", value: "secret" })).toEqual({ tokenized: true });
    const meta = await transform.metadata({ role: "pay", transformation: "tok", value: token });
    expect(meta.metadata).toBe("owner=alice");
    expect(Date.parse(meta.expirationTime!)).toBeGreaterThan(Date.now());
  });

  it("bad arguments fail before any request, naming each property", async () => {
    await control(emu, "DELETE", "/requests");
    const err = await rejectionOf(transform.encode({ role: "bad/role", tweak: "short", ttl: "soon" }));
    expect(err.code).toBe("invalid_input");
    for (const p of ["role", "tweak", "ttl", "value"]) expect(err.message).toContain(p);
    expect(await requests(emu)).toEqual([]);
  });

  it("a refused single call fails with the server's message", async () => {
    const err = await rejectionOf(transform.encode({ role: "pay", value: "4111111111111111" }));
    expect(err.message).toContain("transformation is required");
  });

  it("Output forms: encode and decode are secret; encode makes no request in preview", async () => {
    const out = transform.encodeOutput({ role: "pay", transformation: "card", value: pulumi.output("4111111111111111"), tweak: TWEAK });
    expect(await isSecret(out)).toBe(true);
    const encoded = (await value(out)).encodedValue!;
    const dec = transform.decodeOutput({ role: "pay", transformation: "card", value: encoded, tweak: TWEAK });
    expect(await isSecret(dec)).toBe(true);
    expect((await value(dec)).decodedValue).toBe("4111111111111111");
    await control(emu, "DELETE", "/requests");
    await pulumi.runtime.setMocks(mocks, "proj", "stack", true);
    const preview = transform.encodeOutput({ role: "pay", transformation: "tok", value: "x" });
    expect(await (preview as unknown as { isKnown: Promise<boolean> }).isKnown).toBe(false);
    expect(await transform.encode({ role: "pay", transformation: "tok", value: "x" })).toBeUndefined();
    expect(await requests(emu)).toEqual([]);
  });
});

describe("tokenization state functions", () => {
  it("snapshot and export iterate page by page; restore in chunks is idempotent", async () => {
    const tokens = [];
    for (let i = 0; i < 7; i++) tokens.push((await transform.encode({ role: "pay", transformation: "tok", value: `v${i}` })).encodedValue!);
    await control(emu, "DELETE", "/requests");
    const snapshot: string[] = [];
    for await (const v of transform.snapshotTokenization({ transformation: "tok", limit: 3 })) snapshot.push(v);
    expect(snapshot).toHaveLength(7);
    expect((await requests(emu)).filter((r) => r.path.includes("/snapshot/"))).toHaveLength(3);
    expect(await transform.snapshotTokenizationAll({ transformation: "tok", limit: 2 })).toHaveLength(7);
    expect(await transform.restoreTokenization({ transformation: "tok", values: snapshot, chunkSize: 3 })).toEqual({ restored: 7 });
    const exported = await transform.exportDecodedTokenizationAll({ transformation: "tok", limit: 4 });
    expect(exported.map((e) => e.plaintext).sort()).toEqual(["v0", "v1", "v2", "v3", "v4", "v5", "v6"]);
    expect(exported.map((e) => e.token).sort()).toEqual([...tokens].sort());
    expect(await isSecret(transform.exportDecodedTokenizationOutput({ transformation: "tok" }))).toBe(true);
    const it = transform.exportDecodedTokenization({ transformation: "tok", limit: 1 });
    expect((await it.next()).value).toMatchObject({ plaintextBase64: expect.any(String) });
    await it.return(undefined);
  });

  it("errors of the iterator forms and of restore's chunks name the function", async () => {
    const drain = async (it: AsyncIterable<unknown>) => {
      for await (const _ of it) void _;
    };
    // From a page's request.
    const snap = await rejectionOf(drain(transform.snapshotTokenization({ transformation: "nope" })));
    expect(snap.message).toMatch(/^snapshotTokenization: POST \/transform\/transformations\/tokenization\/snapshot\/nope: 404/);
    await raw("transformations/tokenization/plain", {});
    const exp = await rejectionOf(drain(transform.exportDecodedTokenization({ transformation: "plain" })));
    expect(exp.message).toMatch(/^exportDecodedTokenization: POST \/transform\/transformations\/tokenization\/export-decoded\/plain: 400 .*exportable/);
    // Before any request: bad arguments (at the call) and a missing setting.
    expect(() => transform.snapshotTokenization({ transformation: "a/b" })).toThrow(/^snapshotTokenization: .*transformation: /);
    const saved = process.env.SVC_SECRETS_TOKEN;
    delete process.env.SVC_SECRETS_TOKEN;
    try {
      const missing = await rejectionOf(drain(transform.exportDecodedTokenization({ transformation: "tok" })));
      expect(missing.message).toMatch(/^exportDecodedTokenization: .*SVC_SECRETS_TOKEN/);
    } finally {
      process.env.SVC_SECRETS_TOKEN = saved;
    }
    // A chunk refused, and a snapshot that fails while it feeds the restore: each names who failed.
    const chunk = await rejectionOf(transform.restoreTokenization({ transformation: "nope", values: ["x"] }));
    expect(chunk.message).toMatch(/^restoreTokenization: POST \/transform\/transformations\/tokenization\/restore\/nope: 404/);
    const fed = await rejectionOf(transform.restoreTokenization({ transformation: "tok", values: transform.snapshotTokenization({ transformation: "nope" }) }));
    expect(fed.message).toMatch(/^restoreTokenization: snapshotTokenization: POST .*snapshot\/nope: 404/);
  });

  it("restore makes no request in preview", async () => {
    await control(emu, "DELETE", "/requests");
    await pulumi.runtime.setMocks(mocks, "proj", "stack", true);
    expect(await transform.restoreTokenization({ transformation: "tok", values: ["x"] })).toBeUndefined();
    expect(await requests(emu)).toEqual([]);
  });
});

describe("key, read and list functions", () => {
  it("a name that is not one path segment is refused before any request, naming the function and the argument", async () => {
    const hostile = ["", "   ", ".", "..", "a/b", "builtin/../x", "builtin/", "a?b", "a#b", "a%2Fb", "a\\b", "a\u0001b", "\ud800", "x\udc00"];
    const reads: [string, (a: { name: string }) => Promise<unknown>][] = [
      ["getRole", transform.getRole], ["getTransformation", transform.getTransformation], ["getStore", transform.getStore],
      ["getTokenizationKey", transform.getTokenizationKey], ["rotateTokenizationKey", transform.rotateTokenizationKey],
    ];
    await control(emu, "DELETE", "/requests");
    for (const [fn, call] of reads) {
      for (const name of hostile) {
        const err = await rejectionOf(call({ name }));
        expect(err.code, `${fn}(${JSON.stringify(name)})`).toBe("invalid_input");
        expect(err.message, `${fn}(${JSON.stringify(name)})`).toMatch(new RegExp(`^${fn}: .*name: `));
      }
    }
    // Built-ins stay readable; key actions take only the engine's own names.
    expect(await transform.getStore({ name: "builtin/internal" })).toMatchObject({ name: "builtin/internal" });
    expect((await rejectionOf(transform.getTokenizationKey({ name: "builtin/internal" }))).code).toBe("invalid_input");
    expect((await requests(emu)).map((r) => r.path)).toEqual(["/v1/transform/stores/builtin/internal"]);
  });

  it("rotate, trim, get and list keys", async () => {
    expect(await transform.rotateTokenizationKey({ name: "tok" })).toEqual({ name: "tok", latestVersion: 2, minAvailableVersion: 0, minDecryptionVersion: 1 });
    await raw("tokenization/keys/tok/config", { min_decryption_version: 2 });
    expect(await transform.trimTokenizationKey({ name: "tok", minAvailableVersion: 2 })).toMatchObject({ minAvailableVersion: 2 });
    expect(await transform.getTokenizationKey({ name: "tok" })).toMatchObject({ latestVersion: 2, minDecryptionVersion: 2 });
    expect(await transform.listTokenizationKeys()).toEqual({ keys: ["tok"] });
  });

  it("roles (with a filter glob), transformations, stores, templates, alphabets", async () => {
    await raw("role/pay-eu", { transformations: ["card"] });
    expect(await transform.getRole({ name: "pay" })).toEqual({ name: "pay", transformations: ["card", "tok"] });
    expect(await transform.listRoles()).toEqual({ keys: ["pay", "pay-eu"] });
    expect(await transform.listRoles({ filter: "*-eu" })).toEqual({ keys: ["pay-eu"] });
    // The service answers 404 when no role matches: an empty list, as every other list.
    expect(await transform.listRoles({ filter: "nothing-*" })).toEqual({ keys: [] });
    expect(await transform.getTransformation({ name: "tok" })).toMatchObject({ type: "tokenization", mappingMode: "exportable", maxTtl: 0, stores: ["builtin/internal"] });
    expect(await transform.listTransformations()).toEqual({ keys: ["card", "tok"] });
    expect(await transform.getStore({ name: "builtin/internal" })).toMatchObject({ supportedTransformations: ["tokenization"] });
    expect(await transform.listStores()).toEqual({ keys: [] });
    await raw("alphabet/ab", { alphabet: "ab" });
    expect(await transform.listAlphabets()).toEqual({ keys: ["ab"] });
    expect(await transform.listTemplates()).toEqual({ keys: [] });
    expect(await value(transform.getRoleOutput({ name: pulumi.output("pay") }))).toMatchObject({ transformations: ["card", "tok"] });
  });
});
