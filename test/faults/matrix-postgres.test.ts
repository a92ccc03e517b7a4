// The fault matrix's cells of secrets:TransformStoreSchema (test/faults/matrix.test.ts has the
// other kinds'): a PostgreSQL store, its schema call under every fault, then the tables are there
// once (the call is idempotent, so a lost response is repeated). On a real PostgreSQL.
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { control, secretsApi, useEmulator } from "../support/emulator";
import { mustStatus } from "../support/must";
import { usePostgres } from "../support/postgres";
import { CELLS, clearMetFaults, refreshUnderFault } from "./cells";
import { inSync, replaceOnRequest, settle } from "./deploy";

const { emu } = useEmulator({ secretsToken: "secretsRoot" });
beforeAll(() => {
  // One retry inside the client: most faults reach the provider, which is what this suite tests.
  process.env.SVC_MAX_RETRIES = "1";
});

describe("secrets:TransformStoreSchema under faults (on a real PostgreSQL)", () => {
  const KIND = "secrets:TransformStoreSchema";
  const app = { username: "tokenizer", password: "matrix-app-secret-1" };
  const db = usePostgres(app);
  beforeEach(async () => {
    await db().query("DROP SCHEMA IF EXISTS tokens CASCADE");
    await db().query("CREATE SCHEMA tokens");
    const store = await secretsApi(emu, "POST", "/transform/stores/db", {
      type: "sql", driver: "postgres", connection_string: `postgresql://{{username}}:{{password}}@127.0.0.1:${db().port}/postgres`,
      username: app.username, password: app.password, schema: "tokens",
    });
    mustStatus(store.status, 204, `POST /transform/stores/db ${JSON.stringify(store.body)}`);
    if (expected.length === 0) {
      // What a schema call creates, from one raw call (so the cells compare with the service, not a list of ours).
      const raw = await secretsApi(emu, "POST", "/transform/stores/db/schema", { username: db().admin.username, password: db().admin.password });
      mustStatus(raw.status, 204, `POST /transform/stores/db/schema ${JSON.stringify(raw.body)}`);
      expected = await tables();
      if (expected.length === 0) throw new Error("setup: the raw schema call created no table");
      await db().query("DROP SCHEMA tokens CASCADE");
      await db().query("CREATE SCHEMA tokens");
    }
  });
  const inputs = (run: string) => ({ store: "db", username: db().admin.username, password: db().admin.password, triggers: run });
  const tables = async () =>
    (await db().query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'tokens' ORDER BY 1")).map((t) => t.table_name);
  let expected: string[] = [];

  it.each(CELLS)("create: %s %s the server acted → the tables, once, and the schema in state", async (_n, when, how) => {
    expect(await tables()).toEqual([]);
    await control(emu, "POST", "/faults", { method: "POST", path: "/v1/transform/stores/db/schema", ...how, when, count: 3 });
    const state = await settle(KIND, undefined, inputs("1"));
    await clearMetFaults(emu);
    expect(await tables()).toEqual(expected);
    await inSync(KIND, state, inputs("1"));
  });

  it.each(CELLS)("update: %s %s the server acted → the call runs again and state records the new triggers", async (_n, when, how) => {
    let state = await settle(KIND, undefined, inputs("1"));
    await db().query("DROP SCHEMA tokens CASCADE");
    await db().query("CREATE SCHEMA tokens");
    await control(emu, "POST", "/faults", { method: "POST", path: "/v1/transform/stores/db/schema", ...how, when, count: 3 });
    state = await settle(KIND, state, inputs("2"));
    await clearMetFaults(emu);
    expect(await tables(), "the new database got its tables").toEqual(expected);
    await inSync(KIND, state, inputs("2"));
  });

  it.each(CELLS)("read: %s %s the server acted → refresh fails or retries, never drops the schema", async (_n, when, how) => {
    const state = await settle(KIND, undefined, inputs("1"));
    await refreshUnderFault(emu, KIND, state, "/v1/transform/*", how, when);
    await inSync(KIND, state, inputs("1"));
  });

  it("delete sends nothing and keeps the tables (they hold the tokens), whatever the faults", async () => {
    const state = await settle(KIND, undefined, inputs("1"));
    await control(emu, "POST", "/faults", { path: "/v1/*", status: 503, count: 3 });
    await call(KIND, "delete", [state!.id, state!.outs]);
    expect((await control<{ faults: unknown[] }>(emu, "GET", "/faults")).faults).toHaveLength(1);
    await control(emu, "DELETE", "/faults");
    expect(await tables()).toEqual(expected);
  });

  it("replaced on request (pulumi up --replace): the schema call runs again, the tables are there once, state and program agree", async () => {
    const first = await settle(KIND, undefined, inputs("1"));
    await db().query("DROP SCHEMA tokens CASCADE");
    await db().query("CREATE SCHEMA tokens");
    const state = await replaceOnRequest(KIND, first, inputs("1"));
    expect(await tables()).toEqual(expected);
    await inSync(KIND, state, inputs("1"));
  });
});
