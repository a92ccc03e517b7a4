// Issue 52, item 5: two stacks take over the same registry access config (the same import deployed
// twice), and the second one's destroy deletes it. The first stack's plain preview reads nothing and
// says unchanged, as for every kind (docs/adopting.md, "One object, one stack"); its refresh finds
// the config gone, as the take-over warning says, and its next up writes it again. Through the
// engine double, each stack on a state of its own against one emulator.
import * as pulumi from "@pulumi/pulumi";
import { afterAll, describe, expect, it } from "vitest";
import type * as emulatorTypes from "../../src/emulator";
import { fromDist } from "../support/dist";
import { control, secretsApi } from "../support/emulator";
import { openStacks, svc, testStack } from "../support/testing";

// The built package's emulator, as pulumi-svc/testing's stacks use it (useEmulator starts the
// source's), shared by the test's two stacks.
const { startEmulator } = fromDist<typeof emulatorTypes>("src/emulator/index.js");

const open = openStacks();
let emulator: emulatorTypes.Emulator | undefined;
afterAll(async () => {
  await emulator?.close();
});

const program = () => {
  new svc.secrets.registry.AccessConfig("access", { address: "registry.internal:8500", token: new pulumi.Config().requireSecret("registryToken"), adopt: true });
};

describe("a registry access config another stack's destroy deleted", { timeout: 180_000 }, () => {
  it("is gone on the first stack's refresh, and its next up writes it again", async () => {
    emulator = await startEmulator();
    const token = (await control<{ token: string }>(emulator, "POST", "/registry/tokens", { type: "management" })).token;
    const stacks = [];
    for (const name of ["first", "second"]) {
      const stack = await testStack({ program, emulator, stack: name, config: { registryToken: { secret: token } } });
      open.push(stack);
      const up = await stack.up();
      expect(up.changes).toEqual({ create: 1 });
      stacks.push(stack);
    }
    const [first, second] = stacks;
    expect((await second!.destroy()).changes).toEqual({ delete: 1 });
    expect((await secretsApi(emulator, "GET", "/registry/config/access")).status).toBe(404);

    // A plain preview reads nothing: unchanged, as for any kind.
    expect((await first!.preview()).changes).toEqual({ same: 1 });
    // Soft: a refresh that kept it would also leave the up with nothing to do, and both are said.
    expect.soft((await first!.refresh()).changes).toEqual({ "read-gone": 1 });
    expect.soft((await first!.up()).changes).toEqual({ create: 1 });
    expect((await secretsApi(emulator, "GET", "/registry/config/access")).body.data).toMatchObject({ address: "registry.internal:8500" });
    expect((await first!.preview()).changes).toEqual({ same: 1 });
  });
});
