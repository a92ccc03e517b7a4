import * as pulumi from "@pulumi/pulumi";
import { afterEach, describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { verifyNotificationConfiguration, verifyNotificationConfigurationOutput } from "../../src/runs";
import { control, requests, useEmulator } from "../support/emulator";

const { emu } = useEmulator();
// pulumi.runtime.setConfig writes the SDK's process-wide store: a later test would read the stack
// config a test set (it wins over the environment). Each test leaves it as it found it.
const configBefore = pulumi.runtime.allConfig();
afterEach(() => pulumi.runtime.setAllConfig(configBefore));
const mocks: pulumi.runtime.Mocks = {
  newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }),
  call: (a) => a.inputs,
};

async function anEmailConfiguration(): Promise<string> {
  const { inputs } = (await call("runs:NotificationConfiguration", "check", [{}, {
    workspaceId: emu.workspaceId, name: "mail", destinationType: "email", emailUsers: ["usr-admin000000001"],
  }])) as { inputs: Record<string, unknown> };
  return ((await call("runs:NotificationConfiguration", "create", [inputs])) as { id: string }).id;
}

describe("side-effecting functions", () => {
  it("make no request during preview: the Output is unknown and the Promise resolves to undefined", async () => {
    const id = await anEmailConfiguration();
    await control(emu, "DELETE", "/requests");
    await pulumi.runtime.setMocks(mocks, "proj", "stack", true);
    const out = verifyNotificationConfigurationOutput({ id });
    expect(await (out as unknown as { isKnown: Promise<boolean> }).isKnown).toBe(false);
    expect(await verifyNotificationConfiguration({ id })).toBeUndefined();
    expect(await requests(emu)).toEqual([]);
  });

  it("act during an update, with Input arguments", async () => {
    const id = await anEmailConfiguration();
    await control(emu, "DELETE", "/requests");
    await pulumi.runtime.setMocks(mocks, "proj", "stack", false);
    const out = verifyNotificationConfigurationOutput({ id: pulumi.output(Promise.resolve(id)) });
    const value = await new Promise((resolve) => out.apply(resolve));
    expect(value).toMatchObject({ id, enabled: false });
    expect((await requests(emu)).map((r) => `${r.method} ${r.path}`)).toEqual([`POST /api/v2/notification-configurations/${id}/actions/verify`]);
  });

  it("read stack config (svc:*) before the environment", async () => {
    const id = await anEmailConfiguration();
    await pulumi.runtime.setMocks(mocks, "proj", "stack", false);
    const saved = process.env.SVC_RUN_TOKEN;
    process.env.SVC_RUN_TOKEN = "wrong-token";
    pulumi.runtime.setConfig("svc:runToken", emu.tokens.runAdmin);
    try {
      await expect(verifyNotificationConfiguration({ id })).resolves.toMatchObject({ id });
    } finally {
      process.env.SVC_RUN_TOKEN = saved;
    }
  });
});
