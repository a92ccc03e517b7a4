// The engine's own ways to bring an existing object under a stack, for our dynamic resources, under
// the real Pulumi CLI (docs/adopting.md, "The engine's import and read"): the `import` resource option
// is refused before the provider is reached, under every SDK (the message depends on its
// dynamic-provider host); a read resource (`id` in the resource options, and the classes' static
// `get` by the id alone) works. `pulumi import` (the command) is in behaviours.test.ts.
import * as path from "node:path";
import { expect, it } from "vitest";
import { control, runApi, secretsApi } from "../support/emulator";
import { CliStack, cliScenarios, cliVersion, describeCli, importReadMessage, ops, sdkDir } from "./cli";

const program = path.join(__dirname, "programs/behaviours/index.js");

const { emu, stacks } = cliScenarios();

async function stack(project: string, config: Record<string, string>): Promise<CliStack> {
  const s = await CliStack.create({
    project, program,
    config: { "svc:runUrl": emu().runUrl, "svc:secretsUrl": emu().secretsUrl, "behaviours:scenario": "engine-import", "behaviours:workspaceId": emu().workspaceId, ...config },
    secretConfig: { "svc:runToken": emu().tokens.runAdmin, "svc:secretsToken": emu().tokens.secretsUser },
  });
  stacks.push(s);
  return s;
}

const writes = async () => (await control<{ requests: { method: string; path: string }[] }>(emu(), "GET", "/requests")).requests
  .filter((q) => !["GET", "LIST"].includes(q.method));

/** A notification configuration made by hand on the run service: its id is the service's. */
async function handMadeNc(): Promise<string> {
  const r = await runApi(emu(), "POST", `/workspaces/${emu().workspaceId}/notification-configurations`, {
    data: { type: "notification-configurations", attributes: { name: "by-hand", "destination-type": "generic", enabled: false, url: "https://hooks.example/a", triggers: ["run:completed"] } },
  });
  expect(r.status).toBe(201);
  return r.body.data.id as string;
}

async function alphabetHeld(): Promise<string | undefined> {
  const r = await secretsApi(emu(), "GET", "/transform/alphabet/held");
  return r.status === 200 ? r.body.data.alphabet as string : undefined;
}

describeCli("the engine's import and read of existing objects under the real Pulumi CLI", () => {
  it("the import resource option is refused before the provider is reached; nothing is written or recorded", async () => {
    console.log(`pulumi ${cliVersion()}, @pulumi/pulumi from ${sdkDir}: expecting "${importReadMessage()}"`);
    expect((await secretsApi(emu(), "POST", "/transform/alphabet/held", { alphabet: "0123" })).status).toBeLessThan(300);
    const id = await handMadeNc();
    // A path object whose inputs are what the server holds; then an object whose id the service assigned.
    for (const [how, name, type] of [["import-alphabet", "by-import", "secrets:TransformAlphabet"], ["import-nc", "nc-by-import", "runs:NotificationConfiguration"]] as const) {
      const s = await stack(`engine-${how}`, { "behaviours:how": how, "behaviours:ncId": id });
      await control(emu(), "DELETE", "/requests");
      const r = await s.run(["up", "--yes", "--skip-preview"]);
      expect(r.code).not.toBe(0);
      expect(r.stdout).toContain(`pulumi-nodejs:dynamic/${type} ${name} **importing failed** error: ${importReadMessage()}`);
      expect(r.stdout).toContain(`  pulumi-nodejs:dynamic/${type} (${name}):\n    error: ${importReadMessage()}`);
      expect(await writes()).toEqual([]);
      expect((await s.state()).resources.filter((q) => !q.type.startsWith("pulumi:"))).toEqual([]);
    }
    expect(await alphabetHeld()).toBe("0123");
  });

  it("a read resource (id in the options) records what the server holds, writes nothing, follows the server and leaves it when dropped", async () => {
    expect((await secretsApi(emu(), "POST", "/transform/alphabet/held", { alphabet: "0123" })).status).toBeLessThan(300);
    const id = await handMadeNc();
    const s = await stack("engine-get", { "behaviours:how": "get", "behaviours:ncId": id, "behaviours:runUrl": emu().runUrl });
    await s.setConfig({}, { "behaviours:runToken": emu().tokens.runAdmin });
    await control(emu(), "DELETE", "/requests");
    const r = await s.up();
    expect(r.code, r.text).toBe(0);
    // Two resources may read one object: a read holds nothing (docs/adopting.md, adoptId).
    expect(ops(r)).toEqual({ "by-get": "read", "nc-by-get": "read", "nc-by-get-again": "read" });
    expect(await writes()).toEqual([]);
    const state = (await s.state()).resources;
    const alphabet = state.find((q) => q.urn.endsWith("::by-get"))!;
    // The program's guesses (alphabet "01", name "guess") stay its inputs; the outputs are the server's.
    expect(alphabet).toMatchObject({ id: "transform/alphabet/held", external: true, outputs: { name: "held", mount: "transform", alphabet: "0123", serverUrl: emu().secretsUrl } });
    const hook = state.find((q) => q.urn.endsWith("::nc-by-get"))!;
    expect(hook).toMatchObject({ id, external: true, outputs: { name: "by-hand", workspaceId: emu().workspaceId, triggers: ["run:completed"] } });
    expect(await s.outputs()).toMatchObject({ readAlphabet: "0123", readHookName: "by-hand" });
    // The connection's token is stored as a secret, in the inputs and in what the read returned.
    const exported = await s.exportText();
    expect(exported).not.toContain(emu().tokens.runAdmin);
    expect(exported).not.toContain(emu().tokens.secretsUser);
    // A preview reads again and plans nothing else.
    const preview = await s.preview();
    expect(preview.code, preview.text).toBe(0);
    expect(ops(preview)).toEqual({ "by-get": "read", "nc-by-get": "read", "nc-by-get-again": "read" });

    // Each update reads again: a change on the server shows in the outputs, and nothing is written.
    expect((await secretsApi(emu(), "POST", "/transform/alphabet/held", { alphabet: "012345" })).status).toBeLessThan(300);
    await control(emu(), "DELETE", "/requests");
    const again = await s.up();
    expect(again.code, again.text).toBe(0);
    expect(await writes()).toEqual([]);
    expect(await s.outputs()).toMatchObject({ readAlphabet: "012345", readHookName: "by-hand" });

    // Dropped from the program: dropped from the state, the objects stay.
    await s.setConfig({ "behaviours:step": "2" });
    const dropped = await s.up();
    expect(dropped.code, dropped.text).toBe(0);
    expect(await writes()).toEqual([]);
    expect((await s.state()).resources.filter((q) => !q.type.startsWith("pulumi:"))).toEqual([]);
    expect(await alphabetHeld()).toBe("012345");
    expect((await runApi(emu(), "GET", `/notification-configurations/${id}`)).status).toBe(200);
  });

  it("the classes' static get reads by the id alone (a path names its inputs), discards what the program drops and names an object that is not there", async () => {
    expect((await secretsApi(emu(), "POST", "/transform/alphabet/held", { alphabet: "0123" })).status).toBeLessThan(300);
    expect((await secretsApi(emu(), "POST", "/keymgmt/key/held-key", { type: "ecdsa-p256" })).status).toBeLessThan(300);
    expect((await secretsApi(emu(), "POST", "/keymgmt/key/held-key/rotate")).status).toBeLessThan(300);
    const id = await handMadeNc();
    const s = await stack("engine-static-get", { "behaviours:how": "static-get", "behaviours:ncId": id });
    await control(emu(), "DELETE", "/requests");
    const r = await s.up();
    expect(r.code, r.text).toBe(0);
    expect(ops(r)).toEqual({ "key-by-get": "read", "alphabet-by-get": "read", "nc-by-static-get": "read" });
    expect(await writes()).toEqual([]);
    expect(await s.outputs()).toEqual({ keyVersion: 2, keyMount: "keymgmt", staticAlphabet: "0123", staticHookName: "by-hand", isKey: [true, false] });
    const state = (await s.state()).resources;
    expect(state.find((q) => q.urn.endsWith("::key-by-get"))).toMatchObject({ id: "keymgmt/key/held-key", external: true, outputs: { name: "held-key", mount: "keymgmt", type: "ecdsa-p256" } });

    // Dropped from the program: discarded from the state, the objects stay.
    await s.setConfig({ "behaviours:step": "2" });
    const dropped = await s.up();
    expect(dropped.code, dropped.text).toBe(0);
    expect(ops(dropped)).toEqual({ "key-by-get": "discard", "alphabet-by-get": "discard", "nc-by-static-get": "discard" });
    expect(await writes()).toEqual([]);
    expect((await s.state()).resources.filter((q) => !q.type.startsWith("pulumi:"))).toEqual([]);
    expect((await secretsApi(emu(), "GET", "/keymgmt/key/held-key")).status).toBe(200);

    // An object that is not there: the read fails with the provider's line, and nothing is recorded.
    await s.setConfig({ "behaviours:step": "3" });
    const gone = await s.up();
    expect(gone.code).not.toBe(0);
    expect(gone.text).toContain("there is no TransformAlphabet with the id transform/alphabet/gone on the server");
    expect((await s.state()).resources.filter((q) => !q.type.startsWith("pulumi:"))).toEqual([]);
  });
});
