// The identity example (plugin catalog entry, dual-factor MFA method, entity alias) through the
// engine double: no request in preview, secrets only encrypted in state, no perpetual diff, step2's
// replacement and updates, refresh after out-of-band edits, destroy.
import { describe, expect, it } from "vitest";
import { secretsApi } from "../support/emulator";
import { useProgram } from "../support/program";

const PLUGIN_PASSWORD = "Ie6Fq1Z0Wm8Tx3Kp";
const DUO_SECRET = "identity-example-duo-secret-2a9c";
const DUO_IKEY = "DIEXAMPLEIDENTITY0001";

const { emu, run, ops, clearRequests, writes, stateText } = useProgram({
  example: "identity", project: "pulumi-svc-identity",
  // An ordinary token for the stack; the sudo token only for the plugin catalog.
  secretConfig: ({ emu }) => ({
    "identity:sudoToken": emu.tokens.secretsRoot,
    "identity:pluginPassword": PLUGIN_PASSWORD, "identity:duoSecretKey": DUO_SECRET, "identity:duoIntegrationKey": DUO_IKEY,
  }),
});

describe("the identity example through the engine double", () => {
  let aliasId = "";
  let methodId = "";

  it("previews three creates without a request", async () => {
    await clearRequests();
    const r = await run("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ plugin: "create", duo: "create", alice: "create" });
    expect(await writes()).toEqual([]);
  });

  it("up registers the plugin with the sudo token, creates the method and the alias; every secret only encrypted in state", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(r.outputs).toMatchObject({ pluginName: "acme-db", pluginBuiltin: false, aliasMountType: "userpass", aliasTeam: "platform" });
    aliasId = r.outputs.aliasId as string;
    methodId = r.outputs.duoMethodId as string;
    const text = stateText();
    for (const secret of [PLUGIN_PASSWORD, DUO_SECRET, DUO_IKEY, ...Object.values(emu.tokens)]) expect(text).not.toContain(secret);
    const disk = JSON.parse(text) as { resources: { name: string; outputs: Record<string, unknown> }[] };
    const outputs = (name: string) => disk.resources.find((x) => x.name === name)!.outputs;
    expect(outputs("plugin").env).toEqual({ secure: expect.any(String) });
    expect(outputs("duo").secretKey).toEqual({ secure: expect.any(String) });
    expect(outputs("duo").integrationKey).toEqual({ secure: expect.any(String) });
    expect((await secretsApi(emu, "GET", "/sys/plugins/catalog/database/acme-db")).status).toBe(200);
    expect((await secretsApi(emu, "GET", `/identity/entity-alias/id/${aliasId}`)).body.data.custom_metadata).toEqual({ team: "platform" });
  });

  it("a second up changes nothing and writes nothing", async () => {
    await clearRequests();
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ plugin: "same", duo: "same", alice: "same" });
    expect(await writes()).toEqual([]);
  });

  it("step2 registers the renamed plugin before removing the old one and edits the method and the alias in place", async () => {
    await clearRequests();
    const r = await run("up", 2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ plugin: "replace", duo: "update", alice: "update" });
    expect(r.steps.find((s) => s.name === "plugin")?.deleteBeforeReplace).toBe(false);
    const w = await writes();
    expect(w.indexOf("POST /v1/sys/plugins/catalog/database/acme-db-2")).toBeLessThan(w.indexOf("DELETE /v1/sys/plugins/catalog/database/acme-db"));
    expect(r.outputs).toMatchObject({ pluginName: "acme-db-2", aliasTeam: "payments", duoMethodId: methodId, aliasId });
    expect((await secretsApi(emu, "GET", "/sys/plugins/catalog/database/acme-db")).status).toBe(404);
    expect((await secretsApi(emu, "GET", `/identity/mfa/method/dualfactor/${methodId}`)).body.data.pushinfo).toBe("from=pulumi&step=2");
    expect(stateText()).not.toContain(PLUGIN_PASSWORD);
  });

  it("refresh follows an alias changed and a plugin removed out of band; the next up puts both back", async () => {
    expect((await secretsApi(emu, "POST", `/identity/entity-alias/id/${aliasId}`, {
      name: "alice", canonical_id: "ent-alice0000000001", mount_accessor: "auth_userpass_1234abcd", custom_metadata: { team: "elsewhere" },
    })).status).toBeLessThan(300);
    expect((await secretsApi(emu, "DELETE", "/sys/plugins/catalog/database/acme-db-2")).status).toBeLessThan(300);
    const refreshed = await run("refresh", 2);
    expect(refreshed.error).toBeUndefined();
    expect(refreshed.steps.find((s) => s.name === "alice")?.changedKeys).toContain("customMetadata");
    expect(refreshed.steps.find((s) => s.name === "plugin")?.op).toBe("read-gone");
    const r = await run("up", 2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ plugin: "create", duo: "same", alice: "update" });
    expect((await secretsApi(emu, "GET", `/identity/entity-alias/id/${aliasId}`)).body.data.custom_metadata).toEqual({ team: "payments" });
  });

  it("destroy removes all three", async () => {
    const r = await run("destroy", 2);
    expect(r.error).toBeUndefined();
    expect((await secretsApi(emu, "GET", "/sys/plugins/catalog/database/acme-db-2")).status).toBe(404);
    expect((await secretsApi(emu, "GET", `/identity/mfa/method/dualfactor/${methodId}`)).status).toBe(404);
    expect((await secretsApi(emu, "GET", `/identity/entity-alias/id/${aliasId}`)).status).toBe(404);
  });
});
