import { describe, expect, it } from "vitest";
import { control, secretsApi } from "../support/emulator";
import { hostChecked, urn, useHosts } from "../support/protocol";

const MFA = "secrets:MfaDualFactorMethod";
const DUO_SECRET = "protocol-duo-secret-5a4b3c";

const { emu, user } = useHosts({
  // configured with the non-sudo token
  user: (emu) => ({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsUser }),
});

const get = (path: string) => secretsApi(emu, "GET", path);

describe("a dual-factor MFA method through the real dynamic-provider host", () => {
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
