// restoreTokenization restores something: tokens whose rows were lost from a PostgreSQL store decode
// again after a restore of the snapshot taken before, through the provider's functions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as transform from "../../src/secrets/transform";
import { secretsApi, useEmulator } from "../support/emulator";
import { rejectionOf } from "../support/errors";
import { skipWithoutPostgres, startPostgres, type Postgres } from "../support/postgres";

const { emu } = useEmulator();
const raw = (path: string, body?: unknown) => secretsApi(emu(), "POST", `/transform/${path}`, body);

describe.skipIf(skipWithoutPostgres())("restoreTokenization into a PostgreSQL store that lost its rows", () => {
  let pg: Postgres;
  const app = { username: "restorer", password: "restorer-pw-1" };

  beforeAll(async () => {
    pg = await startPostgres();
    await pg.query(`CREATE ROLE ${app.username} LOGIN PASSWORD '${app.password}'`);
  }, 60_000);
  afterAll(async () => {
    await pg?.stop();
  });

  it("snapshot, rows deleted in the database, tokens undecodable; restore in chunks; every token decodes again", async () => {
    const connection = `postgresql://{{username}}:{{password}}@127.0.0.1:${pg.port}/postgres`;
    expect((await raw("stores/db", { type: "sql", driver: "postgres", connection_string: connection, username: app.username, password: app.password, schema: "vault" })).status).toBe(204);
    expect((await raw("stores/db/schema", { username: pg.admin.username, password: pg.admin.password })).status).toBe(204);
    expect((await raw("transformations/tokenization/ssn", { stores: ["db"], allowed_roles: ["app"] })).status).toBe(204);
    expect((await raw("role/app", { transformations: ["ssn"] })).status).toBe(204);

    const plaintexts = ["123-45-6789", "987-65-4321", "555-12-3456", "111-22-3333", "222-33-4444"];
    const enc = await transform.encode({ role: "app", batchInput: plaintexts.map((value) => ({ value, metadata: { n: value.slice(0, 3) } })) });
    const tokens = enc.batchResults!.map((r) => r.encodedValue!);

    const snapshot: string[] = [];
    for await (const v of transform.snapshotTokenization({ transformation: "ssn", limit: 2 })) snapshot.push(v);
    expect(snapshot).toHaveLength(5);

    // The loss: every row of the transformation gone from the database (the keys stay in transform_keys).
    await pg.query("DELETE FROM vault.transform_tokens WHERE transformation = 'ssn'");
    expect(await pg.query("SELECT 1 FROM vault.transform_tokens")).toEqual([]);
    expect((await rejectionOf(transform.decode({ role: "app", value: tokens[0] }))).message).toContain("400");
    expect(await transform.validate({ role: "app", value: tokens[0] })).toEqual({ valid: false });

    // Any iterable will do: here the values arrive from an async generator, three per request.
    async function* replay() {
      for (const v of snapshot) yield v;
    }
    expect(await transform.restoreTokenization({ transformation: "ssn", values: replay(), chunkSize: 3 })).toEqual({ restored: 5 });
    expect(await pg.query("SELECT 1 FROM vault.transform_tokens WHERE transformation = 'ssn'")).toHaveLength(5);

    const dec = await transform.decode({ role: "app", batchInput: tokens.map((value) => ({ value })) });
    expect(dec.batchResults).toEqual(plaintexts.map((decodedValue) => ({ decodedValue })));
    expect(await transform.metadata({ role: "app", value: tokens[2] })).toMatchObject({ metadata: "n=555" });
    expect(await transform.tokenized({ role: "app", value: "111-22-3333" })).toEqual({ tokenized: true });

    // Restore is idempotent: the same values again add no row.
    expect(await transform.restoreTokenization({ transformation: "ssn", values: snapshot })).toEqual({ restored: 5 });
    expect(await pg.query("SELECT 1 FROM vault.transform_tokens WHERE transformation = 'ssn'")).toHaveLength(5);
  });

  it("a restore into a transformation with other keys is refused, naming the function, and writes nothing", async () => {
    expect((await raw("transformations/tokenization/a", { allowed_roles: ["r"] })).status).toBe(204);
    expect((await raw("transformations/tokenization/b", {})).status).toBe(204);
    expect((await raw("role/r", { transformations: ["a"] })).status).toBe(204);
    await transform.encode({ role: "r", value: "x" });
    const values = await transform.snapshotTokenizationAll({ transformation: "a" });
    const err = await rejectionOf(transform.restoreTokenization({ transformation: "b", values }));
    expect(err.message).toMatch(/^restoreTokenization: POST \/transform\/transformations\/tokenization\/restore\/b: 400 .*sealed with keys this transformation does not hold/);
    expect(await transform.snapshotTokenizationAll({ transformation: "b" })).toEqual([]);
  });
});
