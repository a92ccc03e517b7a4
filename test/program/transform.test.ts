import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { startEmulator, type Emulator } from "../../src/emulator";
import { runProgram } from "../../src/engine/program";
import { loadState, passphrase } from "../../src/engine/state";
import type { Result } from "../../src/engine/types";
import { plainMap } from "../../src/engine/values";
import { control } from "../support/emulator";
import { root, withoutSvcEnv } from "../support/dist";
import { skipWithoutPostgres, startPostgres, type Postgres } from "../support/postgres";

const STORE_PASSWORD = "example-tokenizer-pw-5e4d";
const step1 = path.join(root, "dist/examples/transform/index.js");
const step2 = path.join(root, "dist/examples/transform/step2/index.js");

describe.skipIf(skipWithoutPostgres())("the transform example through the engine double, on a real PostgreSQL", () => {
  let emu: Emulator;
  let pg: Postgres;
  let dir: string;
  let state: string;

  const run = (operation: "preview" | "up" | "refresh" | "destroy", program = step1): Promise<Result> =>
    runProgram({
      operation, program, state, cwd: root, stack: "dev", project: "pulumi-svc-transform",
      config: {
        "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl,
        "transform:database": `127.0.0.1:${pg.port}/postgres`, "transform:storeUser": "tokenizer", "transform:adminUser": pg.admin.username,
      },
      secretConfig: {
        "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsUser,
        "transform:storePassword": STORE_PASSWORD, "transform:adminPassword": pg.admin.password,
      },
      env: withoutSvcEnv() as Record<string, string>,
      timeoutMs: 120_000,
    });

  const ops = (r: Result) => Object.fromEntries(r.steps.map((s) => [s.name, s.op]));
  const logged = async () => (await control<{ requests: { method: string; path: string }[] }>(emu, "GET", "/requests")).requests;
  async function get(p: string): Promise<{ status: number; body: any }> {
    const res = await request(`${emu.secretsUrl}${p}`, { headers: { "x-svc-token": emu.tokens.secretsRoot } });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
  }

  beforeAll(async () => {
    if (!fs.existsSync(step1)) throw new Error("dist/ is missing: run npm run build (npm test does)");
    pg = await startPostgres();
    await pg.query(`CREATE ROLE tokenizer LOGIN PASSWORD '${STORE_PASSWORD}'`);
    emu = await startEmulator();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "transform-"));
    state = path.join(dir, "stack.json");
  }, 60_000);

  afterAll(async () => {
    await emu?.close();
    await pg?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("previews every create without a request", async () => {
    await control(emu, "DELETE", "/requests");
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
    const text = fs.readFileSync(state, "utf8");
    for (const secret of [STORE_PASSWORD, pg.admin.password, "4111-1111-1111-1111", ...Object.values(emu.tokens)]) expect(text).not.toContain(secret);
    const tables = await pg.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'transform' ORDER BY 1");
    expect(tables.map((t) => t.table_name)).toEqual(["transform_keys", "transform_tokens"]);
  });

  it("has no perpetual diff: a second up writes nothing but the encode/decode calls", async () => {
    await control(emu, "DELETE", "/requests");
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(Object.values(ops(r)).every((op) => op === "same")).toBe(true);
    const writes = (await logged()).filter((q) => q.method === "POST").map((q) => q.path);
    expect(writes).toEqual(["/v1/transform/encode/payments", "/v1/transform/decode/payments"]);
  });

  it("step2 rotates the tokenization key and adds a role", async () => {
    const r = await run("up", step2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toMatchObject({ "ssn-keys": "update", support: "create", ssn: "same", tokens: "same" });
    expect(r.outputs.tokenizationKeyVersion).toBe(2);
    expect((await get("/transform/role/support")).body.data.transformations).toEqual(["masked-card"]);
    const ring = await pg.query<{ ring: { latest_version: number } }>("SELECT ring FROM transform.transform_keys WHERE transformation = 'ssn'");
    expect(ring[0].ring.latest_version).toBe(2);
  });

  it("destroy removes everything in dependency order", async () => {
    const r = await run("destroy", step2);
    expect(r.error).toBeUndefined();
    for (const p of ["/transform/role/payments", "/transform/transformation/ssn", "/transform/stores/tokens", "/transform/alphabet/card-digits"]) {
      expect((await get(p)).status).toBe(404);
    }
  });
});
