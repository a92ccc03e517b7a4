import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import * as identity from "../../src/secrets/identity";
import { checked, created, type Props } from "../support/calls";
import { control, requests, secretsApi, useEmulator } from "../support/emulator";

const { emu } = useEmulator();
const ALIAS = "secrets:IdentityEntityAlias";
const ALICE = "ent-alice0000000001";
const BOB = "ent-bob000000000001";
const USERPASS = "auth_userpass_1234abcd";
const APPROLE = "auth_approle_5678abcd";

const raw = (method: string, path: string, body?: unknown) => secretsApi(emu, method, path, body);

const aliasIds = async (): Promise<string[]> => {
  const r = await raw("LIST", "/identity/entity-alias/id");
  return r.status === 404 ? [] : r.body.data.keys;
};

describe("identity EntityAlias", () => {
  it("creates (server-assigned id), reads the whole alias, updates in place and deletes", async () => {
    const { id, outs } = await created(ALIAS, { name: "alice", canonicalId: ALICE, mountAccessor: USERPASS, customMetadata: { team: "payments" } });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(outs).toEqual({
      name: "alice", canonicalId: ALICE, mountAccessor: USERPASS, customMetadata: { team: "payments" }, serverUrl: emu.secretsUrl,
      mountPath: "auth/userpass/", mountType: "userpass", metadata: {}, local: false,
      creationTime: expect.any(String), lastUpdateTime: expect.any(String),
    });
    expect(await call(ALIAS, "read", [id, outs])).toEqual({ id, props: outs, inputs: expect.any(Object) });

    const news = await checked(ALIAS, { name: "alice", canonicalId: BOB, mountAccessor: USERPASS }, outs);
    expect(await call(ALIAS, "diff", [id, outs, news])).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs: after } = (await call(ALIAS, "update", [id, outs, news])) as { outs: Props };
    expect(after).toMatchObject({ canonicalId: BOB });
    // Removing customMetadata clears it on the service; state has no empty map, so no diff.
    expect(after).not.toHaveProperty("customMetadata");
    expect((await raw("GET", `/identity/entity-alias/id/${id}`)).body.data).toMatchObject({ canonical_id: BOB, custom_metadata: {} });
    expect(await call(ALIAS, "diff", [id, after, news])).toMatchObject({ changes: false });

    await call(ALIAS, "delete", [id, after]);
    expect((await raw("GET", `/identity/entity-alias/id/${id}`)).status).toBe(404);
  });

  it("moves an alias to another mount in place (same id)", async () => {
    const { id, outs } = await created(ALIAS, { name: "ci-role", canonicalId: ALICE, mountAccessor: USERPASS });
    const news = await checked(ALIAS, { name: "ci-role", canonicalId: ALICE, mountAccessor: APPROLE }, outs);
    const { outs: after } = (await call(ALIAS, "update", [id, outs, news])) as { outs: Props };
    expect(after).toMatchObject({ mountAccessor: APPROLE, mountType: "approle", mountPath: "auth/approle/" });
    expect(await aliasIds()).toEqual([id]);
  });

  it("does not create a duplicate when the create response is lost", async () => {
    await control(emu, "POST", "/faults", { method: "POST", path: "/v1/identity/entity-alias", when: "after", drop: true, count: 1 });
    const { id, outs } = await created(ALIAS, { name: "bob", canonicalId: BOB, mountAccessor: USERPASS });
    expect(outs).toMatchObject({ name: "bob", canonicalId: BOB });
    expect(await aliasIds()).toEqual([id]);
    const posts = (await requests(emu)).filter((r) => r.method === "POST" && r.path === "/v1/identity/entity-alias");
    expect(posts).toHaveLength(1);
  });

  it("tries again when a create failed before the service acted", async () => {
    await control(emu, "POST", "/faults", { method: "POST", path: "/v1/identity/entity-alias", status: 503, count: 1 });
    const { id } = await created(ALIAS, { name: "carol", canonicalId: ALICE, mountAccessor: USERPASS });
    expect(await aliasIds()).toEqual([id]);
    const posts = (await requests(emu)).filter((r) => r.method === "POST" && r.path === "/v1/identity/entity-alias");
    expect(posts.map((p) => p.status)).toEqual([503, 200]);
  });

  it("never takes over an alias someone else made earlier with the same name", async () => {
    const theirs = await created(ALIAS, { name: "dave", canonicalId: ALICE, mountAccessor: USERPASS });
    // Every attempt fails before the service acts: the lookup must not mistake theirs for ours.
    await control(emu, "POST", "/faults", { method: "POST", path: "/v1/identity/entity-alias", status: 503, count: 3 });
    const err = await created(ALIAS, { name: "dave", canonicalId: BOB, mountAccessor: USERPASS }).catch((e) => e);
    expect(err.code).toBe("server");
    const posts = (await requests(emu)).filter((r) => r.method === "POST" && r.path === "/v1/identity/entity-alias");
    expect(posts.map((p) => p.status)).toEqual([200, 503, 503, 503]);
    expect(await aliasIds()).toEqual([theirs.id]);
    expect((await raw("GET", `/identity/entity-alias/id/${theirs.id}`)).body.data.canonical_id).toBe(ALICE);
  });

  it("surfaces the service's refusal of a duplicate name on a mount and an unknown entity", async () => {
    await created(ALIAS, { name: "erin", canonicalId: ALICE, mountAccessor: USERPASS });
    const dup = await created(ALIAS, { name: "erin", canonicalId: BOB, mountAccessor: USERPASS }).catch((e) => e);
    expect(dup.code).toBe("invalid_input");
    expect(dup.message).toMatch(/^POST \/identity\/entity-alias: 400 Bad Request: .*already exists/);
    const unknown = await created(ALIAS, { name: "frank", canonicalId: "ent-nobody", mountAccessor: USERPASS }).catch((e) => e);
    expect(unknown.message).toMatch(/canonical_id/);
  });

  it("drops an alias deleted out of band on refresh; delete of a gone alias succeeds", async () => {
    const { id, outs } = await created(ALIAS, { name: "gone", canonicalId: ALICE, mountAccessor: USERPASS });
    await raw("DELETE", `/identity/entity-alias/id/${id}`);
    expect(await call(ALIAS, "read", [id, outs])).toEqual({ id: "", props: {} });
    await expect(call(ALIAS, "delete", [id, outs])).resolves.toBeUndefined();
  });

  it("rejects bad inputs in check, naming the property, without a request", async () => {
    await control(emu, "DELETE", "/requests");
    const r = (await call(ALIAS, "check", [{}, { name: "x", canonicalId: "", mountAccessor: USERPASS, customMetadata: { a: 1 } }])) as { failures: { property: string }[] };
    expect(r.failures.map((f) => f.property).sort()).toEqual(["canonicalId", "customMetadata.a"]);
    expect(await requests(emu)).toEqual([]);
  });

  it("works with entities and mounts added through the control endpoint", async () => {
    const seeded = await control<{ entities: { id: string }[]; authMounts: { accessor: string }[] }>(emu, "POST", "/identity", {
      entities: [{ name: "svc-deployer" }], authMounts: [{ path: "ldap", type: "ldap", local: true }],
    });
    const { outs } = await created(ALIAS, { name: "deployer", canonicalId: seeded.entities[0].id, mountAccessor: seeded.authMounts[0].accessor });
    expect(outs).toMatchObject({ mountType: "ldap", local: true });
  });

  it("lists ids (404 is an empty list) and reads an alias with the functions", async () => {
    expect(await identity.listEntityAliases()).toEqual({ keys: [] });
    const { id } = await created(ALIAS, { name: "gina", canonicalId: ALICE, mountAccessor: USERPASS });
    expect(await identity.listEntityAliases()).toEqual({ keys: [id] });
    expect(await identity.getEntityAlias({ id })).toMatchObject({ id, name: "gina", canonicalId: ALICE, customMetadata: {}, mountType: "userpass" });
    await expect(identity.getEntityAlias({ id: "nope" })).rejects.toMatchObject({ code: "not_found" });
  });
});
