// Named fault scenarios of issue 7: a create or rotation whose response was lost, refused with a
// 429 after the server acted, or failed half way must never take, duplicate or lose an object.
import { afterEach, describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { PartialFailure } from "../../src/core/definition";
import { checked, created, type Props } from "../support/calls";
import { control, requests, runApi, secretsApi, useEmulator } from "../support/emulator";

const { emu } = useEmulator({ secretsToken: "secretsRoot" });
const RUN = "runs:Run";
const NC = "runs:NotificationConfiguration";
const KEY = "secrets:KeymgmtKey";
const ALIAS = "secrets:IdentityEntityAlias";
const MFA = "secrets:MfaDualFactorMethod";

const fault = (body: Record<string, unknown>) => control(emu, "POST", "/faults", body);
const faultsLeft = async () => (await control<{ faults: unknown[] }>(emu, "GET", "/faults")).faults;
const runIds = async (): Promise<string[]> =>
  (await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/runs?page[size]=100`)).body.data.map((r: { id: string }) => r.id);
const ncIds = async (): Promise<string[]> =>
  (await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/notification-configurations?page[size]=100`)).body.data.map((r: { id: string }) => r.id);
const listed = async (path: string): Promise<string[]> => {
  const r = await secretsApi(emu, "LIST", path);
  return r.status === 404 ? [] : r.body.data.keys;
};
const runPost = () => ({ method: "POST", path: "/api/v2/runs" });
const ncPost = () => ({ method: "POST", path: `/api/v2/workspaces/${emu.workspaceId}/notification-configurations` });
const run = (release: string) => ({ workspaceId: emu.workspaceId, message: "deploy", pollIntervalSeconds: 0.02, triggers: { release } });
const nc = (triggers: string[]) => ({ workspaceId: emu.workspaceId, name: "ci", destinationType: "generic", url: "https://hooks.example.com/ci", triggers });

afterEach(() => {
  process.env.SVC_RUN_TOKEN = emu.tokens.runAdmin;
});

describe("a create that failed ambiguously never takes an object that existed before it", () => {
  it("Run replaced for triggers 42 → 43 with a 503 on POST /runs before the server acted: a new run is queued, not run-A", async () => {
    const a = await created(RUN, run("42"));
    await call(RUN, "delete", [a.id, a.outs]); // delete-first replacement discards run-A
    await fault({ ...runPost(), status: 503, when: "before" });
    const b = await created(RUN, run("43"));
    expect(b.id).not.toBe(a.id);
    expect(b.outs.status).toBe("pending");
    expect((await runIds()).sort()).toEqual([a.id, b.id].sort());
  });

  it("ten Runs that differ only in triggers, five responses lost after the server acted: ten distinct runs, no duplicates", async () => {
    await fault({ ...runPost(), status: 503, when: "after", count: 5 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => created(RUN, run(String(i)))));
    const ids = results.map((r) => r.id);
    expect(new Set(ids).size).toBe(10);
    expect((await runIds()).sort()).toEqual([...ids].sort());
  });

  it("a second configuration 'ci' with the same url but other triggers, 503 before the server acted, is a new object", async () => {
    const first = await created(NC, nc(["run:completed"]));
    await fault({ ...ncPost(), status: 503, when: "before" });
    const second = await created(NC, nc(["run:errored"]));
    expect(second.id).not.toBe(first.id);
    expect((await ncIds()).sort()).toEqual([first.id, second.id].sort());
  });

  const methodBody = { secret_key: "s3cr3t-key-0001", integration_key: "int-key-0001", api_hostname: "api-1.example.com" };
  const method = { secretKey: "s3cr3t-key-0001", integrationKey: "int-key-0001", apiHostname: "api-1.example.com" };
  const methods = "/identity/mfa/method/dualfactor";

  it.each(["before", "after"])("an MFA method with other settings made before the attempt, 503 %s the server acted: the create gets a method of its own", async (when) => {
    expect((await secretsApi(emu, "POST", methods, { ...methodBody, api_hostname: "api-2.example.com" })).status).toBe(200);
    const [old] = await listed(methods);
    await fault({ method: "POST", path: `/v1${methods}`, status: 503, when });
    const m = await created(MFA, method);
    expect(await faultsLeft(), "the create met the fault").toEqual([]);
    expect(m.id).not.toBe(old);
    expect((await listed(methods)).sort()).toEqual([old, m.id].sort());
  });

  it("an MFA method with the same settings made before: never taken, never duplicated; the create says how to go on and sends nothing", async () => {
    expect((await secretsApi(emu, "POST", methods, methodBody)).status).toBe(200);
    const [old] = await listed(methods);
    await control(emu, "DELETE", "/requests");
    await expect(created(MFA, method)).rejects.toThrow(new RegExp(`exists already \\(${old}\\).*npx pulumi-svc-recover.*adoptId`));
    expect((await requests(emu)).filter((r) => r.method === "POST")).toEqual([]);
    expect(await listed(methods)).toEqual([old]);
  });

  const aliasBody = { name: "carol", canonical_id: "ent-alice0000000001", mount_accessor: "auth_userpass_1234abcd" };
  const alias = { name: "carol", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd" };
  const aliases = "/identity/entity-alias/id";

  it.each(["before", "after"])("an alias with the same name, mount and entity made before the attempt, 503 %s the server acted: never taken, the service's clash is reported", async (when) => {
    expect((await secretsApi(emu, "POST", "/identity/entity-alias", aliasBody)).status).toBeLessThan(300);
    const [old] = await listed(aliases);
    await fault({ method: "POST", path: "/v1/identity/entity-alias", status: 503, when });
    // The service allows one alias per name on a mount: the program must adopt nothing silently.
    await expect(created(ALIAS, alias)).rejects.toThrow(/already exists on mount accessor.*holds the name: set adoptId/);
    expect(await faultsLeft(), "the create met the fault").toEqual([]);
    expect(await listed(aliases)).toEqual([old]);
    expect((await secretsApi(emu, "GET", `${aliases}/${old}`)).body.data).toMatchObject(aliasBody);
  });
});

describe("a 429 is not proof that nothing happened: the create looks before posting again", () => {
  it.each([
    ["with Retry-After", { retryAfter: 0 }],
    ["without Retry-After", { status: 429 }],
  ])("notification configuration, run, MFA method and alias: one object each after a 429 %s answered after the server acted", async (_name, how) => {
    await fault({ ...ncPost(), ...how, when: "after" });
    const n = await created(NC, nc(["run:completed"]));
    expect(await ncIds()).toEqual([n.id]);

    await fault({ ...runPost(), ...how, when: "after" });
    const r = await created(RUN, run("1"));
    expect(await runIds()).toEqual([r.id]);

    const methodsBefore = await listed("/identity/mfa/method/dualfactor");
    await fault({ method: "POST", path: "/v1/identity/mfa/method/dualfactor", ...how, when: "after" });
    const m = await created(MFA, { secretKey: "s3cr3t-key-0001", integrationKey: "int-key-0001", apiHostname: "api-1.example.com" });
    expect((await listed("/identity/mfa/method/dualfactor")).filter((id) => !methodsBefore.includes(id))).toEqual([m.id]);

    const aliasesBefore = await listed("/identity/entity-alias/id");
    await fault({ method: "POST", path: "/v1/identity/entity-alias", ...how, when: "after" });
    const al = await created(ALIAS, { name: "carol", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd" });
    expect((await listed("/identity/entity-alias/id")).filter((id) => !aliasesBefore.includes(id))).toEqual([al.id]);
  });
});

describe("a rotation whose response was lost records what the server did", () => {
  const key = (trigger: string, more: Props = {}) => ({ name: "k", type: "aes256-gcm96", rotationTrigger: trigger, ...more });
  const latest = async () => (await secretsApi(emu, "GET", "/keymgmt/key/k")).body.data.latest_version;

  it("a dropped response to POST /keymgmt/key/k/rotate: the key is at version 2, state records the new trigger, the next up does not rotate", async () => {
    const { id, outs } = await created(KEY, key("1"));
    await fault({ method: "POST", path: "/v1/keymgmt/key/k/rotate", drop: true, when: "after" });
    const news = await checked(KEY, key("2"), outs);
    const { outs: after } = (await call(KEY, "update", [id, outs, news])) as { outs: Props };
    expect(await latest()).toBe(2);
    expect(after).toMatchObject({ rotationTrigger: "2", latestVersion: 2 });
    expect(await call(KEY, "diff", [id, after, news])).toMatchObject({ changes: false });
  });

  it("a rotation refused before the server acted is not recorded: state keeps the old trigger and the next up rotates", async () => {
    const { id, outs } = await created(KEY, key("1"));
    await fault({ method: "POST", path: "/v1/keymgmt/key/k/rotate", status: 503, when: "before", count: 10 });
    const news = await checked(KEY, key("2"), outs);
    await expect(call(KEY, "update", [id, outs, news])).rejects.toThrow(/503/);
    expect(await latest()).toBe(1);
  });
});

describe("a partial failure records the server's values, not the program's", () => {
  it("Key create whose second write failed records deletionAllowed false (what the server has); the next diff shows the change", async () => {
    const inputs = await checked(KEY, { name: "k", type: "aes256-gcm96", deletionAllowed: true });
    // The first write (create) passes; the configuring write to the same path fails.
    await fault({ method: "POST", path: "/v1/keymgmt/key/k", status: 400, skip: 1 });
    const err = await (call(KEY, "create", [inputs]) as Promise<unknown>).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PartialFailure);
    const kept = (err as PartialFailure).properties;
    expect(kept).toMatchObject({ deletionAllowed: false, latestVersion: 1 });
    expect((await secretsApi(emu, "GET", "/keymgmt/key/k")).body.data.deletion_allowed).toBe(false);
    expect(await call(KEY, "diff", ["keymgmt/key/k", kept, inputs])).toMatchObject({ changes: true, replaces: [] });
  });
});

describe("404 on the run service means 'not found or unauthorized'", () => {
  it("refresh with a token that cannot see the workspace keeps the configuration and says so; delete does not count as done", async () => {
    const { id, outs } = await created(NC, nc(["run:completed"]));
    process.env.SVC_RUN_TOKEN = emu.tokens.runMember;
    await expect(call(NC, "read", [id, outs])).rejects.toThrow(/not found or unauthorized.*cannot see workspace/);
    await expect(call(NC, "delete", [id, outs])).rejects.toThrow(/kept in state and nothing counts as deleted/);
    process.env.SVC_RUN_TOKEN = emu.tokens.runAdmin;
    expect(await ncIds()).toEqual([id]);
  });

  it("with a token that sees the workspace, a 404 is proof: refresh drops, delete is done", async () => {
    const { id, outs } = await created(NC, nc(["run:completed"]));
    await runApi(emu, "DELETE", `/notification-configurations/${id}`);
    expect(await call(NC, "read", [id, outs])).toEqual({ id: "", props: {} });
    await expect(call(NC, "delete", [id, outs])).resolves.toBeUndefined();
  });
});
