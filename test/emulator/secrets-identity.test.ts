import { describe, expect, test } from "vitest";
import { secretsApi, svcToken, useStateFile } from "./helpers";
import { call } from "../support/http";
import { controlResponse, useEmulator } from "../support/emulator";

const { emu } = useEmulator();
const { root, url, post, get, del } = secretsApi(emu);

const ALICE = "ent-alice0000000001";
const BOB = "ent-bob000000000001";
const USERPASS = "auth_userpass_1234abcd";
const APPROLE = "auth_approle_5678abcd";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function alias(body: Record<string, unknown> = {}): Promise<string> {
  const res = await post("identity/entity-alias", { name: "alice", canonical_id: ALICE, mount_accessor: USERPASS, ...body });
  expect(res.status).toBe(200);
  return res.json.data.id;
}

describe("seeded identity", () => {
  test("entities and auth mounts are seeded and listed by the control endpoint", async () => {
    const res = await controlResponse(emu, "GET", "/identity");
    expect(res.status).toBe(200);
    expect(res.json.entities).toEqual([
      { id: ALICE, name: "alice" },
      { id: BOB, name: "bob" },
    ]);
    expect(res.json.authMounts).toEqual([
      { accessor: USERPASS, path: "userpass/", type: "userpass", local: false },
      { accessor: APPROLE, path: "approle/", type: "approle", local: false },
    ]);
  });
});

describe("entity aliases", () => {
  test("create returns canonical_id and a server-assigned id; read returns the whole alias", async () => {
    const res = await post("identity/entity-alias", { name: "alice", canonical_id: ALICE, mount_accessor: USERPASS, custom_metadata: { team: "a" } });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ canonical_id: ALICE, id: expect.stringMatching(UUID) });
    const read = await get(`identity/entity-alias/id/${res.json.data.id}`);
    expect(read.status).toBe(200);
    expect(read.json.data).toEqual({
      id: res.json.data.id,
      name: "alice",
      canonical_id: ALICE,
      mount_accessor: USERPASS,
      mount_path: "auth/userpass/",
      mount_type: "userpass",
      custom_metadata: { team: "a" },
      metadata: {},
      local: false,
      creation_time: expect.any(String),
      last_update_time: expect.any(String),
    });
    expect(read.json.data.creation_time).toBe(read.json.data.last_update_time);
    expect(Number.isNaN(Date.parse(read.json.data.creation_time))).toBe(false);
  });

  test("two creates give two ids", async () => {
    const a = await alias();
    const b = await alias({ mount_accessor: APPROLE });
    expect(a).not.toBe(b);
  });

  test("POST with id updates that alias; creation_time and omitted custom_metadata stay", async () => {
    const id = await alias({ custom_metadata: { k: "v" } });
    const before = (await get(`identity/entity-alias/id/${id}`)).json.data;
    await new Promise((r) => setTimeout(r, 5));
    const res = await post("identity/entity-alias", { id, name: "alice2", canonical_id: BOB, mount_accessor: APPROLE });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ canonical_id: BOB, id });
    const after = (await get(`identity/entity-alias/id/${id}`)).json.data;
    expect(after).toMatchObject({ id, name: "alice2", canonical_id: BOB, mount_accessor: APPROLE, mount_path: "auth/approle/", mount_type: "approle", custom_metadata: { k: "v" } });
    expect(after.creation_time).toBe(before.creation_time);
    expect(Date.parse(after.last_update_time)).toBeGreaterThan(Date.parse(before.last_update_time));
    expect((await call("LIST", url("identity/entity-alias/id"), { headers: root() })).json.data.keys).toEqual([id]);
  });

  test("POST id/:id updates; an unknown id there is 404, and a different id in the body is 400", async () => {
    const id = await alias();
    const res = await post(`identity/entity-alias/id/${id}`, { name: "a2", canonical_id: ALICE, mount_accessor: USERPASS, custom_metadata: {} });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ canonical_id: ALICE, id });
    expect((await get(`identity/entity-alias/id/${id}`)).json.data).toMatchObject({ name: "a2", custom_metadata: {} });
    const unknown = await post("identity/entity-alias/id/00000000-0000-4000-8000-000000000000", { name: "x", canonical_id: ALICE, mount_accessor: USERPASS });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ errors: [] });
    const mismatch = await post(`identity/entity-alias/id/${id}`, { id: "other", name: "x", canonical_id: ALICE, mount_accessor: USERPASS });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.errors[0]).toContain("id");
  });

  test("POST with an unknown id is refused instead of creating", async () => {
    const res = await post("identity/entity-alias", { id: "nope", name: "alice", canonical_id: ALICE, mount_accessor: USERPASS });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain('id: no entity alias with id "nope"');
    expect((await call("LIST", url("identity/entity-alias/id"), { headers: root() })).status).toBe(404);
  });

  test("a name is unique per mount accessor", async () => {
    const first = await alias();
    const clash = await post("identity/entity-alias", { name: "alice", canonical_id: BOB, mount_accessor: USERPASS });
    expect(clash.status).toBe(400);
    expect(clash.json.errors[0]).toContain('alias "alice" already exists on mount accessor "auth_userpass_1234abcd"');
    expect(clash.json.errors[0]).toContain(first);
    // The same name on another auth mount is a different client identifier.
    const other = await alias({ mount_accessor: APPROLE });
    // Renaming onto a taken name is refused; keeping one's own name is not a clash.
    const rename = await post(`identity/entity-alias/id/${other}`, { name: "alice", canonical_id: ALICE, mount_accessor: USERPASS });
    expect(rename.status).toBe(400);
    expect((await post(`identity/entity-alias/id/${first}`, { name: "alice", canonical_id: BOB, mount_accessor: USERPASS })).status).toBe(200);
  });

  test.each([
    [{ canonical_id: ALICE, mount_accessor: USERPASS }, "missing name"],
    [{ name: "", canonical_id: ALICE, mount_accessor: USERPASS }, "missing name"],
    [{ name: "x", mount_accessor: USERPASS }, "missing canonical_id"],
    [{ name: "x", canonical_id: ALICE }, "missing mount_accessor"],
    [{ name: "x", canonical_id: "ent-nobody", mount_accessor: USERPASS }, 'canonical_id: no entity with id "ent-nobody"'],
    [{ name: "x", canonical_id: ALICE, mount_accessor: "auth_ldap_00000000" }, 'mount_accessor: no auth mount with accessor "auth_ldap_00000000"'],
    [{ name: "x", canonical_id: ALICE, mount_accessor: USERPASS, custom_metadata: { n: 1 } }, "custom_metadata.n"],
    [{ name: 5, canonical_id: ALICE, mount_accessor: USERPASS }, "name must be a string"],
  ])("invalid %j → 400 naming %s", async (body, message) => {
    const res = await post("identity/entity-alias", body);
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([expect.stringContaining(message)]);
    expect((await call("LIST", url("identity/entity-alias/id"), { headers: root() })).status).toBe(404);
  });

  test("LIST and GET ?list=true give the ids; empty → 404; delete → 204 and the alias is gone", async () => {
    const empty = await call("LIST", url("identity/entity-alias/id"), { headers: root() });
    expect(empty.status).toBe(404);
    expect(empty.json).toEqual({ errors: [] });
    const a = await alias();
    const b = await alias({ name: "bob", canonical_id: BOB });
    const expected = [a, b].sort();
    expect((await call("LIST", url("identity/entity-alias/id"), { headers: root() })).json.data).toEqual({ keys: expected });
    expect((await get("identity/entity-alias/id?list=true")).json.data).toEqual({ keys: expected });
    expect((await get("identity/entity-alias/id")).status).toBe(405);
    expect((await del(`identity/entity-alias/id/${a}`)).status).toBe(204);
    const gone = await get(`identity/entity-alias/id/${a}`);
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ errors: [] });
    expect((await del(`identity/entity-alias/id/${a}`)).status).toBe(204);
    expect((await get("identity/entity-alias/id?list=true")).json.data.keys).toEqual([b]);
  });

  test("identity needs a token, and unknown identity paths have no handler", async () => {
    expect((await call("GET", url("identity/entity-alias/id?list=true"))).status).toBe(403);
    const res = await get("identity/entity/id/x");
    expect(res.status).toBe(404);
    expect(res.json.errors[0]).toContain("no handler for route");
  });
});

describe("the identity control endpoint", () => {
  test("adds entities and auth mounts that aliases can use", async () => {
    const res = await controlResponse(emu, "POST", "/identity", { entities: [{ name: "carol" }, { id: "ent-dave", name: "dave" }], authMounts: [{ path: "ldap", type: "ldap" }, { path: "/auth/edge/", type: "approle", accessor: "auth_approle_edge0001", local: true }] });
    expect(res.status).toBe(200);
    expect(res.json.entities).toEqual([
      { id: expect.stringMatching(/^ent-[A-Za-z0-9]{16}$/), name: "carol" },
      { id: "ent-dave", name: "dave" },
    ]);
    expect(res.json.authMounts).toEqual([
      { accessor: expect.stringMatching(/^auth_ldap_[0-9a-f]{8}$/), path: "ldap/", type: "ldap", local: false },
      { accessor: "auth_approle_edge0001", path: "edge/", type: "approle", local: true },
    ]);
    const carol = res.json.entities[0].id;
    const ldap = res.json.authMounts[0].accessor;
    const id = await alias({ name: "carol", canonical_id: carol, mount_accessor: ldap });
    expect((await get(`identity/entity-alias/id/${id}`)).json.data).toMatchObject({ canonical_id: carol, mount_path: "auth/ldap/", mount_type: "ldap", local: false });
    const edge = await alias({ name: "dave", canonical_id: "ent-dave", mount_accessor: "auth_approle_edge0001" });
    expect((await get(`identity/entity-alias/id/${edge}`)).json.data.local).toBe(true);
  });

  test.each([
    [{ entities: [{ name: "" }] }, "entities[0].name"],
    [{ entities: [{ name: "x", id: "bad id" }] }, "entities[0].id"],
    [{ entities: [{ name: "alice" }] }, "taken"],
    [{ authMounts: [{ path: "x" }] }, "authMounts[0].type"],
    [{ authMounts: [{ path: "bad path", type: "ldap" }] }, "authMounts[0].path"],
    [{ authMounts: [{ path: "userpass", type: "userpass" }] }, "already mounted"],
    [{ entities: "x" }, "entities must be an array"],
  ])("invalid %j → 400 naming %s", async (body, message) => {
    const res = await controlResponse(emu, "POST", "/identity", body);
    expect(res.status).toBe(400);
    expect(res.json.error).toContain(message);
  });

  test("a bad entry leaves everything untouched", async () => {
    const res = await controlResponse(emu, "POST", "/identity", { entities: [{ name: "erin" }], authMounts: [{ path: "" }] });
    expect(res.status).toBe(400);
    expect((await controlResponse(emu, "GET", "/identity")).json.entities.map((e: { name: string }) => e.name)).toEqual(["alice", "bob"]);
  });

  test("reset restores the seeded identity data and drops aliases", async () => {
    await controlResponse(emu, "POST", "/identity", { entities: [{ id: "ent-frank", name: "frank" }] });
    const id = await alias({ canonical_id: "ent-frank" });
    await controlResponse(emu, "POST", "/reset");
    expect((await get(`identity/entity-alias/id/${id}`)).status).toBe(404);
    const seeded = await controlResponse(emu, "GET", "/identity");
    expect(seeded.json.entities.map((e: { id: string }) => e.id)).toEqual([ALICE, BOB]);
    expect(seeded.json.authMounts.map((m: { accessor: string }) => m.accessor)).toEqual([USERPASS, APPROLE]);
  });

  test("identity and sys cannot be mounted over", async () => {
    for (const path of ["identity", "identity/x", "sys/plugins"]) {
      const res = await controlResponse(emu, "POST", "/mounts", { path, type: "keymgmt" });
      expect(res.status).toBe(400);
      expect(res.json.error).toContain("reserved");
    }
  });
});

describe("identity persistence", () => {
  const state = useStateFile("emu-identity-");

  test("aliases and added entities survive a restart", async () => {
    const first = await state.start();
    await call("POST", `${first.controlUrl}/identity`, { body: { entities: [{ id: "ent-gina", name: "gina" }] } });
    const created = await call("POST", `${first.secretsUrl}/identity/entity-alias`, { headers: svcToken(first.tokens.secretsRoot), body: { name: "gina", canonical_id: "ent-gina", mount_accessor: USERPASS } });
    const before = (await call("GET", `${first.secretsUrl}/identity/entity-alias/id/${created.json.data.id}`, { headers: svcToken(first.tokens.secretsRoot) })).json.data;
    await first.close();
    const second = await state.start();
    const after = await call("GET", `${second.secretsUrl}/identity/entity-alias/id/${created.json.data.id}`, { headers: svcToken(second.tokens.secretsRoot) });
    expect(after.json.data).toEqual(before);
    expect((await call("GET", `${second.controlUrl}/identity`)).json.entities).toContainEqual({ id: "ent-gina", name: "gina" });
  });
});
