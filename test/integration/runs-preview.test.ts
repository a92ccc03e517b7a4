import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import * as runs from "../../src/runs";
import { control, requests, useEmulator } from "../support/emulator";
import { queueRaw } from "./runs-support";

const { emu } = useEmulator();
const mocks: pulumi.runtime.Mocks = {
  newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }),
  call: (a) => a.inputs,
};
const isKnown = (o: pulumi.Output<unknown>) => (o as unknown as { isKnown: Promise<boolean> }).isKnown;
const value = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));

describe("run functions during preview", () => {
  it("side-effecting ones make no request: Outputs are unknown, Promises resolve to undefined", async () => {
    const runId = await queueRaw(emu);
    await control(emu, "DELETE", "/requests");
    await pulumi.runtime.setMocks(mocks, "proj", "stack", true);
    const ws = emu.workspaceId;
    const outputs = [
      runs.createRunOutput({ workspaceId: ws, message: "preview" }),
      runs.applyRunOutput({ runId, comment: "approved" }),
      runs.discardRunOutput({ runId }),
      runs.cancelRunOutput({ runId }),
      runs.forceCancelRunOutput({ runId }),
      runs.forceExecuteRunOutput({ runId: pulumi.output(runId) }),
      runs.waitForRunOutput({ runId, timeoutSeconds: 1 }),
    ];
    for (const o of outputs) expect(await isKnown(o)).toBe(false);
    expect(await runs.createRun({ workspaceId: ws })).toBeUndefined();
    expect(await runs.applyRun({ runId })).toBeUndefined();
    expect(await runs.discardRun({ runId })).toBeUndefined();
    expect(await runs.cancelRun({ runId })).toBeUndefined();
    expect(await runs.forceCancelRun({ runId })).toBeUndefined();
    expect(await runs.forceExecuteRun({ runId })).toBeUndefined();
    expect(await runs.waitForRun({ runId })).toBeUndefined();
    expect(await requests(emu)).toEqual([]);
  });

  it("read-only ones still answer during preview", async () => {
    const runId = await queueRaw(emu);
    await pulumi.runtime.setMocks(mocks, "proj", "stack", true);
    expect(await value(runs.getRunOutput({ runId }))).toMatchObject({ id: runId, status: "pending" });
    expect((await runs.listRuns({ workspaceId: emu.workspaceId })).map((r) => r.id)).toEqual([runId]);
    expect((await requests(emu)).filter((r) => r.method !== "GET")).toHaveLength(1); // only the queueRaw POST
  });

  it("the same calls act outside preview", async () => {
    const runId = await queueRaw(emu);
    await pulumi.runtime.setMocks(mocks, "proj", "stack", false);
    const discarded = await value(runs.discardRunOutput({ runId: pulumi.output(Promise.resolve(runId)), comment: "not needed" }));
    expect(discarded).toMatchObject({ id: runId, status: "discarded" });
    expect((await requests(emu)).map((r) => `${r.method} ${r.path}`)).toContain(`POST /api/v2/runs/${runId}/actions/discard`);
  });
});
