import { describe, expect, it } from "vitest";
import { loadState, passphrase } from "../../src/engine/state";
import { plainMap } from "../../src/engine/values";
import { skipWithoutPostgres, usePostgres } from "../support/postgres";
import { useProgram } from "../support/program";

const STORE_PASSWORD = "example-tokenizer-pw-5e4d";

describe.skipIf(skipWithoutPostgres())("the transform example through the engine double, on a real PostgreSQL", () => {
  const pg = usePostgres({ username: "tokenizer", password: STORE_PASSWORD });
  const { emu, state, run, ops, get, requests: logged, clearRequests, stateText } = useProgram({
    example: "transform", project: "pulumi-svc-transform",
    config: () => ({ "transform:database": `127.0.0.1:${pg().port}/postgres`, "transform:storeUser": "tokenizer", "transform:adminUser": pg().admin.username }),
    secretConfig: () => ({ "transform:storePassword": STORE_PASSWORD, "transform:adminPassword": pg().admin.password }),
  });

  it("previews every create without a request", async () => {
    await clearRequests();
    const r = await run("preview");
    expect(r.error).toBeUndefined();
    expect(Object.values(ops(r)).every((op) => op === "create")).toBe(true);
    expect(await logged()).toEqual([]);
  });

  it("creates everything, encodes a card number and decodes it, outputs secret", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(Object.keys(ops(r)).sort()).toEqual(["card", "card-template", "digits", "masked", "payments", "ssn", "ssn-keys", "tokens", "tokens-schema"].sort());
    expect(r.outputs).toMatchObject({ encodedCard: "[secret]", decodedCard: "[secret]" });
    const outputs = plainMap(loadState(state, passphrase()).state.outputs);
    expect(String(outputs.encodedCard)).toMatch(/^\d{4}-\d{4}-\d{4}-\d{4}$/);
    expect(outputs.encodedCard).not.toBe("4111-1111-1111-1111");
    expect(outputs.decodedCard).toBe("4111-1111-1111-1111");
    const text = stateText();
    for (const secret of [STORE_PASSWORD, pg().admin.password, "4111-1111-1111-1111", ...Object.values(emu.tokens)]) expect(text).not.toContain(secret);
    const tables = await pg().query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'transform' ORDER BY 1");
    expect(tables.map((t) => t.table_name)).toEqual(["transform_keys", "transform_tokens"]);
  });

  it("has no perpetual diff: a second up writes nothing but the encode/decode calls", async () => {
    await clearRequests();
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(Object.values(ops(r)).every((op) => op === "same")).toBe(true);
    const writes = (await logged()).filter((q) => q.method === "POST").map((q) => q.path);
    expect(writes).toEqual(["/v1/transform/encode/payments", "/v1/transform/decode/payments"]);
  });

  it("step2 rotates the tokenization key and adds a role", async () => {
    const r = await run("up", 2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toMatchObject({ "ssn-keys": "update", support: "create", ssn: "same", tokens: "same" });
    expect(r.outputs.tokenizationKeyVersion).toBe(2);
    expect((await get("/transform/role/support")).body.data.transformations).toEqual(["masked-card"]);
    const ring = await pg().query<{ ring: { latest_version: number } }>("SELECT ring FROM transform.transform_keys WHERE transformation = 'ssn'");
    expect(ring[0].ring.latest_version).toBe(2);
  });

  it("destroy removes everything in dependency order", async () => {
    const r = await run("destroy", 2);
    expect(r.error).toBeUndefined();
    for (const p of ["/transform/role/payments", "/transform/transformation/ssn", "/transform/stores/tokens", "/transform/alphabet/card-digits"]) {
      expect((await get(p)).status).toBe(404);
    }
  });
});
