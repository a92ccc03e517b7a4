import { describe, expect, it } from "vitest";
import { createRun, getRun, waitForRun, RunWaitTimeoutError } from "../../src/runs";
import { control, requests, runApi, useEmulator } from "../support/emulator";
import { advance, advanceUntil, clock, confirmable, pollsPastDeadline, runDoc, workspaceRuns } from "./runs-support";

const { emu } = useEmulator();

/** A promise awaited later: its rejection must not surface as unhandled if the test fails first. */
function settled<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

describe("createRun", () => {
  it("queues a run with every create attribute and returns it in camelCase", async () => {
    const run = await createRun({
      workspaceId: emu.workspaceId, configurationVersionId: "cv-example00000001", message: "every attribute",
      isDestroy: false, refreshOnly: false, refresh: false, planOnly: true, autoApply: false, allowEmptyApply: true,
      allowConfigGeneration: true, targetAddrs: ["aws_instance.a"], replaceAddrs: ["aws_instance.b"],
      variables: [{ key: "region", value: "\"eu-west-1\"" }], toolVersion: "1.9.0",
    });
    expect(run).toMatchObject({
      id: expect.stringMatching(/^run-/), status: "pending", message: "every attribute", source: "svc-api",
      isDestroy: false, refreshOnly: false, refresh: false, planOnly: true, autoApply: false, allowEmptyApply: true, allowConfigGeneration: true,
      targetAddrs: ["aws_instance.a"], replaceAddrs: ["aws_instance.b"], variables: [{ key: "region", value: "\"eu-west-1\"" }],
      toolVersion: "1.9.0", workspaceId: emu.workspaceId, configurationVersionId: "cv-example00000001",
      actions: { isDiscardable: true, isConfirmable: false }, statusTimestamps: { planQueueableAt: expect.any(String) },
    });
    // What the service stored, read without provider code.
    const doc = await runDoc(emu, run.id);
    expect(doc.attributes).toMatchObject({ "plan-only": true, "allow-config-generation": true, "tool-version": "1.9.0", refresh: false });
  });

  it("uses the service's defaults for what is not given", async () => {
    const run = await createRun({ workspaceId: emu.workspaceId });
    expect(run).toMatchObject({ isDestroy: false, refresh: true, planOnly: false, configurationVersionId: "cv-example00000001" });
    expect(run.message).not.toBe("");
  });

  it("reports an unknown workspace as not found", async () => {
    const err = await createRun({ workspaceId: "ws-missing" }).catch((e) => e);
    expect(err).toMatchObject({ code: "not_found", status: 404 });
    expect(err.message).toMatch(/^createRun: POST \/runs: 404/);
  });

  it("does not queue a second run when the response is lost after the service acted", async () => {
    await control(emu, "POST", "/faults", { method: "POST", path: "/api/v2/runs", status: 503, when: "after", count: 1 });
    const run = await createRun({ workspaceId: emu.workspaceId, message: "lost response" });
    const all = await workspaceRuns(emu);
    expect(all.map((r) => r.id)).toEqual([run.id]);
    const posts = (await requests(emu)).filter((r) => r.method === "POST");
    expect(posts).toHaveLength(1); // found by listing, not sent again
  });

  it("queues exactly one when the connection drops before the service acted", async () => {
    await control(emu, "POST", "/faults", { method: "POST", path: "/api/v2/runs", drop: true, count: 1 });
    const run = await createRun({ workspaceId: emu.workspaceId, message: "dropped" });
    expect((await workspaceRuns(emu)).map((r) => r.id)).toEqual([run.id]);
    expect((await requests(emu)).filter((r) => r.method === "POST")).toHaveLength(2);
  });

  it("never takes a recent run with other attributes for the lost one", async () => {
    // A run queued just before with other attributes is never taken for the lost one.
    const other = await createRun({ workspaceId: emu.workspaceId, message: "someone else" });
    await control(emu, "POST", "/faults", { method: "POST", path: "/api/v2/runs", status: 503, when: "after", count: 1 });
    const run = await createRun({ workspaceId: emu.workspaceId, message: "mine", isDestroy: true });
    expect(run.id).not.toBe(other.id);
    expect(run).toMatchObject({ message: "mine", isDestroy: true });
    expect(await workspaceRuns(emu)).toHaveLength(2);
  });
});

describe("getRun", () => {
  it("reads a run, with related resources when asked", async () => {
    const { id } = await createRun({ workspaceId: emu.workspaceId });
    const plain = await getRun({ runId: id });
    expect(plain).toMatchObject({ id, status: "pending" });
    expect(plain).not.toHaveProperty("included");
    const withPlan = await getRun({ runId: id, include: ["plan", "created_by"] });
    expect(withPlan.included!.map((r) => r.type).sort()).toEqual(expect.arrayContaining(["plans"]));
    expect(withPlan.planId).toBe(withPlan.included!.find((r) => r.type === "plans")!.id);
    const logged = (await requests(emu)).filter((r) => r.method === "GET").at(-1)!;
    expect(logged.path).toBe(`/api/v2/runs/${id}`);
  });

  it("is a NotFoundError for an unknown run", async () => {
    await expect(getRun({ runId: "run-missing" })).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("waitForRun", () => {
  it("polls until the run completes while the emulator's timer moves it", async () => {
    const { id } = await createRun({ workspaceId: emu.workspaceId, autoApply: true });
    await clock(emu, 20);
    try {
      const run = await waitForRun({ runId: id, pollIntervalSeconds: 0.05, timeoutSeconds: 20 });
      expect(run).toMatchObject({ id, status: "applied", statusTimestamps: { appliedAt: expect.any(String) } });
    } finally {
      await clock(emu, 0);
    }
  });

  it("stops at a target status, and at 'planned' when the run is paused for confirmation", async () => {
    const { id } = await createRun({ workspaceId: emu.workspaceId });
    const waiting = settled(waitForRun({ runId: id, statuses: ["planning"], pollIntervalSeconds: 0.02, timeoutSeconds: 10 }));
    await advance(emu, id, "planning");
    expect((await waiting).status).toBe("planning");
    const planned = settled(waitForRun({ runId: id, until: "planned", pollIntervalSeconds: 0.02, timeoutSeconds: 10 }));
    await advanceUntil(emu, id, confirmable);
    expect((await planned).actions.isConfirmable).toBe(true);
  });

  it("returns a run that ended errored (it does not throw)", async () => {
    const { id } = await createRun({ workspaceId: emu.workspaceId });
    await control(emu, "POST", `/runs/${id}/outcome`, { error: "plan" });
    await advanceUntil(emu, id, (d) => d.attributes.status === "errored");
    expect((await waitForRun({ runId: id, timeoutSeconds: 5 })).status).toBe("errored");
  });

  it("gives up after the timeout with an error naming the run and its status", async () => {
    const { id } = await createRun({ workspaceId: emu.workspaceId });
    const err = await waitForRun({ runId: id, timeoutSeconds: 0.3, pollIntervalSeconds: 0.05 }).catch((e) => e);
    expect(err).toBeInstanceOf(RunWaitTimeoutError);
    expect(err.message).toBe(`waitForRun: run ${id} did not reach completed within 0.3 s (it is pending)`);
    expect(err.runId).toBe(id);
    // It stopped at its deadline: no more than the one poll that found the time was up came after it.
    expect(await pollsPastDeadline(emu, id, 0.3)).toBeLessThanOrEqual(1);
    // Waiting only reads.
    expect((await requests(emu)).filter((r) => r.method !== "GET")).toHaveLength(1);
    expect((await runApi(emu, "GET", `/runs/${id}`)).body.data.attributes.status).toBe("pending");
  });
});
