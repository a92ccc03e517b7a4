// Outputs of inputs the program left out, under the real Pulumi CLI: they carry the provider's
// values (defaults included), and a reference to one is a dependency in the state, so a role and a
// library set given `mount: config.mount` are created after the config on a directory mount that
// has none yet, and deleted before it (test/engine/outputs.test.ts runs the engine double).
import * as path from "node:path";
import { expect, it } from "vitest";
import { control } from "../support/emulator";
import { CliStack, cliScenarios, describeCli, nameOf } from "./cli";

const { emu, stacks } = cliScenarios();

describeCli("outputs of inputs left out, under the real Pulumi CLI", () => {
  it("carry the provider's values and order what refers to them: the state records the dependency, a fresh mount deploys, destroy deletes dependents first", async () => {
    await control(emu(), "POST", "/directory/accounts", { accounts: ["svc-app", "svc-pool"] });
    const s = await CliStack.create({
      project: "outputs", program: path.join(__dirname, "programs/outputs/index.js"),
      config: { "svc:secretsUrl": emu().secretsUrl }, secretConfig: { "svc:secretsToken": emu().tokens.secretsRoot },
    });
    stacks.push(s);
    const up = await s.up();
    expect(up.code, up.text).toBe(0);
    expect(await s.outputs()).toEqual({ mount: "directory", keyType: "rsa-2048" });
    const resources = (await s.state()).resources;
    const urnOf = (name: string) => resources.find((r) => nameOf(r.urn) === name)!.urn;
    expect(resources.find((r) => nameOf(r.urn) === "role")!.dependencies).toEqual([urnOf("dc")]);
    expect(resources.find((r) => nameOf(r.urn) === "set")!.dependencies).toEqual([urnOf("dc")]);
    expect((await s.run(["preview", "--expect-no-changes"])).code).toBe(0);
    const destroy = await s.destroy();
    expect(destroy.code, destroy.text).toBe(0);
    const deleted = destroy.steps.filter((st) => st.op === "delete").map((st) => nameOf(st.urn));
    expect(deleted.indexOf("dc")).toBeGreaterThan(Math.max(deleted.indexOf("role"), deleted.indexOf("set")));
  }, 300_000);
});
