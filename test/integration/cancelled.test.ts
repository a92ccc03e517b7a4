// A deploy cancelled mid-flight (docs/behaviour.md, "When a deploy is cancelled"), against the
// emulator through the in-process runtime: check records what a create could be confused with
// before it, a create never duplicates an object whose id the service assigns, and
// pulumi-svc-recover's settling takes only the object a cancelled create made: never one that was
// there before, never one another resource holds. test/cli/cancelled.test.ts kills the real CLI.
import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { makeContext } from "../../src/core/context";
import { runDefinition } from "../../src/runs/run";
import { main } from "../../src/recover/cli";
import type { Deployment, PendingOperation } from "../../src/recover/pending";
import { checked, created, type Props } from "../support/calls";
import { requests, runApi, secretsApi, useEmulator } from "../support/emulator";
import { rejectionOf } from "../support/errors";

const { emu } = useEmulator({ secretsToken: "secretsRoot" });
const NC = "runs:NotificationConfiguration";
const MFA = "secrets:MfaDualFactorMethod";
const ALPHABET = "secrets:TransformAlphabet";
const RUN = "runs:Run";
const typeOf = (kind: string) => `pulumi-nodejs:dynamic/${kind}`;
const urn = (kind: string, name: string) => `urn:pulumi:dev::p::${typeOf(kind)}::${name}`;

const ncArgs = (name = "ci") => ({ workspaceId: emu.workspaceId, name, destinationType: "generic", url: "https://hooks.example/ci", triggers: ["run:completed"], __urn: urn(NC, name) });
const mfaArgs = () => ({ apiHostname: "api-1234abcd.example.com", secretKey: "duo-secret-key-0001", integrationKey: "DUOINTEGRATION01", __urn: urn(MFA, "duo") });
const runArgs = () => ({ workspaceId: emu.workspaceId, message: "deploy", __urn: urn(RUN, "deploy") });

const ncs = async () => (await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/notification-configurations`)).body.data as { id: string }[];

/** A stack export whose pending creates hold these checked inputs (the same twice: tokens are plain in the test). */
function exported(pending: Array<[string, string, Props]>, resources: Deployment["resources"] = []): Deployment {
  const ops: PendingOperation[] = pending.map(([kind, name, inputs]) => ({ type: "creating", resource: { urn: urn(kind, name), custom: true, type: typeOf(kind), inputs } }));
  return { resources, pending_operations: ops };
}

/** pulumi-svc-recover against a stack that exports `d`; what it imported back, its output and exit. */
async function recover(d: Deployment): Promise<{ out: string; code: number; imported?: Deployment }> {
  let imported: Deployment | undefined;
  const pulumi = (args: string[], input?: string) => {
    if (args[0] === "stack" && args[1] === "export") return JSON.stringify({ version: 3, deployment: d });
    if (args[0] === "config") return "{}";
    if (args[0] === "stack" && args[1] === "import") {
      imported = (JSON.parse(input!) as { deployment: Deployment }).deployment;
      return "";
    }
    throw new Error(`unexpected pulumi ${args.join(" ")}`);
  };
  const r = await main([], pulumi);
  return { ...r, imported };
}

describe("check records what a create could be confused with", () => {
  it("on a create: none when nothing is there, the object at the path or the lookalikes when something is; not on an update or with unknown inputs", async () => {
    expect((await checked(NC, ncArgs())).__before).toEqual({ ids: [] });
    const first = await created(NC, ncArgs());
    expect((await checked(NC, ncArgs())).__before).toEqual({ ids: [first.id] });
    expect((await checked(ALPHABET, { name: "digits", alphabet: "0123456789" })).__before).toEqual({ ids: [] });
    await secretsApi(emu, "POST", "/transform/alphabet/digits", { alphabet: "0123456789" });
    expect((await checked(ALPHABET, { name: "digits", alphabet: "0123456789" })).__before).toEqual({ ids: ["transform/alphabet/digits"] });
    // An update records nothing; neither does a preview's check of values not known yet.
    expect((await checked(NC, ncArgs(), first.outs)).__before).toBeUndefined();
    expect((await checked(NC, { ...ncArgs(), url: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" })).__before).toBeUndefined();
    // What it records is never compared: no diff for it.
    expect(await call(NC, "diff", [first.id, { ...first.outs, __before: { ids: ["x"] } }, await checked(NC, ncArgs())])).toMatchObject({ changes: false });
  });
});

describe("a create never makes a second object whose id the service assigns", () => {
  it("refuses a notification configuration, a dual-factor method and a run whose twin is there, naming the recovery and adoptId; nothing is created", async () => {
    const nc = await runApi(emu, "POST", `/workspaces/${emu.workspaceId}/notification-configurations`, {
      data: { type: "notification-configurations", attributes: { name: "ci", "destination-type": "generic", enabled: false, url: "https://hooks.example/ci", triggers: ["run:completed"] } },
    });
    const e = await rejectionOf(call(NC, "create", [await checked(NC, ncArgs())]));
    expect(e.message).toBe(`conflict: a NotificationConfiguration with every value this resource sets exists already (${nc.body.data.id}): creating another would duplicate it. ` +
      "If a pulumi up that was stopped (a cancelled CI job) made it, run `npx pulumi-svc-recover` in this project (with --cleared if its pending creates " +
      "were cleared since, by pulumi refresh --clear-pending-creates): it records it in the stack, and the next pulumi up carries on. If this resource is " +
      "being replaced with deleteBeforeReplace: false, remove that option: the replacement is made while the old one still exists. " +
      'To take over one made another way, set adoptId: "<its id>". Nothing was created');
    expect(await ncs()).toHaveLength(1);

    await secretsApi(emu, "POST", "/identity/mfa/method/dualfactor", { api_hostname: "api-1234abcd.example.com", secret_key: "duo-secret-key-0001", integration_key: "DUOINTEGRATION01" });
    expect((await rejectionOf(call(MFA, "create", [await checked(MFA, mfaArgs())]))).message).toContain("npx pulumi-svc-recover");
    // Another secret key is another method: created.
    expect((await created(MFA, { ...mfaArgs(), secretKey: "duo-secret-key-0002" })).id).toMatch(/^[0-9a-f-]{36}$/);

    // An alias: the service allows one of a name on a mount; its refusal is said with the alias and adoptId.
    const alias = await secretsApi(emu, "POST", "/identity/entity-alias", { name: "carol", canonical_id: "ent-alice0000000001", mount_accessor: "auth_userpass_1234abcd" });
    expect((await rejectionOf(call("secrets:IdentityEntityAlias", "create", [await checked("secrets:IdentityEntityAlias", { name: "carol", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd" })]))).message)
      .toContain(`alias ${alias.body.data.id} holds the name: set adoptId: "${alias.body.data.id}" to take it over`);

    // A run carries its resource's claim at the end of its message; a second create of the same resource is refused.
    const run = await created(RUN, runArgs());
    expect((await runApi(emu, "GET", `/runs/${run.id}`)).body.data.attributes.message).toMatch(/^deploy \[pulumi-svc [0-9a-f]{12}\]$/);
    expect(run.outs.message).toBe("deploy");
    await expect(call(RUN, "create", [await checked(RUN, runArgs())])).resolves.toBeDefined(); // owned by this process: a program may declare two
    // Only an active claimed run blocks a create: a destroy leaves the run of the resource it deleted ended.
    const ctx = makeContext(undefined, false, urn(RUN, "deploy"));
    const inputs = { ...runArgs(), ...run.outs } as never;
    expect(await runDefinition.leftovers!.blocking!(ctx, inputs)).toContain(run.id);
    await runApi(emu, "POST", `/runs/${run.id}/actions/discard`, { comment: "ended" });
    expect(await runDefinition.leftovers!.blocking!(ctx, inputs)).not.toContain(run.id);
    expect(await runDefinition.leftovers!.find(ctx, inputs)).toContain(run.id);
  });

  it("a configuration's twin holds every value the resource sets: one that differs in any is none, a set in another order is one", async () => {
    const post = async (attributes: Props, users?: string[]) => (await runApi(emu, "POST", `/workspaces/${emu.workspaceId}/notification-configurations`, {
      data: {
        type: "notification-configurations", attributes: { name: "ci", "destination-type": "generic", enabled: false, url: "https://hooks.example/ci", triggers: ["run:completed", "run:errored"], ...attributes },
        ...(users ? { relationships: { users: { data: users.map((id) => ({ id, type: "users" })) } } } : {}),
      },
    })).body.data.id as string;
    // Each differs from the program in one value (an enabled one would be verified against a destination that is not there).
    for (const other of [{ name: "cd" }, { url: "https://hooks.example/cd" }, { triggers: ["run:completed"] }, { "destination-type": "chat-a" }]) await post(other);
    const twin = await post({ triggers: ["run:errored", "run:completed"] });
    expect((await checked(NC, { ...ncArgs(), triggers: ["run:completed", "run:errored"] })).__before).toEqual({ ids: [twin] });

    const mail = { name: "mail", "destination-type": "email", url: null, triggers: [] };
    await post(mail, ["usr-admin000000001"]);
    await post(mail);
    const mailTwin = await post(mail, ["usr-member00000001", "usr-admin000000001"]);
    const mailArgs = { workspaceId: emu.workspaceId, name: "mail", destinationType: "email", emailUsers: ["usr-admin000000001", "usr-member00000001"], __urn: urn(NC, "mail") };
    expect((await checked(NC, mailArgs)).__before).toEqual({ ids: [mailTwin] });
  });
});

describe("pulumi-svc-recover settles pending creates", () => {
  it("records the object a cancelled create made, drops one that made nothing, never takes what was there before or what the stack holds", async () => {
    // What each cancelled create's check saw, then what its request made.
    const ncInputs = await checked(NC, ncArgs());
    const alphabetInputs = await checked(ALPHABET, { name: "digits", alphabet: "0123456789" });
    const runInputs = await checked(RUN, { ...runArgs(), __urn: urn(RUN, "deploy") });
    const keptInputs = await checked(NC, ncArgs("kept"));
    const made = (await runApi(emu, "POST", `/workspaces/${emu.workspaceId}/notification-configurations`, {
      data: { type: "notification-configurations", attributes: { name: "ci", "destination-type": "generic", enabled: false, url: "https://hooks.example/ci", triggers: ["run:completed"] } },
    })).body.data.id as string;
    await secretsApi(emu, "POST", "/transform/alphabet/digits", { alphabet: "0123456789" });
    const { id: runId } = await created(RUN, runInputs);
    // "kept": its twin was there before its check, and another resource holds a second one.
    const before = (await runApi(emu, "POST", `/workspaces/${emu.workspaceId}/notification-configurations`, {
      data: { type: "notification-configurations", attributes: { name: "kept", "destination-type": "generic", enabled: false, url: "https://hooks.example/ci", triggers: ["run:completed"] } },
    })).body.data.id as string;
    const keptBefore = { ...keptInputs, __before: { ids: [before] } };
    const nothing = await checked(ALPHABET, { name: "letters", alphabet: "abcdef" });

    const r = await recover(exported([[NC, "ci", ncInputs], [ALPHABET, "digits", alphabetInputs], [RUN, "deploy", runInputs], [NC, "kept", keptBefore], [ALPHABET, "letters", nothing]]));
    expect(r.code).toBe(0);
    expect(r.out.split("\n")).toEqual([
      `ci: ${made} recorded; the next pulumi up completes it`,
      "digits: transform/alphabet/digits recorded; the next pulumi up completes it",
      `deploy: ${runId} recorded; the next pulumi up completes it`,
      `kept: the cancelled create made nothing (${before} was there before it); the next pulumi up says so`,
      "letters: the cancelled create made nothing; the next pulumi up creates it",
      "The stack records this now; run pulumi up.",
      "",
    ]);
    expect(r.imported!.pending_operations).toBeUndefined();
    const held = r.imported!.resources!.map((x) => [x.urn.split("::").pop(), x.id, x.initErrors?.length, (x.outputs as Props).name]);
    expect(held).toEqual([["ci", made, 1, "ci"], ["digits", "transform/alphabet/digits", 1, "digits"], ["deploy", runId, 1, undefined]]);

    // An object another resource holds is not taken; neither is one when check recorded nothing.
    const again = await recover(exported([[NC, "ci", ncInputs]], [{ urn: urn(NC, "other"), type: typeOf(NC), id: made }]));
    expect(again.out).toContain("ci: the cancelled create made nothing; the next pulumi up creates it");
    const { __before: _, ...unrecorded } = ncInputs;
    const unknown = await recover(exported([[NC, "ci", unrecorded]]));
    expect(unknown.code).toBe(1);
    expect(unknown.out).toContain(`ci: ${made} exists, and nothing records whether it was there before the cancelled create`);
    expect(unknown.imported).toBeUndefined();
    expect(await requests(emu).then((q) => q.filter((x) => !["GET", "LIST"].includes(x.method) && x.path.includes("notification")).length)).toBe(2);
  });

  it("names a resource whose name holds :: by its whole name", async () => {
    const nothing = await checked(ALPHABET, { name: "letters", alphabet: "abcdef" });
    const r = await recover(exported([[ALPHABET, "team::letters", nothing]]));
    expect(r.out).toContain("team::letters: the cancelled create made nothing; the next pulumi up creates it\n");
  });

  it("refuses a misspelt option before it runs anything, naming the nearest", async () => {
    await expect(main(["--stak", "dev"], () => { throw new Error("ran pulumi"); })).rejects.toThrow("unknown argument --stak; did you mean --stack?");
    await expect(main(["--stack"], () => { throw new Error("ran pulumi"); })).rejects.toThrow("--stack needs a value");
    expect(await main(["--help"])).toMatchObject({ code: 0, out: expect.stringContaining("Usage: pulumi-svc-recover") });
  });

  it("a replacement killed after its create acted: deleted first, the new object recorded and the old entry dropped; made first, the old entry marked for deletion", async () => {
    // Each old object as the stack holds it, and what its (forced) replacement's check recorded: the old object was there.
    const oldAlphabet = await created(ALPHABET, { name: "digits", alphabet: "0123456789" });
    const oldNc = await created(NC, ncArgs());
    const oldRun = await created(RUN, runArgs());
    const alphabetInputs = { ...(await checked(ALPHABET, { name: "digits", alphabet: "0123456789" })), __before: { ids: [oldAlphabet.id] } };
    const ncInputs = { ...(await checked(NC, ncArgs())), __before: { ids: [oldNc.id] } };
    const runInputs = { ...(await checked(RUN, runArgs())), __before: { ids: [oldRun.id] } };
    // Deleted first (the old objects gone: a run stays, ended), then the creates acted and the CLI was killed.
    await call(ALPHABET, "delete", [oldAlphabet.id, oldAlphabet.outs]);
    await call(NC, "delete", [oldNc.id, oldNc.outs]);
    await call(RUN, "delete", [oldRun.id, oldRun.outs]);
    const newAlphabet = await created(ALPHABET, { name: "digits", alphabet: "0123456789" });
    const newNc = await call(NC, "create", [{ ...ncInputs, __before: undefined }]) as { id: string };
    const newRun = await call(RUN, "create", [{ ...runInputs, __before: undefined }]) as { id: string };
    const held = (kind: string, name: string, id: string) => ({ urn: urn(kind, name), type: typeOf(kind), id, custom: true, pendingReplacement: true });
    const r = await recover(exported([[ALPHABET, "digits", alphabetInputs], [NC, "ci", ncInputs], [RUN, "deploy", runInputs]],
      [held(ALPHABET, "digits", oldAlphabet.id), held(NC, "ci", oldNc.id), held(RUN, "deploy", oldRun.id)]));
    expect(r.out.split("\n").slice(0, 3)).toEqual([
      "digits: transform/alphabet/digits recorded; the next pulumi up completes it",
      `ci: ${newNc.id} recorded; the next pulumi up completes it`,
      `deploy: ${newRun.id} recorded; the next pulumi up completes it`,
    ]);
    expect(newAlphabet.id).toBe(oldAlphabet.id);
    // One entry a resource: the old ones (pendingReplacement) are gone from the state.
    expect(r.imported!.resources!.map((x) => [x.urn.split("::").pop(), x.id, x.pendingReplacement ?? false])).toEqual([
      ["digits", oldAlphabet.id, false], ["ci", newNc.id, false], ["deploy", newRun.id, false],
    ]);

    // Made first (deleteBeforeReplace: false): the old entry is still the stack's, and is marked for deletion.
    const other = await created(NC, ncArgs("other"));
    const madeFirst = await recover(exported([[NC, "ci", { ...ncInputs, __before: { ids: [] } }]], [{ urn: urn(NC, "ci"), type: typeOf(NC), id: other.id, custom: true }]));
    expect(madeFirst.out).toContain(`ci: ${newNc.id} recorded`);
    expect(madeFirst.imported!.resources!.map((x) => [x.id, x.delete ?? false])).toEqual([[other.id, true], [newNc.id, false]]);
  });

  it("with nothing pending says so and changes nothing", async () => {
    const r = await recover({ resources: [] });
    expect(r).toEqual({ out: "No create was left pending: nothing to recover. If a pulumi up that was stopped made an object and its " +
      "pending create was cleared since (pulumi refresh --clear-pending-creates), run npx pulumi-svc-recover --cleared.\n", code: 0, imported: undefined });
  });
});
