import { describe, expect, test } from "vitest";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";
import { runsApi, type Who } from "./runs-helpers";

const { emu } = useEmulator();
const api = runsApi(emu);

/** A run of the default workspace walked to `status` (the only run there, so it holds the lock). */
async function runAt(status: string, attributes: Record<string, unknown> = {}): Promise<string> {
  const id = await api.createId(attributes);
  if (status !== "pending") await api.advanceTo(id, status);
  return id;
}

async function expect409(id: string, action: string, status: string): Promise<void> {
  const res = await api.action(id, action);
  expect(res.status, `${action} in ${status}`).toBe(409);
  expect(res.json.errors[0].status).toBe("409");
  expect(res.json.errors[0].detail).toContain(status);
  expect(await api.status(id)).toBe(status);
}

describe("apply", () => {
  test("202 with no body when paused for confirmation; the comment is kept", async () => {
    const id = await runAt("planned");
    const res = await api.action(id, "apply", "runAdmin", { comment: "ship it" });
    expect(res.status).toBe(202);
    expect(res.text).toBe("");
    const doc = await api.get(id);
    expect(doc.json.data.attributes.status).toBe("confirmed");
    expect(doc.json.data.relationships.comments.data).toEqual([{ id: expect.stringMatching(/^wsc-/), type: "comments" }]);
  });

  test.each(["pending", "plan_queued", "planning", "applied"])("409 in %s, naming the status", async (status) => {
    const id = status === "applied" ? await api.createId({}, { workspaceId: "ws-autoapply000001" }) : await runAt(status);
    if (status === "applied") await api.advanceTo(id, "applied");
    await expect409(id, "apply", status);
  });

  test("409 while cost estimation is still to come (planned is not the pause there)", async () => {
    await api.seed({ workspaces: [{ id: "ws-cost", name: "cost", costEstimation: true }], configurationVersions: [{ workspaceId: "ws-cost" }] });
    const id = await api.createId({}, { workspaceId: "ws-cost" });
    await api.advanceTo(id, "planned");
    expect((await api.get(id)).json.data.attributes.actions["is-confirmable"]).toBe(false);
    await expect409(id, "apply", "planned");
  });
});

describe("discard", () => {
  test.each(["pending", "planned"])("202 in %s → discarded, canceled-at stays null", async (status) => {
    const id = await runAt(status);
    expect((await api.action(id, "discard", "runTeam")).status).toBe(202);
    const doc = await api.get(id);
    expect(doc.json.data.attributes.status).toBe("discarded");
    expect(doc.json.data.attributes["status-timestamps"]["discarded-at"]).toBeDefined();
  });

  test.each(["planning", "plan_queued"])("409 in %s", async (status) => {
    await expect409(await runAt(status), "discard", status);
  });

  test("409 on a completed run", async () => {
    const id = await runAt("planned_and_finished", { "plan-only": true });
    await expect409(id, "discard", "planned_and_finished");
  });
});

describe("cancel", () => {
  test.each(["planning", "applying"])("202 in %s; canceled on the next step; force_cancel_available_at set at once", async (status) => {
    const run = await runAt(status === "applying" ? "planned" : "planning");
    if (status === "applying") {
      await api.action(run, "apply");
      await api.advanceTo(run, "applying");
    }
    const before = Date.now();
    expect((await api.action(run, "cancel", "runAdmin", { comment: "stop" })).status).toBe(202);
    const doc = await api.get(run);
    expect(doc.json.data.attributes.status).toBe(status);
    const available = Date.parse(doc.json.data.attributes.force_cancel_available_at);
    expect(available).toBeGreaterThanOrEqual(before + 59_000);
    expect(doc.json.data.attributes.actions["is-force-cancelable"]).toBe(false);
    const stepped = await api.advance(run);
    expect(stepped.json.data.attributes.status).toBe("canceled");
    expect(stepped.json.data.attributes["canceled-at"]).not.toBeNull();
  });

  test.each(["pending", "planned"])("409 in %s", async (status) => {
    await expect409(await runAt(status), "cancel", status);
  });

  test("a canceled run hands the lock on", async () => {
    const first = await runAt("planning");
    const second = await api.createId();
    await api.action(first, "cancel");
    await api.advanceTo(first, "canceled");
    expect((await api.advance(second)).status).toBe(200);
  });
});

describe("force-cancel", () => {
  test("409 without a prior cancel, 409 before the cool-off, 202 after it; the lock is released at once", async () => {
    // The default cool-off (60 s), passed on the emulator's clock: no sleep decides which answer comes.
    const id = await runAt("planning");
    const next = await api.createId();
    const noCancel = await api.action(id, "force-cancel");
    expect(noCancel.status).toBe(409);
    expect(noCancel.json.errors[0].detail).toContain("planning");
    await api.action(id, "cancel");
    const early = await api.action(id, "force-cancel");
    expect(early.status).toBe(409);
    expect(early.json.errors[0].detail).toContain("cool-off");
    const clock = (ms: number) => call("POST", `${emu.controlUrl}/clock/advance`, { body: { ms } });
    expect((await clock(-1)).status).toBe(400);
    expect((await clock(60_000)).json.advancedMs).toBe(60_000);
    expect((await api.get(id)).json.data.attributes.actions["is-force-cancelable"]).toBe(true);
    expect((await api.action(id, "force-cancel")).status).toBe(202);
    const doc = await api.get(id);
    expect(doc.json.data.attributes.status).toBe("force_canceled");
    expect(doc.json.data.attributes["canceled-at"]).not.toBeNull();
    expect((await api.advance(next)).status).toBe(200);
  });

  test("409 on a run that is not planning or applying", async () => {
    await api.settings({ forceCancelCooloffMs: 0 });
    await expect409(await runAt("planned"), "force-cancel", "planned");
  });

  test.each(["runTeam", "runMember"] as const)("%s is not a workspace admin → 404", async (who) => {
    await api.settings({ forceCancelCooloffMs: 0 });
    const id = await runAt("planning");
    await api.action(id, "cancel");
    expect((await api.action(id, "force-cancel", who)).status).toBe(404);
    expect(await api.status(id)).toBe("planning");
  });
});

describe("force-execute", () => {
  test("cancels every earlier incomplete run (seed 000) and takes the lock", async () => {
    const holder = await runAt("planned");
    const middle = await api.createId();
    const target = await api.createId();
    const later = await api.createId();
    const res = await api.action(target, "force-execute", "runTeam");
    expect(res.status).toBe(202);
    expect(res.text).toBe("");
    expect(await api.status(holder)).toBe("canceled");
    expect(await api.status(middle)).toBe("canceled");
    expect(await api.status(target)).toBe("pending");
    expect(await api.status(later)).toBe("pending");
    expect((await api.advance(target)).json.data.attributes.status).toBe("plan_queued");
    expect((await api.advance(later)).status).toBe(409);
  });

  test("403 when the run is not pending", async () => {
    const id = await runAt("planned");
    const res = await api.action(id, "force-execute");
    expect(res.status).toBe(403);
    expect(res.json.errors[0].detail).toContain("planned");
  });

  test("403 when the run itself holds the lock (not locked by another run)", async () => {
    const id = await api.createId();
    expect((await api.action(id, "force-execute")).status).toBe(403);
  });

  test("409 when the locking run cannot be discarded", async () => {
    const holder = await runAt("planning");
    const target = await api.createId();
    const res = await api.action(target, "force-execute");
    expect(res.status).toBe(409);
    expect(res.json.errors[0].detail).toContain("planning");
    expect(await api.status(holder)).toBe("planning");
  });
});

describe("who may act", () => {
  const actions = ["apply", "discard", "cancel", "force-cancel", "force-execute"];

  test.each(actions)("%s with an organization token → 403, nothing changes", async (action) => {
    const id = await runAt("planned");
    const res = await api.action(id, action, "runOrganization");
    expect(res.status).toBe(403);
    expect(res.json.errors[0].detail).toContain("organization tokens");
    expect(await api.status(id)).toBe("planned");
  });

  test.each(["apply", "discard", "cancel", "force-execute"])("%s by a member (queue plans only) → 404", async (action) => {
    const id = await runAt("planned");
    expect((await api.action(id, action, "runMember")).status).toBe(404);
    expect(await api.status(id)).toBe("planned");
  });

  test.each([
    ["runTeam", 202],
    ["runAdmin", 202],
  ] as [Who, number][])("apply by %s → %s", async (who, expected) => {
    expect((await api.action(await runAt("planned"), "apply", who)).status).toBe(expected);
  });

  test.each(actions)("%s on an unknown run → 404", async (action) => {
    expect((await api.action("run-missing", action)).status).toBe(404);
  });

  test("an invalid comment → 422 and the action does not happen", async () => {
    const id = await runAt("planned");
    const res = await api.action(id, "apply", "runAdmin", { comment: 5 });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].source.pointer).toBe("/comment");
    expect(await api.status(id)).toBe("planned");
  });
});
