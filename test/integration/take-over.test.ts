// Take-over by id (`adoptId`) of the objects whose id the service assigns: notification
// configurations, entity aliases, dual-factor methods. Through the in-process runtime, as the
// engine calls the provider; the holders rule with URNs, as the provider host sees them.
import { describe, expect, it, vi } from "vitest";
import { call, forgetDeployment } from "../../src/runtime";
import { checked, failures, type Props, type Res } from "../support/calls";
import { control, requests, runApi, secretsApi, useEmulator } from "../support/emulator";
import { rejectionOf } from "../support/errors";

const { emu } = useEmulator();
const NC = "runs:NotificationConfiguration";
const ALIAS = "secrets:IdentityEntityAlias";
const MFA = "secrets:MfaDualFactorMethod";
const urn = (kind: string, name: string) => `urn:pulumi:dev::p::pulumi-nodejs:dynamic/${kind}::${name}`;

async function existingNc(attributes: Props = {}): Promise<string> {
  const r = await runApi(emu, "POST", `/workspaces/${emu.workspaceId}/notification-configurations`, {
    data: { type: "notification-configurations", attributes: { name: "by-hand", "destination-type": "generic", enabled: false, url: "https://hooks.example/a", triggers: ["run:completed"], ...attributes } },
  });
  expect(r.status).toBe(201);
  return r.body.data.id as string;
}

const ncArgs = (adoptId: string, extra: Props = {}) =>
  ({ workspaceId: emu.workspaceId, name: "by-hand", destinationType: "generic", url: "https://hooks.example/a", triggers: ["run:completed"], adoptId, ...extra });

const writes = async () => (await requests(emu)).filter((r) => !["GET", "LIST"].includes(r.method));
const clearLog = () => control(emu, "DELETE", "/requests");

describe("every take-over says the service records no owner (issue 45: two stacks took over the same objects)", () => {
  const warned = async (fn: () => Promise<unknown>) => {
    const spy = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      await fn();
      return spy.mock.calls.map((c) => String(c[0])).filter((l) => l.includes("taken over from outside this stack"));
    } finally {
      spy.mockRestore();
    }
  };
  const said = (id: string) => `pulumi-svc: ${id}: taken over from outside this stack. The service records no owner: if another stack takes it over too ` +
    "(the same import deployed to two stacks), either one's destroy deletes it for both, and the other's plain preview still says unchanged; " +
    'pulumi preview --refresh shows it gone (docs/adopting.md, "One object, one stack")';

  it("adoptId, and adopt: true over an object that exists (as it is, or written over); not a create that makes its object", async () => {
    const id = await existingNc();
    expect(await warned(async () => call(NC, "create", [await checked(NC, ncArgs(id))]))).toEqual([expect.stringContaining(said(id))]);
    await secretsApi(emu, "POST", "/transform/alphabet/same", { alphabet: "01" });
    await secretsApi(emu, "POST", "/transform/alphabet/other", { alphabet: "01" });
    const alphabet = (name: string) => call("secrets:TransformAlphabet", "create", [{ name, alphabet: "01", mount: "transform", adopt: true }]);
    expect(await warned(() => alphabet("same"))).toEqual([expect.stringContaining(said("transform/alphabet/same"))]);
    expect(await warned(async () => call("secrets:TransformAlphabet", "create", [{ name: "other", alphabet: "012", mount: "transform", adopt: true }])))
      .toEqual([expect.stringContaining(said("transform/alphabet/other"))]);
    expect(await warned(() => alphabet("fresh"))).toEqual([]);
  });
});

describe("take over by id (adoptId)", () => {
  it("a notification configuration as it is: its id kept, nothing written, and no diff after", async () => {
    const id = await existingNc();
    await clearLog();
    const inputs = await checked(NC, ncArgs(id));
    const r = (await call(NC, "create", [inputs])) as Res;
    expect(r.id).toBe(id);
    expect(r.outs).toMatchObject({ name: "by-hand", triggers: ["run:completed"], enabled: false, adoptId: id });
    expect(await writes()).toEqual([]);
    expect(await call(NC, "diff", [id, r.outs, inputs])).toMatchObject({ changes: false });
    const listed = await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/notification-configurations`);
    expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([id]);
  });

  it("writes what differs from the program, and a token given (it cannot be read)", async () => {
    const id = await existingNc();
    await clearLog();
    const r = (await call(NC, "create", [await checked(NC, ncArgs(id, { triggers: ["run:completed", "run:errored"] }))])) as Res;
    expect(r.id).toBe(id);
    expect((await runApi(emu, "GET", `/notification-configurations/${id}`)).body.data.attributes.triggers.sort()).toEqual(["run:completed", "run:errored"]);
    expect((await writes()).map((w) => `${w.method} ${w.path}`)).toEqual([`PATCH /api/v2/notification-configurations/${id}`]);
    const other = await existingNc({ name: "second" });
    await clearLog();
    const t = (await call(NC, "create", [await checked(NC, ncArgs(other, { name: "second", token: "adopted-token-1" }))])) as Res;
    expect(t.outs.token).toBe("adopted-token-1");
    expect(await writes()).toHaveLength(1);
    // A write that fails after the take-over: the stack holds the object with what the server has.
    const third = await existingNc({ name: "third" });
    await control(emu, "POST", "/faults", { method: "PATCH", path: `/api/v2/notification-configurations/${third}`, status: 422, count: 1 });
    const failed = await rejectionOf(call(NC, "create", [await checked(NC, ncArgs(third, { name: "renamed" }))])) as Error & { id?: string; properties?: Props };
    expect(failed.message).toContain(`(the object ${third} was taken over and is kept in state; run pulumi up again to finish)`);
    expect(failed.id).toBe(third);
    expect(failed.properties).toMatchObject({ name: "third" });
    expect((await control<{ faults: unknown[] }>(emu, "GET", "/faults")).faults).toEqual([]);
  });

  it("refuses an id that does not exist (at check, so a preview fails), or whose workspace or destination type differ, writing nothing", async () => {
    await clearLog();
    const dead = await failures(NC, ncArgs("nc-doesnotexist0001"));
    expect(Object.keys(dead)).toEqual(["adoptId"]);
    expect(dead.adoptId).toMatch(/^adoptId nc-doesnotexist0001: there is no NotificationConfiguration with this id on the server \(or the token cannot see it.*remove adoptId from this resource to create a new one/);
    // The create, given inputs no check saw (a state from before), refuses it the same way.
    const missing = await rejectionOf(call(NC, "create", [{ ...ncArgs("nc-doesnotexist0001"), serverUrl: emu.runUrl }]));
    expect(missing.code).toBe("not_found");
    expect(missing.message).toContain("adoptId nc-doesnotexist0001: there is no NotificationConfiguration with this id on the server (or the token cannot see it");
    // How to go on when the object was deleted: a new one, without adoptId.
    expect(missing.message).toMatch(/nothing was created or changed\. If it was deleted \(by hand, or by a pulumi destroy that stopped part way\), remove adoptId from this resource to create a new one \(the service gives it a new id\)$/);
    const id = await existingNc({ "destination-type": "chat-a" });
    await clearLog();
    const other = await rejectionOf(call(NC, "create", [await checked(NC, ncArgs(id))]));
    expect(other.code).toBe("conflict");
    expect(other.message).toContain(`adoptId ${id}: the NotificationConfiguration cannot be taken over: destinationType is "chat-a" there, "generic" in the program`);
    const elsewhere = await rejectionOf(call(NC, "create", [await checked(NC, ncArgs(id, { workspaceId: "ws-another000000001", destinationType: "chat-a" }))]));
    expect(elsewhere.message).toContain(`adoptId ${id}: the NotificationConfiguration cannot be taken over: workspaceId is "ws-example00000001" there, "ws-another000000001" in the program`);
    expect(await writes()).toEqual([]);
  });

  it("replaced on request (pulumi up --replace: a check without the old inputs, the delete, then the create): a new object, not the one its adoptId named", async () => {
    const id = await existingNc({ name: "forced" });
    const inputs = await checked(NC, { ...ncArgs(id, { name: "forced" }), __urn: urn("runs:NotificationConfiguration", "forced") });
    const taken = (await call(NC, "create", [inputs])) as Res;
    expect(taken.id).toBe(id);
    // The replacement's up is a provider process of its own, which has seen nothing of the resource.
    await forgetDeployment();
    const news = await checked(NC, { ...ncArgs(id, { name: "forced" }), __urn: urn("runs:NotificationConfiguration", "forced") });
    await call(NC, "delete", [taken.id, taken.outs]);
    const made = (await call(NC, "create", [news])) as Res;
    expect(made.id).not.toBe(id);
    const listed = (await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/notification-configurations`)).body.data as { id: string; attributes: { name: string } }[];
    expect(listed.filter((d) => d.attributes.name === "forced").map((d) => d.id)).toEqual([made.id]);
  });

  it("one object, one resource: a second resource cannot take over what another holds; the holder's replacement makes a new object", async () => {
    const id = await existingNc();
    const first = await checked(NC, { ...ncArgs(id), __urn: urn("runs:NotificationConfiguration", "first") });
    const taken = (await call(NC, "create", [first])) as Res;
    const second = await checked(NC, { ...ncArgs(id), __urn: urn("runs:NotificationConfiguration", "second") });
    const refused = await rejectionOf(call(NC, "create", [second]));
    expect(refused.message).toContain(`adoptId ${id}: the object is held by resource first (runs:NotificationConfiguration) of this stack`);
    // A resource that held the id before the take-over (its diff seen first) refuses it the same way.
    const held = await existingNc({ name: "held" });
    const holder = await checked(NC, { ...ncArgs(held, { name: "held" }), __urn: urn("runs:NotificationConfiguration", "holder") });
    await call(NC, "diff", [held, { ...holder, adoptId: undefined }, holder]);
    const late = await rejectionOf(call(NC, "create", [await checked(NC, { ...ncArgs(held, { name: "held" }), __urn: urn("runs:NotificationConfiguration", "late") })]));
    expect(late.message).toContain("is held by resource holder (runs:NotificationConfiguration)");
    // The engine replaces the first (its diff seen, then a create with the same URN): a new object.
    const news = await checked(NC, { ...ncArgs(id, { destinationType: "chat-a" }), __urn: urn("runs:NotificationConfiguration", "first") });
    expect(await call(NC, "diff", [taken.id, taken.outs, news])).toMatchObject({ replaces: ["destinationType"] });
    const replaced = (await call(NC, "create", [news])) as Res;
    expect(replaced.id).not.toBe(id);
    // A resource leaving the stack cannot delete the object another resource took over in this update.
    const gone = await rejectionOf(call(NC, "delete", [held, { ...holder, __urn: urn("runs:NotificationConfiguration", "old-name") }]));
    expect(gone.message).toContain(`${held} was taken over by resource holder (runs:NotificationConfiguration) (adoptId) in this update`);
    expect((await runApi(emu, "GET", `/notification-configurations/${held}`)).status).toBe(200);
  });

  it("an entity alias and a dual-factor method: taken over with what differs written, a missing id refused", async () => {
    const made = await secretsApi(emu, "POST", "/identity/entity-alias", { name: "carol", canonical_id: "ent-alice0000000001", mount_accessor: "auth_userpass_1234abcd" });
    const aliasId = made.body.data.id as string;
    await clearLog();
    const alias = (await call(ALIAS, "create", [await checked(ALIAS, { name: "carol", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd", customMetadata: { team: "a" }, adoptId: aliasId })])) as Res;
    expect(alias.id).toBe(aliasId);
    expect(alias.outs.customMetadata).toEqual({ team: "a" });
    expect((await writes()).map((w) => w.path)).toEqual([`/v1/identity/entity-alias/id/${aliasId}`]);
    expect(Object.keys(await failures(ALIAS, { name: "x", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd", adoptId: "0f0f0f0f-0000-4000-8000-000000000000" }))).toEqual(["adoptId"]);

    const method = await secretsApi(emu, "POST", "/identity/mfa/method/dualfactor", { secret_key: "duo-secret-key-take-over", integration_key: "DIYYYYYYYYYYYYYYYYYY", api_hostname: "api-1.example.com" });
    const methodId = (method.body.data.method_id ?? method.body.data.id) as string;
    await clearLog();
    const same = (await call(MFA, "create", [await checked(MFA, { secretKey: "duo-secret-key-take-over", integrationKey: "DIYYYYYYYYYYYYYYYYYY", apiHostname: "api-1.example.com", adoptId: methodId })])) as Res;
    expect(same.id).toBe(methodId);
    expect(await writes()).toEqual([]);
  });
});
