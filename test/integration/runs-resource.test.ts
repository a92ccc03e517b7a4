import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { PartialFailure } from "../../src/core/definition";
import { checked, created } from "../support/calls";
import { control, requests, runApi, useEmulator } from "../support/emulator";
import { advance, advanceUntil, clock, confirmable, outcome, pollsPastDeadline, runDoc, until, workspaceRuns } from "./runs-support";

const { emu } = useEmulator();
const KIND = "runs:Run";
type Props = Record<string, any>;

const base = () => ({ workspaceId: emu.workspaceId, message: "resource test", pollIntervalSeconds: 0.02, triggers: { release: "1" } });

/** The run a create in flight has queued (the only one in the workspace). */
const queued = () => until("the run to be queued", async () => (await workspaceRuns(emu))[0]?.id);

describe("Run create", () => {
  it("queues the run and returns at once by default", async () => {
    const { id, outs } = await created(KIND, base());
    expect(id).toMatch(/^run-/);
    expect(outs).toMatchObject({
      runId: id, status: "pending", hasChanges: false, workspaceId: emu.workspaceId, message: "resource test",
      triggers: { release: "1" }, waitFor: "none", applyWhenConfirmable: false, timeoutSeconds: 1800,
      statusTimestamps: { planQueueableAt: expect.any(String) }, createdAt: expect.any(String),
    });
    expect((await runDoc(emu, id)).attributes.message).toBe("resource test");
  });

  it("waits for completion, applying as soon as the run is confirmable", async () => {
    await clock(emu, 20);
    try {
      const { id, outs } = await created(KIND, { ...base(), waitFor: "completed", applyWhenConfirmable: true, timeoutSeconds: 30 });
      expect(outs).toMatchObject({ runId: id, status: "applied", hasChanges: true, statusTimestamps: { appliedAt: expect.any(String), confirmedAt: expect.any(String) } });
      const applies = (await requests(emu)).filter((r) => r.path.endsWith("/actions/apply"));
      expect(applies).toEqual([expect.objectContaining({ status: 202 })]);
    } finally {
      await clock(emu, 0);
    }
  });

  it("waits for 'planned' and leaves a run paused for confirmation alone", async () => {
    const pending = created(KIND, { ...base(), waitFor: "planned", timeoutSeconds: 20 });
    const id = await queued();
    await advanceUntil(emu, id, confirmable);
    const { outs } = await pending;
    expect(outs.status).toBe((await runDoc(emu, id)).attributes.status);
    expect((await runDoc(emu, id)).attributes.actions["is-confirmable"]).toBe(true);
    expect((await requests(emu)).filter((r) => r.path.includes("/actions/"))).toEqual([]);
  });

  it("does not apply a run that finished planning without changes", async () => {
    const pending = created(KIND, { ...base(), waitFor: "completed", applyWhenConfirmable: true, timeoutSeconds: 20 });
    const id = await queued();
    await outcome(emu, id, { hasChanges: false });
    await advanceUntil(emu, id, (d) => d.attributes.status === "planned_and_finished");
    expect((await pending).outs).toMatchObject({ status: "planned_and_finished", hasChanges: false });
    expect((await requests(emu)).filter((r) => r.path.includes("/actions/"))).toEqual([]);
  });

  it("fails, keeping the run in state, when the awaited run errors", async () => {
    const pending = created(KIND, { ...base(), waitFor: "completed", timeoutSeconds: 20 }).catch((e) => e);
    const id = await queued();
    await outcome(emu, id, { error: "plan" });
    await advanceUntil(emu, id, (d) => d.attributes.status === "errored");
    const err = await pending;
    expect(err).toBeInstanceOf(PartialFailure);
    expect(err.id).toBe(id);
    expect(err.message).toMatch(new RegExp(`^run ${id} ended errored \\(run ${id} is kept in state`));
    expect(err.properties).toMatchObject({ runId: id, status: "errored", message: "resource test" });
  });

  it("times out cleanly: a pending run is discarded and the error names it", async () => {
    const err = await created(KIND, { ...base(), waitFor: "completed", timeoutSeconds: 0.4 }).catch((e) => e);
    expect(err).toBeInstanceOf(PartialFailure);
    const id = err.id as string;
    expect(id).toMatch(/^run-/);
    expect(err.message).toContain(`run ${id} did not reach completed within 0.4 s (it is pending); it was discarded`);
    // It stopped at its deadline: no more than the one poll that found the time was up came after it.
    expect(await pollsPastDeadline(emu, id, 0.4)).toBeLessThanOrEqual(1);
    expect((await runDoc(emu, id)).attributes.status).toBe("discarded");
    expect(err.properties).toMatchObject({ runId: id, status: "discarded" });
  });

  it("times out cleanly: a planning run is canceled", async () => {
    const pending = created(KIND, { ...base(), waitFor: "completed", applyWhenConfirmable: true, timeoutSeconds: 1 }).catch((e) => e);
    const id = await queued();
    await advance(emu, id, "planning");
    const err = await pending;
    expect(err).toBeInstanceOf(PartialFailure);
    expect(err.id).toBe(id);
    expect(err.message).toContain(`run ${id} did not reach confirmation within 1 s (it is planning); it was canceled`);
    const doc = await runDoc(emu, id);
    expect(doc.attributes.force_cancel_available_at).toEqual(expect.any(String));
    expect((await advance(emu, id)).attributes.status).toBe("canceled");
    // The next up (the engine's update after the partial failure) reads the run it stopped: no error, no action.
    await control(emu, "DELETE", "/requests");
    const inputs = { ...base(), waitFor: "completed", applyWhenConfirmable: true, timeoutSeconds: 1 };
    const { outs } = (await call(KIND, "update", [id, err.properties, await checked(KIND, inputs)])) as { outs: Props };
    expect(outs).toMatchObject({ runId: id, status: "canceled" });
    expect((await requests(emu)).filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("does not queue a second run when the create's response is lost", async () => {
    await control(emu, "POST", "/faults", { method: "POST", path: "/api/v2/runs", status: 502, when: "after", count: 1 });
    const { id } = await created(KIND, base());
    expect((await workspaceRuns(emu)).map((r) => r.id)).toEqual([id]);
  });
});

describe("a wait interrupted by an unreachable service is taken up by the next up (the engine's update)", () => {
  it.each([
    ["pending", async (_id: string) => undefined],
    ["still planning", async (id: string) => void (await advance(emu, id, "planning"))],
    // Stepped through the control endpoint: the service's own reads of the run fail by now.
    ["paused for confirmation", async (id: string) => {
      for (let doc = await advance(emu, id); !confirmable(doc); doc = await advance(emu, id));
    }],
  ])("interrupted while the run is %s: it is applied and completes, with one apply and no second run", async (_label, moveTo) => {
    const inputs = { ...base(), waitFor: "completed", applyWhenConfirmable: true, timeoutSeconds: 30 };
    const pending = created(KIND, inputs).catch((e: unknown) => e);
    const id = await queued();
    // Every read of the run fails from now on, until the retries of the create's wait run out.
    await control(emu, "POST", "/faults", { method: "GET", path: `/api/v2/runs/${id}`, status: 503, count: 10_000 });
    await moveTo(id);
    const err = (await pending) as PartialFailure;
    expect(err).toBeInstanceOf(PartialFailure);
    expect(err.message).toContain(`run ${id} is kept in state`);
    await control(emu, "DELETE", "/faults");
    expect(["pending", "planning", "planned"]).toContain((await runDoc(emu, id)).attributes.status);
    await clock(emu, 20);
    try {
      const { outs } = (await call(KIND, "update", [id, err.properties, await checked(KIND, inputs)])) as { outs: Props };
      expect(outs).toMatchObject({ runId: id, status: "applied" });
      expect((await runDoc(emu, id)).attributes.status).toBe("applied");
      expect((await requests(emu)).filter((r) => r.path.endsWith("/actions/apply") && r.status === 202)).toHaveLength(1);
      expect(await workspaceRuns(emu)).toHaveLength(1);
    } finally {
      await clock(emu, 0);
    }
  });

  it("a run that errored while nobody waited fails the next up, saying how it ended; one that had ended before is only read", async () => {
    const inputs = { ...base(), waitFor: "completed", applyWhenConfirmable: true, timeoutSeconds: 30 };
    const { id, outs } = await created(KIND, { ...base() });
    await outcome(emu, id, { error: "plan" });
    await advanceUntil(emu, id, (d) => d.attributes.status === "errored");
    const interrupted = { ...outs, waitFor: "completed", applyWhenConfirmable: true, timeoutSeconds: 30 };
    const e = await call(KIND, "update", [id, interrupted, await checked(KIND, inputs)]).catch((x: unknown) => x) as PartialFailure;
    expect(e).toBeInstanceOf(PartialFailure);
    expect(e.message).toMatch(new RegExp(`^run ${id} ended errored \\(run ${id} is kept in state`));
    // Its end is now in state: the up after that reads it and passes.
    const { outs: again } = (await call(KIND, "update", [id, e.properties, await checked(KIND, inputs)])) as { outs: Props };
    expect(again).toMatchObject({ runId: id, status: "errored" });
  });
});

describe("Run read, update and delete", () => {
  it("refreshes the status on read and keeps the inputs", async () => {
    const { id, outs } = await created(KIND, base());
    await advance(emu, id, "planning");
    const read = (await call(KIND, "read", [id, outs])) as { id: string; props: Props };
    expect(read).toMatchObject({ id, props: { status: "planning", message: "resource test", triggers: { release: "1" }, waitFor: "none" } });
    expect(await call(KIND, "diff", [id, read.props, await checked(KIND, base())])).toMatchObject({ changes: false });
  });

  it("drops a run the service no longer knows on refresh, and deleting it is a no-op", async () => {
    const props = { workspaceId: emu.workspaceId };
    expect(await call(KIND, "read", ["run-doesnotexist1", props])).toEqual({ id: "", props: {} });
    await expect(call(KIND, "delete", ["run-doesnotexist1", props])).resolves.toBeUndefined();
  });

  it("update (only local settings changed) reads the run and sends nothing", async () => {
    const { id, outs } = await created(KIND, base());
    await control(emu, "DELETE", "/requests");
    const { outs: after } = (await call(KIND, "update", [id, outs, await checked(KIND, { ...base(), waitFor: "completed", timeoutSeconds: 60 })])) as { outs: Props };
    expect(after).toMatchObject({ runId: id, status: "pending", waitFor: "completed", timeoutSeconds: 60 });
    expect((await requests(emu)).map((r) => r.method)).toEqual(["GET"]);
  });

  it("delete discards a run that can be discarded", async () => {
    const { id, outs } = await created(KIND, base());
    await advanceUntil(emu, id, confirmable);
    await call(KIND, "delete", [id, outs]);
    expect((await runDoc(emu, id)).attributes.status).toBe("discarded");
  });

  it("delete cancels a run that is applying", async () => {
    const { id, outs } = await created(KIND, base());
    await advanceUntil(emu, id, confirmable);
    expect((await runApi(emu, "POST", `/runs/${id}/actions/apply`, {})).status).toBe(202);
    await advanceUntil(emu, id, (d) => d.attributes.status === "applying");
    await call(KIND, "delete", [id, outs]);
    expect((await runDoc(emu, id)).attributes.force_cancel_available_at).toEqual(expect.any(String));
    expect((await requests(emu)).filter((r) => r.path === `/api/v2/runs/${id}/actions/cancel`)).toHaveLength(1);
  });

  it("delete of a run that already ended sends no action", async () => {
    const { id, outs } = await created(KIND, base());
    await outcome(emu, id, { error: "plan" });
    await advanceUntil(emu, id, (d) => d.attributes.status === "errored");
    await control(emu, "DELETE", "/requests");
    await call(KIND, "delete", [id, outs]);
    expect((await requests(emu)).map((r) => `${r.method} ${r.path}`)).toEqual([`GET /api/v2/runs/${id}`]);
  });
});
