import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import * as plugins from "../../src/secrets/plugins";
import { checked, created, type Props, type Res } from "../support/calls";
import { control, requests, secretsApi, useEmulator, withEnvSecretsToken } from "../support/emulator";
import { rejectionOf } from "../support/errors";

// The plugin catalog needs the sudo capability: the provider runs with the root token here.
const { emu } = useEmulator({ secretsToken: "secretsRoot" });
const PLUGIN = "secrets:PluginCatalogEntry";
const SHA = "0123456789abcdef".repeat(4);
const SHA2 = "fedcba9876543210".repeat(4);
// Random-looking: redaction masks any run of 6 characters of a secret, so a secret spelling
// "plugin" would mask the word in every path of this file.
const DB_PASSWORD = "Kd9-eNv-Qz4w-5c6d7e";

const raw = (method: string, path: string, body?: unknown) => secretsApi(emu, method, path, body);

const base = { type: "database", name: "acme-db", sha256: SHA, command: "acme-db-plugin", args: ["--tls"], env: [`ACME_PASSWORD=${DB_PASSWORD}`] };

describe("plugin CatalogEntry", () => {
  it("registers, reads, updates in place and removes an entry; env is never read back", async () => {
    const { id, outs } = await created(PLUGIN, base);
    expect(id).toBe("sys/plugins/catalog/database/acme-db");
    expect(outs).toEqual({ ...base, builtin: false, serverUrl: emu.secretsUrl, envVersion: 1 });
    expect(JSON.stringify((await raw("GET", "/sys/plugins/catalog/database/acme-db")).body)).not.toContain(DB_PASSWORD);

    const read = (await call(PLUGIN, "read", [id, outs])) as { props: Props };
    expect(read.props).toEqual(outs);
    expect(await call(PLUGIN, "diff", [id, read.props, await checked(PLUGIN, base, read.props)])).toMatchObject({ changes: false });

    const news = await checked(PLUGIN, { ...base, sha256: SHA2, args: [] }, outs);
    expect(await call(PLUGIN, "diff", [id, outs, news])).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs: after } = (await call(PLUGIN, "update", [id, outs, news])) as { outs: Props };
    expect(after).toMatchObject({ sha256: SHA2, args: [] });
    expect((await raw("GET", "/sys/plugins/catalog/database/acme-db")).body.data).toMatchObject({ sha256: SHA2, args: [] });

    await call(PLUGIN, "delete", [id, after]);
    expect((await raw("GET", "/sys/plugins/catalog/database/acme-db")).status).toBe(404);
  });

  it("keeps an upper-case checksum without a perpetual diff (state holds one spelling)", async () => {
    const { id, outs } = await created(PLUGIN, { ...base, sha256: SHA.toUpperCase() });
    expect((await raw("GET", "/sys/plugins/catalog/database/acme-db")).body.data.sha256).toBe(SHA);
    expect(outs.sha256).toBe(SHA);
    const read = (await call(PLUGIN, "read", [id, outs])) as { props: Props };
    expect(await call(PLUGIN, "diff", [id, read.props, await checked(PLUGIN, { ...base, sha256: SHA.toUpperCase() })])).toMatchObject({ changes: false });
  });

  it("replaces a renamed entry by registering the new one first; the new one survives", async () => {
    const old = await created(PLUGIN, base);
    const inputs = await checked(PLUGIN, { ...base, name: "acme-db-v2" }, old.outs);
    const d = (await call(PLUGIN, "diff", [old.id, old.outs, inputs])) as { replaces: string[]; deleteBeforeReplace: boolean };
    expect(d).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
    const res = (await call(PLUGIN, "create", [inputs])) as Res;
    await call(PLUGIN, "delete", [old.id, old.outs]);
    expect(res.id).toBe("sys/plugins/catalog/database/acme-db-v2");
    expect((await raw("GET", "/sys/plugins/catalog/database/acme-db-v2")).status).toBe(200);
    expect((await raw("GET", "/sys/plugins/catalog/database/acme-db")).status).toBe(404);
  });

  it("says a sudo token is needed when the token is not one, and changes nothing", async () => {
    const err = await rejectionOf(withEnvSecretsToken(emu.tokens.secretsUser, () => created(PLUGIN, base)));
    expect(err.code).toBe("forbidden");
    expect(err.message).toMatch(/^GET \/sys\/plugins\/catalog\/database\/acme-db: 403 Forbidden: permission denied; check the token \(from environment variable SVC_SECRETS_TOKEN\); the plugin catalog needs a token with the sudo capability/);
    expect(err.message).not.toContain(emu.tokens.secretsUser);
    expect((await raw("GET", "/sys/plugins/catalog/database/acme-db")).status).toBe(404);

    const { id, outs } = await created(PLUGIN, base);
    const del = await rejectionOf(withEnvSecretsToken(emu.tokens.secretsUser, () => call(PLUGIN, "delete", [id, outs])));
    expect(del.message).toMatch(/^DELETE .*403 Forbidden.*sudo capability/);
    expect((await raw("GET", "/sys/plugins/catalog/database/acme-db")).status).toBe(200);
  });

  it("registers a plugin named like a builtin without adopt; removing it brings the builtin back", async () => {
    const { id, outs } = await created(PLUGIN, { type: "secret", name: "kv", sha256: SHA, command: "kv-custom" });
    expect(outs).toMatchObject({ builtin: false, command: "kv-custom" });
    await call(PLUGIN, "delete", [id, outs]);
    expect((await raw("GET", "/sys/plugins/catalog/secret/kv")).body.data.builtin).toBe(true);
    // Only the builtin is left: a refresh drops the entry.
    expect(await call(PLUGIN, "read", [id, outs])).toEqual({ id: "", props: {} });
  });

  it("refuses to take over a registered entry unless adopt is set", async () => {
    await raw("PUT", "/sys/plugins/catalog/auth/theirs", { sha256: SHA, command: "theirs" });
    const err = await rejectionOf(created(PLUGIN, { type: "auth", name: "theirs", sha256: SHA2, command: "mine" }));
    expect(err.message).toMatch(/sys\/plugins\/catalog\/auth\/theirs already exists\. If a pulumi up that was stopped .*npx pulumi-svc-recover.*--cleared.*If you renamed this resource in your program, give it aliases: .*deleteBeforeReplace: false.*to manage the existing .* set adopt: true/);
    expect((await raw("GET", "/sys/plugins/catalog/auth/theirs")).body.data.command).toBe("theirs");
    const { outs } = await created(PLUGIN, { type: "auth", name: "theirs", sha256: SHA2, command: "mine", adopt: true });
    expect(outs).toMatchObject({ command: "mine", adopt: true });
  });

  it("drops an entry removed out of band on refresh; delete of a gone entry succeeds", async () => {
    const { id, outs } = await created(PLUGIN, base);
    await raw("DELETE", "/sys/plugins/catalog/database/acme-db");
    expect(await call(PLUGIN, "read", [id, outs])).toEqual({ id: "", props: {} });
    await expect(call(PLUGIN, "delete", [id, outs])).resolves.toBeUndefined();
  });

  it("rejects bad inputs in check, naming the property, without a request", async () => {
    await control(emu, "DELETE", "/requests");
    const r = (await call(PLUGIN, "check", [{}, { ...base, type: "engine", sha256: "abc", env: ["no-equals"] }])) as { failures: { property: string }[] };
    expect(r.failures.map((f) => f.property).sort()).toEqual(["env[0]", "sha256", "type"]);
    expect(await requests(emu)).toEqual([]);
  });

  it("lists the catalog grouped by type and reads one entry with the functions", async () => {
    const before = await plugins.listPlugins();
    expect(before.secret).toContain("kv");
    expect(before.database).not.toContain("acme-db");
    await created(PLUGIN, base);
    expect((await plugins.listPlugins()).database).toContain("acme-db");
    expect(await plugins.listPlugins({ type: "database" })).toMatchObject({ auth: [], secret: [], database: expect.arrayContaining(["acme-db"]) });
    expect(await plugins.getPlugin({ type: "database", name: "acme-db" })).toEqual({ type: "database", name: "acme-db", sha256: SHA, command: "acme-db-plugin", args: ["--tls"], builtin: false });
    const denied = await rejectionOf(withEnvSecretsToken(emu.tokens.secretsUser, () => plugins.getPlugin({ type: "database", name: "acme-db" })));
    expect(denied.message).toMatch(/sudo capability/);
    // Listing needs no sudo.
    expect((await withEnvSecretsToken(emu.tokens.secretsUser, () => plugins.listPlugins())).database).toContain("acme-db");
  });
});
