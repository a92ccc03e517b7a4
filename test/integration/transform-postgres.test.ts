// Against a real PostgreSQL, through the provider: restoreTokenization restores something (tokens
// whose rows were lost decode again), and a StoreSchema follows its Store to a new schema.
import { describe, expect, it } from "vitest";
import { makeContext } from "../../src/core/context";
import { call } from "../../src/runtime";
import { writeProgram } from "../../src/import/program";
import { walk } from "../../src/import/walk";
import * as transform from "../../src/secrets/transform";
import { checked, created, type Props } from "../support/calls";
import { secretsApi, useEmulator } from "../support/emulator";
import { rejectionOf } from "../support/errors";
import { usePostgres } from "../support/postgres";

const { emu } = useEmulator();
const raw = (path: string, body?: unknown) => secretsApi(emu, "POST", `/transform/${path}`, body);

describe("transform stores on a real PostgreSQL", () => {
  const app = { username: "restorer", password: "restorer-pw-1" };
  const db = usePostgres(app);

  it("pulumi-svc-import writes a SQL store with its credentials from stack config, and the transformation using it after it", async () => {
    const pg = db();
    const connection = `postgresql://{{username}}:{{password}}@127.0.0.1:${pg.port}/postgres`;
    const store = await raw("stores/imported", { type: "sql", driver: "postgres", connection_string: connection, username: app.username, password: app.password, schema: "vault" });
    expect(store.status, JSON.stringify(store.body)).toBe(204);
    expect((await raw("stores/imported/schema", { username: pg.admin.username, password: pg.admin.password })).status).toBe(204);
    expect((await raw("transformations/tokenization/cards", { stores: ["imported"] })).status).toBe(204);
    const { found } = await walk(makeContext(), { workspaces: [], mounts: {} }, () => {}, { runs: false, secrets: true });
    const { program, config } = await writeProgram(found, { workspaces: [] });
    expect(program).toContain(`connectionString: ${JSON.stringify(connection)}`);
    expect(program).toContain('username: config.require("importedUsername")');
    expect(program).toContain('password: config.requireSecret("importedPassword")');
    expect(program).toContain("stores: [importedStore.name]");
    expect(program.indexOf("importedStore = ")).toBeLessThan(program.indexOf("stores: [importedStore.name]"));
    expect(program).not.toContain(app.password);
    expect(config.map((c) => [c.key, c.secret])).toEqual([["importedUsername", false], ["importedPassword", true]]);
  });

  it("snapshot, rows deleted in the database, tokens undecodable; restore in chunks; every token decodes again", async () => {
    const pg = db();
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

  it("a StoreSchema given the Store's outputs makes the tables in the Store's new schema when it moves", async () => {
    const pg = db();
    const connectionString = `postgresql://{{username}}:{{password}}@127.0.0.1:${pg.port}/postgres`;
    const store = { name: "moving", driver: "postgres", connectionString, username: app.username, password: app.password, schema: "before_move" };
    const s = await created("secrets:TransformStore", store);
    const args = { store: "moving", username: pg.admin.username, password: pg.admin.password, connectionString, schema: "before_move" };
    const schema = await created("secrets:TransformStoreSchema", args);
    const tables = (name: string) => pg.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", [name]);
    expect(await tables("before_move")).toEqual([{ table_name: "transform_keys" }, { table_name: "transform_tokens" }]);

    const { outs: moved } = (await call("secrets:TransformStore", "update", [s.id, s.outs, await checked("secrets:TransformStore", { ...store, schema: "after_move" }, s.outs)])) as { outs: Props };
    expect(moved.schema).toBe("after_move");
    const news = await checked("secrets:TransformStoreSchema", { ...args, schema: moved.schema }, schema.outs);
    expect(await call("secrets:TransformStoreSchema", "diff", [schema.id, schema.outs, news])).toMatchObject({ changes: true, replaces: [] });
    await call("secrets:TransformStoreSchema", "update", [schema.id, schema.outs, news]);
    expect(await tables("after_move")).toEqual([{ table_name: "transform_keys" }, { table_name: "transform_tokens" }]);

    // Tokens now go to the new schema's tables.
    expect((await raw("transformations/tokenization/moved", { stores: ["moving"], allowed_roles: ["m"] })).status).toBe(204);
    expect((await raw("role/m", { transformations: ["moved"] })).status).toBe(204);
    const token = (await transform.encode({ role: "m", value: "moved-value" })).encodedValue!;
    expect(await pg.query("SELECT 1 FROM after_move.transform_tokens")).toHaveLength(1);
    expect(await transform.decode({ role: "m", value: token })).toEqual({ decodedValue: "moved-value" });
  });
});
