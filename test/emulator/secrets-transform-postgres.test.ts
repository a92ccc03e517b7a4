import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { needsPostgres, startPostgres, type Postgres } from "../support/postgres";
import { svcToken } from "./helpers";
import { call } from "../support/http";

describe("postgres stores on a real PostgreSQL", () => {
  const can = needsPostgres();
  let pg: Postgres;
  const running: Emulator[] = [];
  const app = { username: "tokenizer", password: "app-secret-1" };

  beforeAll(async () => {
    if (!can) return;
    pg = await startPostgres();
    await pg.query(`CREATE ROLE ${app.username} LOGIN PASSWORD '${app.password}'`);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(running.map((e) => e.close()));
    await pg?.stop();
  });

  async function emulator() {
    const emu = await startEmulator();
    running.push(emu);
    const send = (path: string, body: unknown = {}) =>
      call("POST", `${emu.secretsUrl}/transform/${path}`, { headers: svcToken(emu.tokens.secretsRoot), body });
    return { emu, send };
  }

  const connection = () => `postgresql://{{username}}:{{password}}@127.0.0.1:${pg.port}/postgres`;

  test("a wrong password is refused with the database's reason", async () => {
    const { send } = await emulator();
    const res = await send("stores/db", { type: "sql", driver: "postgres", connection_string: connection(), username: app.username, password: "wrong" });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toMatch(/cannot connect.*password authentication failed/);
  });

  test("schema with admin credentials, tokens in the database, decoded by a restarted emulator without state", async () => {
    const first = await emulator();
    const store = { type: "sql", driver: "postgres", connection_string: connection(), username: app.username, password: app.password, schema: "tokens" };
    expect((await first.send("stores/db", store)).status).toBe(204);
    // The store's own user may not create tables: the schema call uses other credentials.
    const denied = await first.send("stores/db/schema", { username: app.username, password: app.password });
    expect(denied.status).toBe(400);
    expect(denied.json.errors[0]).toContain("permission denied");
    expect((await first.send("stores/db/schema", { username: pg.admin.username, password: pg.admin.password })).status).toBe(204);
    expect((await first.send("transformations/tokenization/ssn", { stores: ["db"], allowed_roles: ["app"], mapping_mode: "exportable" })).status).toBe(204);
    expect((await first.send("role/app", { transformations: ["ssn"] })).status).toBe(204);
    const tokens: string[] = [];
    for (const value of ["123-45-6789", "987-65-4321"]) tokens.push((await first.send("encode/app", { value, metadata: "source=test" })).json.data.encoded_value);

    const rows = await pg.query<{ token_hash: string; ciphertext: string; metadata: string; key_version: number }>(
      "SELECT token_hash, ciphertext, metadata, key_version FROM tokens.transform_tokens WHERE transformation = 'ssn' ORDER BY seq");
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ metadata: "source=test", key_version: 1 });
    const dump = JSON.stringify(await pg.query("SELECT * FROM tokens.transform_tokens"));
    for (const secret of ["123-45-6789", "987-65-4321", ...tokens]) expect(dump).not.toContain(secret);
    const grants = await pg.query<{ privilege_type: string }>(
      "SELECT privilege_type FROM information_schema.role_table_grants WHERE grantee = $1 AND table_name = 'transform_tokens' ORDER BY 1", [app.username]);
    expect(grants.map((g) => g.privilege_type)).toEqual(["INSERT", "SELECT", "UPDATE"]);

    await first.emu.close();
    const second = await emulator();
    expect((await second.send("stores/db", store)).status).toBe(204);
    expect((await second.send("transformations/tokenization/ssn", { stores: ["db"], allowed_roles: ["app"], mapping_mode: "exportable" })).status).toBe(204);
    expect((await second.send("role/app", { transformations: ["ssn"] })).status).toBe(204);
    expect((await second.send("decode/app", { value: tokens[1] })).json.data.decoded_value).toBe("987-65-4321");
    expect((await second.send("tokenized/app", { value: "123-45-6789" })).json.data.tokenized).toBe(true);
    const exported = (await second.send("transformations/tokenization/export-decoded/ssn", { limit: 1 })).json.data;
    expect(exported.values).toHaveLength(1);
    expect(exported.continuation).toEqual(expect.any(String));
    expect((await second.send("tokenization/keys/ssn/rotate")).status).toBe(204);
    const ring = await pg.query<{ ring: { latest_version: number } }>("SELECT ring FROM tokens.transform_keys WHERE transformation = 'ssn'");
    expect(ring[0].ring.latest_version).toBe(2);
  }, 60_000);

  test("a database that goes away answers with its reason", async () => {
    const { send } = await emulator();
    await pg.query("CREATE ROLE gone LOGIN PASSWORD 'gone-pw'");
    const store = { type: "sql", driver: "postgres", connection_string: connection(), username: "gone", password: "gone-pw", schema: "gone" };
    expect((await send("stores/g", store)).status).toBe(204);
    expect((await send("stores/g/schema", { username: pg.admin.username, password: pg.admin.password })).status).toBe(204);
    expect((await send("transformations/tokenization/t", { stores: ["g"], allowed_roles: ["r"] })).status).toBe(204);
    expect((await send("role/r", { transformations: ["t"] })).status).toBe(204);
    await pg.query("REVOKE SELECT, INSERT, UPDATE ON gone.transform_tokens FROM gone");
    const res = await send("encode/r", { value: "x" });
    expect(res.status).toBe(500);
    expect(res.json.errors[0]).toContain("permission denied");
  }, 60_000);
});
