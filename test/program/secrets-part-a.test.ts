// The other part-A resources (plugin catalog entry, dual-factor method, entity alias) and a key
// that is not deletable, run as a program through the engine double: secrets in state, no
// perpetual diff through the real host, and the documented way out of a refused key deletion.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";
import { useProgram } from "../support/program";

const DUO_SECRET = "duo-secret-program-3e4f5a6b";
const DUO_IKEY = "DIPROGRAMINTEGRATION1";
const PLUGIN_ENV = "Pe8Cq9Zd2Wm6Tx4K";

const PROGRAM = (rootDir: string) => `
const pulumi = require(${JSON.stringify(path.join(rootDir, "node_modules/@pulumi/pulumi"))});
const svc = require(${JSON.stringify(path.join(rootDir, "dist/src/index.js"))});
const cfg = new pulumi.Config("t");
// Registered first, so destroy deletes it last.
const key = new svc.secrets.keymgmt.Key("kept", { name: "kept", type: "ecdsa-p256", deletionAllowed: cfg.getBoolean("allowDelete") ?? false });
const plugin = new svc.secrets.plugins.CatalogEntry("plugin", {
  type: "database", name: "acme-db", sha256: "${"ab".repeat(32)}", command: "acme-db", env: [cfg.requireSecret("pluginEnv")],
});
const duo = new svc.secrets.mfa.DualFactorMethod("duo", {
  secretKey: cfg.requireSecret("duoSecret"), integrationKey: cfg.requireSecret("duoIkey"),
  apiHostname: "api-1234abcd.example.com", pushInfo: "from=pulumi", usernameFormat: "",
});
const alias = new svc.secrets.identity.EntityAlias("alice", { name: "alice", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd" });
module.exports = { methodId: duo.id, aliasMountType: alias.mountType, pluginBuiltin: plugin.builtin, keyVersion: key.latestVersion };
`;

const { emu, run, ops, get, requests, clearRequests, stateText } = useProgram({
  program: (p) => path.join(p.dir, "index.js"), project: "pulumi-svc-part-a",
  // The plugin catalog needs a sudo token.
  secretsToken: "secretsRoot",
  secretConfig: () => ({ "t:duoSecret": DUO_SECRET, "t:duoIkey": DUO_IKEY, "t:pluginEnv": `ACME_PASSWORD=${PLUGIN_ENV}` }),
  setup: (p) => fs.writeFileSync(path.join(p.dir, "index.js"), PROGRAM(root)),
});

const status = async (p: string): Promise<number> => (await get(p)).status;

describe("plugin, MFA, alias and an undeletable key through the engine double", () => {
  it("creates everything and keeps every secret out of plaintext state", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ kept: "create", plugin: "create", duo: "create", alice: "create" });
    expect(r.outputs).toMatchObject({ aliasMountType: "userpass", pluginBuiltin: false, keyVersion: 1 });
    const text = stateText();
    for (const secret of [DUO_SECRET, DUO_IKEY, PLUGIN_ENV, ...Object.values(emu.tokens)]) expect(text).not.toContain(secret);
    const disk = JSON.parse(text) as { resources: { name: string; outputs: Record<string, unknown> }[] };
    const outputs = (name: string) => disk.resources.find((x) => x.name === name)!.outputs;
    expect(outputs("duo").secretKey).toEqual({ secure: expect.any(String) });
    expect(outputs("duo").integrationKey).toEqual({ secure: expect.any(String) });
    expect(outputs("plugin").env).toEqual({ secure: expect.any(String) });
  });

  it("has no perpetual diff through the real host (pushinfo read back, blank username format, env write-only)", async () => {
    await clearRequests();
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ kept: "same", plugin: "same", duo: "same", alice: "same" });
    const writes = (await requests()).filter((q) => !["GET", "LIST"].includes(q.method));
    expect(writes).toEqual([]);
  });

  it("destroy stops at a key whose deletionAllowed is false, with the fix in the error", async () => {
    const r = await run("destroy");
    expect(r.error).toMatch(/delete .*kept: DELETE \/keymgmt\/key\/kept: conflict: key kept has deletion_allowed false: set deletionAllowed: true on the Key and deploy it alone, with the key's other inputs as they were: pulumi up --target 'urn:pulumi:[^']+::pulumi-nodejs:dynamic\/secrets:KeymgmtKey::kept' \(after a partial pulumi destroy/);
    expect(ops(r)).toEqual({ alice: "delete", duo: "delete", plugin: "delete", kept: "delete" });
    expect(r.steps.find((s) => s.name === "kept")!.error).toBeDefined();
    expect(await status("/keymgmt/key/kept")).toBe(200);
    expect(await status("/sys/plugins/catalog/database/acme-db")).toBe(404);
  });

  it("after deploying deletionAllowed: true (an update), destroy removes the key", async () => {
    const up = await run("up", 1, { config: { "t:allowDelete": "true" } });
    expect(up.error).toBeUndefined();
    expect(ops(up).kept).toBe("update");
    const r = await run("destroy", 1, { config: { "t:allowDelete": "true" } });
    expect(r.error).toBeUndefined();
    expect(await status("/keymgmt/key/kept")).toBe(404);
  });
});
