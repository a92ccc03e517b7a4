import { describe, expect, it } from "vitest";
import { control } from "../support/emulator";
import { hostChecked, urn, useHosts } from "../support/protocol";

const ACCESS = "secrets:RegistryAccessConfig";
const RROLE = "secrets:RegistryRole";

const { emu, host } = useHosts({ host: (emu) => ({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsUser }) });

describe("the registry engine through the real dynamic-provider host", () => {
  it("registry access config and role", async () => {
    const { token } = await control<{ token: string }>(emu, "POST", "/registry/tokens", { type: "management" });
    const accessIn = await hostChecked(host, ACCESS, "access", { address: "127.0.0.1:8500", token });
    const access = await host.create(urn(ACCESS, "access"), accessIn);
    expect(access.outs).toMatchObject({ address: "127.0.0.1:8500", scheme: "http", token });
    const roleIn = await hostChecked(host, RROLE, "r", { name: "r", lease: "1h", policies: ["read"] });
    const role = await host.create(urn(RROLE, "r"), roleIn);
    const read = await host.read(urn(RROLE, "r"), role.id, role.outs);
    expect(await host.diff(urn(RROLE, "r"), role.id, read.props, roleIn)).toMatchObject({ changes: false });
    await host.delete(urn(RROLE, "r"), role.id, role.outs);
    await host.delete(urn(ACCESS, "access"), access.id, access.outs);
    expect(host.stderr()).not.toContain(token);
  });
});
