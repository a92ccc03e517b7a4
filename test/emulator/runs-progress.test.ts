import { describe, expect, test } from "vitest";
import { startEmulator } from "../../src/emulator";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";
import { runsApi } from "./runs-helpers";

const { emu } = useEmulator();
const api = runsApi(emu);

/** Steps one at a time until the run stops, returning every status it passed through. */
async function walk(id: string): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < 30; i++) {
    const res = await api.advance(id);
    if (res.status !== 200) return seen;
    seen.push(res.json.data.attributes.status);
  }
  throw new Error("run never stopped");
}

async function seedWorkspace(ws: Record<string, unknown>): Promise<string> {
  const id = `ws-${Math.random().toString(36).slice(2, 10)}`;
  const res = await api.seed({ workspaces: [{ id, name: id, ...ws }], configurationVersions: [{ workspaceId: id }] });
  expect(res.status).toBe(200);
  return id;
}

describe("the run path", () => {
  test("a plan with changes pauses for confirmation; apply takes it to applied", async () => {
    const id = await api.createId();
    expect(await walk(id)).toEqual(["plan_queued", "planning", "planned"]);
    const paused = await api.get(id);
    expect(paused.json.data.attributes["has-changes"]).toBe(true);
    expect(paused.json.data.attributes.actions).toMatchObject({ "is-confirmable": true, "is-discardable": true, "is-cancelable": false });
    const refused = await api.advance(id);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toContain("paused for confirmation");
    expect((await api.action(id, "apply")).status).toBe(202);
    expect(await api.status(id)).toBe("confirmed");
    expect(await walk(id)).toEqual(["apply_queued", "applying", "applied"]);
    const ts = (await api.get(id)).json.data.attributes["status-timestamps"];
    expect(Object.keys(ts)).toEqual(["plan-queueable-at", "plan-queued-at", "planning-at", "planned-at", "confirmed-at", "apply-queued-at", "applying-at", "applied-at"]);
    expect((await api.advance(id)).status).toBe(409);
  });

  test("advance with `to` walks there; a status not ahead → 409 and nothing moves", async () => {
    const id = await api.createId();
    const res = await api.advance(id, "planned");
    expect(res.status).toBe(200);
    expect(res.json.data.attributes.status).toBe("planned");
    expect((await api.advance(id, "planned")).json.data.attributes.status).toBe("planned");
    const bad = await api.advance(id, "applied");
    expect(bad.status).toBe(409);
    expect(await api.status(id)).toBe("planned");
    expect((await api.advance(id, "bogus")).status).toBe(400);
    expect((await api.advance("run-missing")).status).toBe(404);
  });

  test("auto-apply goes from the plan to confirmed without an action", async () => {
    const id = await api.createId({}, { workspaceId: "ws-autoapply000001" });
    expect(await walk(id)).toEqual(["plan_queued", "planning", "planned", "confirmed", "apply_queued", "applying", "applied"]);
  });

  test("auto-apply needs a creator allowed to apply: a member's run waits for confirmation", async () => {
    const id = await api.createId({}, { workspaceId: "ws-autoapply000001", who: "runMember" });
    expect(await walk(id)).toEqual(["plan_queued", "planning", "planned"]);
    expect((await api.get(id)).json.data.attributes.actions["is-confirmable"]).toBe(true);
  });

  test("a plan-only run ends in planned_and_finished and can never be applied", async () => {
    const id = await api.createId({ "plan-only": true });
    expect(await walk(id)).toEqual(["plan_queued", "planning", "planned", "planned_and_finished"]);
    expect((await api.action(id, "apply")).status).toBe(409);
  });

  test("a plan without changes ends in planned_and_finished", async () => {
    const id = await api.createId();
    await api.outcome(id, { hasChanges: false });
    expect(await walk(id)).toEqual(["plan_queued", "planning", "planned", "planned_and_finished"]);
    expect((await api.get(id)).json.data.attributes["has-changes"]).toBe(false);
  });

  test("allow-empty-apply lets a plan without changes be applied", async () => {
    const id = await api.createId({ "allow-empty-apply": true });
    await api.outcome(id, { hasChanges: false });
    expect(await walk(id)).toEqual(["plan_queued", "planning", "planned"]);
    expect((await api.action(id, "apply")).status).toBe(202);
  });

  test("cost estimation adds its two states before the pause", async () => {
    const ws = await seedWorkspace({ costEstimation: true });
    const id = await api.createId({}, { workspaceId: ws });
    expect(await walk(id)).toEqual(["plan_queued", "planning", "planned", "cost_estimating", "cost_estimated"]);
    const doc = await api.get(id, "runAdmin", "?include=cost_estimate");
    expect(doc.json.data.attributes.actions["is-confirmable"]).toBe(true);
    expect(doc.json.included[0].attributes.status).toBe("finished");
  });

  test("a passed policy check ends in policy_checked, which is appliable and discardable", async () => {
    const ws = await seedWorkspace({ policy: "passed", costEstimation: true });
    const id = await api.createId({}, { workspaceId: ws });
    expect(await walk(id)).toEqual(["plan_queued", "planning", "planned", "cost_estimating", "cost_estimated", "policy_checking", "policy_checked"]);
    const doc = await api.get(id);
    expect(doc.json.data.attributes.actions).toMatchObject({ "is-confirmable": true, "is-discardable": true });
    expect(doc.json.data.relationships["policy-checks"].data).toEqual([{ id: expect.stringMatching(/^polchk-/), type: "policy-checks" }]);
    expect((await api.action(id, "apply")).status).toBe(202);
    expect(await walk(id)).toEqual(["apply_queued", "applying", "applied"]);
  });

  test("a soft-failed policy on an apply run → policy_override, not appliable, discardable", async () => {
    const ws = await seedWorkspace({ policy: "soft-failed" });
    const id = await api.createId({}, { workspaceId: ws });
    expect(await walk(id)).toEqual(["plan_queued", "planning", "planned", "policy_checking", "policy_override"]);
    const doc = await api.get(id);
    expect(doc.json.data.attributes.actions).toMatchObject({ "is-confirmable": false, "is-discardable": true });
    const apply = await api.action(id, "apply");
    expect(apply.status).toBe(409);
    expect(apply.json.errors[0].detail).toContain("policy_override");
    expect((await api.action(id, "discard")).status).toBe(202);
    expect(await api.status(id)).toBe("discarded");
  });

  test("a soft-failed policy on a plan-only run → policy_soft_failed, final", async () => {
    const ws = await seedWorkspace({ policy: "soft-failed" });
    const id = await api.createId({ "plan-only": true }, { workspaceId: ws });
    expect(await walk(id)).toEqual(["plan_queued", "planning", "planned", "policy_checking", "policy_soft_failed"]);
  });

  test("a hard-failed policy → errored; the outcome endpoint overrides the workspace's policy", async () => {
    const id = await api.createId();
    expect((await api.outcome(id, { policy: "hard-failed" })).status).toBe(200);
    expect(await walk(id)).toEqual(["plan_queued", "planning", "planned", "policy_checking", "errored"]);
  });

  test("auto-apply after a passed policy check confirms by itself", async () => {
    const ws = await seedWorkspace({ autoApply: true, policy: "passed" });
    const id = await api.createId({}, { workspaceId: ws });
    expect(await walk(id)).toEqual(["plan_queued", "planning", "planned", "policy_checking", "policy_checked", "confirmed", "apply_queued", "applying", "applied"]);
  });

  test.each([
    ["plan", ["plan_queued", "planning", "errored"]],
    ["apply", ["plan_queued", "planning", "planned", "confirmed", "apply_queued", "applying", "errored"]],
  ])("error %s → errored in that phase", async (phase, path) => {
    const id = await api.createId({}, { workspaceId: "ws-autoapply000001" });
    await api.outcome(id, { error: phase });
    expect(await walk(id)).toEqual(path);
  });

  test("invalid outcomes → 400", async () => {
    const id = await api.createId();
    for (const body of [{ hasChanges: "no" }, { policy: "maybe" }, { error: "both" }]) expect((await api.outcome(id, body)).status).toBe(400);
  });
});

describe("the workspace lock", () => {
  test("one run at a time; later runs wait in pending and start, oldest first, when it completes", async () => {
    const first = await api.createId();
    const second = await api.createId();
    const third = await api.createId();
    await api.advanceTo(first, "planned");
    const waiting = await api.advance(second);
    expect(waiting.status).toBe(409);
    expect(waiting.json.error).toContain("lock");
    expect((await api.advance(second, "planning")).status).toBe(409);
    expect(await api.status(second)).toBe("pending");
    expect((await api.action(first, "discard")).status).toBe(202);
    expect((await api.advance(third)).status).toBe(409);
    expect((await api.advance(second)).json.data.attributes.status).toBe("plan_queued");
  });

  test("workspaces lock independently", async () => {
    const a = await api.createId();
    const waiting = await api.createId();
    const b = await api.createId({}, { workspaceId: "ws-autoapply000001" });
    await api.advanceTo(a, "planning");
    // Another workspace's run is not held back by the lock of the first one's.
    await api.advanceTo(b, "planning");
    expect(await api.status(b)).toBe("planning");
    expect(await api.status(a)).toBe("planning");
    expect(await api.status(waiting), "the first workspace's second run still waits for its lock").toBe("pending");
  });

  test("a final run releases the lock: plan-only and errored runs hand it on", async () => {
    const first = await api.createId({ "plan-only": true });
    const second = await api.createId();
    await api.advanceTo(first, "planned_and_finished");
    await api.outcome(second, { error: "plan" });
    await api.advanceTo(second, "errored");
    const third = await api.createId();
    expect((await api.advance(third)).status).toBe(200);
  });
});

describe("the opt-in timer", () => {
  test("PUT /clock moves every active run one step per tick until it needs a user", async () => {
    const id = await api.createId();
    const queued = await api.createId();
    const clock = await call("PUT", `${emu.controlUrl}/clock`, { body: { autoAdvanceMs: 5 } });
    expect(clock.status).toBe(200);
    const deadline = Date.now() + 5000;
    while ((await api.status(id)) !== "planned" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(await api.status(id)).toBe("planned");
    await new Promise((r) => setTimeout(r, 50));
    expect(await api.status(id)).toBe("planned");
    expect(await api.status(queued)).toBe("pending");
    await call("PUT", `${emu.controlUrl}/clock`, { body: { autoAdvanceMs: 0 } });
    expect((await call("PUT", `${emu.controlUrl}/clock`, { body: { autoAdvanceMs: -1 } })).status).toBe(400);
  });

  test("the startEmulator option starts the timer; reset restores it", async () => {
    const timed = await startEmulator({ autoAdvanceMs: 5 });
    try {
      const t = runsApi(timed);
      const id = await t.createId({}, { workspaceId: "ws-autoapply000001" });
      const deadline = Date.now() + 5000;
      while ((await t.status(id)) !== "applied" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(await t.status(id)).toBe("applied");
      await call("PUT", `${timed.controlUrl}/clock`, { body: { autoAdvanceMs: 0 } });
      await call("POST", `${timed.controlUrl}/reset`);
      expect((await call("GET", `${timed.controlUrl}/clock`)).json.autoAdvanceMs).toBe(5);
    } finally {
      await timed.close();
    }
  });
});

describe("held runs (holdAt)", () => {
  test("a workspace's holdRunsAt keeps its runs in planning: advance and the timer refuse, a cancel still ends them, the lock passes on", async () => {
    const ws = await seedWorkspace({ autoApply: true, holdRunsAt: "planning" });
    const id = await api.createId({}, { workspaceId: ws });
    const next = await api.createId({}, { workspaceId: ws });
    expect(await walk(id)).toEqual(["plan_queued", "planning"]);
    const refused = await api.advance(id);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toContain("held in planning (holdAt)");
    expect((await api.advance(id, "applied")).status).toBe(409);
    expect((await api.get(id)).json.data.attributes.actions).toMatchObject({ "is-cancelable": true, "is-discardable": false });
    expect((await api.action(id, "cancel")).status).toBe(202);
    expect(await walk(id)).toEqual(["canceled"]);
    // The next run took the lock and is held the same way.
    expect(await walk(next)).toEqual(["plan_queued", "planning"]);
  });

  test("the outcome endpoint holds or releases one run; the timer moves every other run", async () => {
    const ws = await seedWorkspace({ autoApply: true });
    const other = await seedWorkspace({ autoApply: true });
    const held = await api.createId({}, { workspaceId: ws });
    const free = await api.createId({}, { workspaceId: other });
    expect((await api.outcome(held, { holdAt: "apply_queued" })).status).toBe(200);
    await call("PUT", `${emu.controlUrl}/clock`, { body: { autoAdvanceMs: 5 } });
    try {
      const deadline = Date.now() + 5000;
      while ((await api.status(free)) !== "applied" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(await api.status(free)).toBe("applied");
      expect(await api.status(held)).toBe("apply_queued");
      // Neither discardable nor cancelable: nothing but a release moves it.
      expect((await api.get(held)).json.data.attributes.actions).toMatchObject({ "is-cancelable": false, "is-discardable": false });
      expect((await api.outcome(held, { holdAt: null })).status).toBe(200);
      while ((await api.status(held)) !== "applied" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(await api.status(held)).toBe("applied");
    } finally {
      await call("PUT", `${emu.controlUrl}/clock`, { body: { autoAdvanceMs: 0 } });
    }
  });

  test("a status the service does not leave by itself cannot be held → 400 naming the field", async () => {
    const id = await api.createId();
    const bad = await api.outcome(id, { holdAt: "pending" });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toContain("holdAt must be one of plan_queued, planning");
    const seed = await api.seed({ workspaces: [{ name: "held", holdRunsAt: "applied" }] });
    expect(seed.status).toBe(400);
    expect(seed.json.error).toContain("workspaces[0].holdRunsAt must be one of");
  });
});
