import { describe, expect, it } from "vitest";
import { control, secretsApi } from "../support/emulator";
import { hostChecked, serializedProvider, urn, useHosts } from "../support/protocol";

const ALIAS = "secrets:IdentityEntityAlias";
const PLUGIN = "secrets:PluginCatalogEntry";
const MFA = "secrets:MfaDualFactorMethod";
const DUO_SECRET = "protocol-duo-secret-5a4b3c";
const PLUGIN_ENV = "Pq9Zx4Wm7Tk2Lr8V";

const { emu, root: root_, user } = useHosts({
  // configured with the sudo token
  root: (emu) => ({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsRoot }),
  // configured with the non-sudo token
  user: (emu) => ({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsUser }),
});

const get = (path: string) => secretsApi(emu, "GET", path);

describe("identity, plugins and MFA through the real dynamic-provider host", () => {
  it("serializes each kind to a small text without tokens", async () => {
    for (const kind of [ALIAS, PLUGIN, MFA]) {
      const text = await serializedProvider(kind);
      expect(text).toContain(`"${kind}"`);
      expect(Buffer.byteLength(text)).toBeLessThan(6000);
      for (const t of Object.values(emu.tokens)) expect(text).not.toContain(t);
    }
  });

  it("runs an entity alias through create, read, diff, update and delete", async () => {
    const u = urn(ALIAS, "alice");
    const inputs = await hostChecked(user, ALIAS, "alice", { name: "alice", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd" });
    const { id, outs } = await user.create(u, inputs);
    expect(outs).toMatchObject({ mountType: "userpass", mountPath: "auth/userpass/", local: false });
    expect(outs).not.toHaveProperty("customMetadata");
    expect(await user.read(u, id, outs)).toMatchObject({ id, props: outs });
    expect(await user.diff(u, id, outs, inputs)).toMatchObject({ changes: false });
    const updated = await user.update(u, id, outs, { ...inputs, customMetadata: { team: "payments" } });
    expect(updated.outs.customMetadata).toEqual({ team: "payments" });
    await user.delete(u, id, updated.outs);
    expect(await user.read(u, id, updated.outs)).toMatchObject({ id: "" });
  });

  it("registers a plugin with the sudo token; env stays out of reads and stderr", async () => {
    const u = urn(PLUGIN, "db");
    const inputs = await hostChecked(root_, PLUGIN, "db", { type: "database", name: "acme-db", sha256: "cd".repeat(32), command: "acme-db", env: [`ACME_PASSWORD=${PLUGIN_ENV}`] });
    const { id, outs } = await root_.create(u, inputs);
    expect(outs).toMatchObject({ builtin: false, args: [], env: [`ACME_PASSWORD=${PLUGIN_ENV}`] });
    const read = await root_.read(u, id, outs);
    expect(read.props.env).toEqual(outs.env);
    expect(await root_.diff(u, id, read.props, inputs)).toMatchObject({ changes: false });
    expect(JSON.stringify((await get("/sys/plugins/catalog/database/acme-db")).body)).not.toContain(PLUGIN_ENV);

    // The same provider text with a non-sudo token: a forbidden error that says what is needed.
    const err = await user.delete(u, id, outs).catch((e) => e);
    expect(String(err.message)).toMatch(/403 Forbidden: permission denied; check the token \(from stack config svc:secretsToken\); the plugin catalog needs a token with the sudo capability/);
    const refused = await user.check(u, {}, { ...inputs, name: "other" }).then((r) => user.create(u, r.inputs)).catch((e) => e);
    expect(String(refused.message)).toMatch(/sudo capability/);

    await root_.delete(u, id, outs);
    expect((await get("/sys/plugins/catalog/database/acme-db")).status).toBe(404);
    for (const h of [root_, user]) for (const t of [PLUGIN_ENV, ...Object.values(emu.tokens)]) expect(h.stderr()).not.toContain(t);
  });

  it("runs a dual-factor method without a perpetual pushInfo diff, and refuses its delete while enforced", async () => {
    const u = urn(MFA, "duo");
    const inputs = await hostChecked(user, MFA, "duo", { secretKey: DUO_SECRET, integrationKey: "DIPROTOCOL", apiHostname: "api-1.example.com", pushInfo: "from=ci" });
    const { id, outs } = await user.create(u, inputs);
    expect(outs).toMatchObject({ pushInfo: "from=ci", type: "dualfactor", secretKey: DUO_SECRET });
    const read = await user.read(u, id, outs);
    expect(await user.diff(u, id, read.props, inputs)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });

    await control(emu, "POST", "/login-enforcements", { name: "ops", methodIds: [id] });
    const err = await user.delete(u, id, outs).catch((e) => e);
    expect(String(err.message)).toMatch(/cannot be deleted while a login enforcement uses it/);
    expect(String(err.message)).not.toContain(DUO_SECRET);
    await control(emu, "DELETE", "/login-enforcements/ops");
    await user.delete(u, id, outs);
    expect((await get(`/identity/mfa/method/dualfactor/${id}`)).status).toBe(404);
    for (const t of [DUO_SECRET, ...Object.values(emu.tokens)]) expect(user.stderr()).not.toContain(t);
  });
});
