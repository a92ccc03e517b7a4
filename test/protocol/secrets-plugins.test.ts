import { describe, expect, it } from "vitest";
import { secretsApi } from "../support/emulator";
import { hostChecked, urn, useHosts } from "../support/protocol";

const PLUGIN = "secrets:PluginCatalogEntry";
const PLUGIN_ENV = "Pq9Zx4Wm7Tk2Lr8V";

const { emu, root: root_, user } = useHosts({
  // configured with the sudo token
  root: (emu) => ({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsRoot }),
  // configured with the non-sudo token
  user: (emu) => ({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsUser }),
});

const get = (path: string) => secretsApi(emu, "GET", path);

describe("a plugin catalog entry through the real dynamic-provider host", () => {
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
});
