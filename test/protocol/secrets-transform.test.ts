import { describe, expect, it } from "vitest";
import { control, secretsApi } from "../support/emulator";
import { hostChecked, serializedProvider, urn, useHosts } from "../support/protocol";

const ROLE = "secrets:TransformRole";
const FPE = "secrets:TransformFpeTransformation";
const TOK = "secrets:TransformTokenizationTransformation";
const STORE = "secrets:TransformStore";
const SCHEMA = "secrets:TransformStoreSchema";
const KEYS = "secrets:TransformTokenizationKeyConfig";
const STORE_PASSWORD = "Ps8Tq3Zw6Xm1Kr9L";

const { emu, host } = useHosts({ host: (emu) => ({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsUser }) });

describe("transform engine through the real dynamic-provider host", () => {
  it("serializes each new kind to a small text without tokens", async () => {
    for (const kind of [ROLE, FPE, TOK, STORE, SCHEMA, KEYS, "secrets:TransformMaskingTransformation", "secrets:TransformTransformation"]) {
      const text = await serializedProvider(kind);
      expect(text).toContain(`"${kind}"`);
      expect(Buffer.byteLength(text)).toBeLessThan(6000);
      for (const t of Object.values(emu.tokens)) expect(text).not.toContain(t);
    }
  });

  it("check rejects builtin/ names and bad fields before any request; unknown values are skipped", async () => {
    await control(emu, "DELETE", "/requests");
    const bad = await host.check(urn(FPE, "bad"), {}, { __provider: await serializedProvider(FPE), name: "builtin/x", template: "builtin/creditcardnumber", tweakSource: "other" });
    expect(bad.failures.map((f) => f.property).sort()).toEqual(["name", "tweakSource"]);
    const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    const preview = await host.check(urn(STORE, "s"), {}, { __provider: await serializedProvider(STORE), name: "s", driver: unknown, connectionString: unknown, username: "u", password: unknown, maxOpenConnections: unknown });
    expect(preview.failures).toEqual([]);
    expect((await control<{ requests: unknown[] }>(emu, "GET", "/requests")).requests).toEqual([]);
  });

  it("store, schema, tokenization, role and key config: create, read, diff, update, replace rules, delete", async () => {
    const storeIn = await hostChecked(host, STORE, "s", { name: "s", driver: "mysql", connectionString: "{{username}}:{{password}}@tcp(db)/t?parseTime=true", username: "app", password: STORE_PASSWORD });
    const store = await host.create(urn(STORE, "s"), storeIn);
    expect(store.outs.password).toBe(STORE_PASSWORD); // kept from the input; the engine marks it secret
    const storeRead = await host.read(urn(STORE, "s"), store.id, store.outs);
    expect(await host.diff(urn(STORE, "s"), store.id, storeRead.props, storeIn)).toMatchObject({ changes: false });

    const schemaIn = await hostChecked(host, SCHEMA, "sc", { store: "s", username: "admin", password: "admin-pw" });
    const schema = await host.create(urn(SCHEMA, "sc"), schemaIn);
    expect(schema.id).toBe("transform/stores/s/schema");

    const tokIn = await hostChecked(host, TOK, "t", { name: "t", maxTtl: "24h", allowedRoles: ["app"], stores: ["s"] });
    const tok = await host.create(urn(TOK, "t"), tokIn);
    const tokRead = await host.read(urn(TOK, "t"), tok.id, tok.outs);
    expect(tokRead.props.maxTtl).toBe("24h");
    expect(await host.diff(urn(TOK, "t"), tok.id, tokRead.props, tokIn)).toMatchObject({ changes: false });
    expect(await host.diff(urn(TOK, "t"), tok.id, tokRead.props, { ...tokIn, stores: ["builtin/internal"] })).toEqual({ changes: true, replaces: ["stores"], deleteBeforeReplace: true });

    const roleIn = await hostChecked(host, ROLE, "r", { name: "app", transformations: ["t"] });
    const role = await host.create(urn(ROLE, "r"), roleIn);
    const keysIn = await hostChecked(host, KEYS, "k", { transformation: "t", rotationTrigger: 1 });
    const keys = await host.create(urn(KEYS, "k"), keysIn);
    const rotated = await host.update(urn(KEYS, "k"), keys.id, keys.outs, { ...keysIn, rotationTrigger: 2 });
    expect(rotated.outs).toMatchObject({ latestVersion: 2, rotationTrigger: 2 });

    const guarded = await host.delete(urn(TOK, "t"), tok.id, tok.outs).catch((e) => e);
    expect(String(guarded.message)).toContain("transformation t is used by role app");
    const storeGuard = await host.delete(urn(STORE, "s"), store.id, store.outs).catch((e) => e);
    expect(String(storeGuard.message)).toContain("store s is used by tokenization transformation t");

    await host.delete(urn(KEYS, "k"), keys.id, rotated.outs);
    await host.delete(urn(ROLE, "r"), role.id, role.outs);
    await host.delete(urn(TOK, "t"), tok.id, tok.outs);
    await host.delete(urn(SCHEMA, "sc"), schema.id, schema.outs);
    await host.delete(urn(STORE, "s"), store.id, store.outs);
    expect((await secretsApi(emu, "GET", "/transform/stores/s")).status).toBe(404);
    for (const t of [STORE_PASSWORD, "admin-pw", ...Object.values(emu.tokens)]) expect(host.stderr()).not.toContain(t);
  });
});
