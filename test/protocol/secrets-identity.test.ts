import { describe, expect, it } from "vitest";
import { hostChecked, urn, useHosts } from "../support/protocol";

const ALIAS = "secrets:IdentityEntityAlias";

const { user } = useHosts({
  // configured with the non-sudo token
  user: (emu) => ({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsUser }),
});

describe("an entity alias through the real dynamic-provider host", () => {
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
});
