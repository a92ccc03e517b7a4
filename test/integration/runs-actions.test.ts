import { describe, expect, it } from "vitest";
import { ConflictError, ForbiddenError } from "../../src/http";
import { applyRun, cancelRun, discardRun, forceCancelRun, forceExecuteRun, getRun, type RunDetails } from "../../src/runs";
import { control, requests, runApi, useEmulator } from "../support/emulator";
import { advance, advanceUntil, bulkRuns, confirmable, queueRaw, runDoc, seedWorkspace } from "./runs-support";

const { emu } = useEmulator();

type Action = "apply" | "discard" | "cancel" | "force-cancel" | "force-execute";
const ACTIONS: Action[] = ["apply", "discard", "cancel", "force-cancel", "force-execute"];

function perform(action: Action, runId: string): Promise<RunDetails> {
  const comment = `${action} from the actions test`;
  switch (action) {
    case "apply": return applyRun({ runId, comment });
    case "discard": return discardRun({ runId, comment });
    case "cancel": return cancelRun({ runId, comment });
    case "force-cancel": return forceCancelRun({ runId, comment });
    case "force-execute": return forceExecuteRun({ runId });
  }
}

async function paused(workspaceId = emu.workspaceId): Promise<string> {
  const id = await queueRaw(emu, workspaceId);
  await advanceUntil(emu, id, confirmable);
  return id;
}

interface Subject { runId: string; holder?: string }

/** One way to put a run in each status class, and the actions the seed allows there. */
const CLASSES: { name: string; make(): Promise<Subject>; allowed: Action[] }[] = [
  { name: "pending, waiting for the lock held by a paused run", allowed: ["discard", "force-execute"],
    make: async () => { const holder = await paused(); return { runId: await queueRaw(emu), holder }; } },
  { name: "pending, holding the lock", allowed: ["discard"], make: async () => ({ runId: await queueRaw(emu) }) },
  { name: "planning", allowed: ["cancel"],
    make: async () => { const id = await queueRaw(emu); await advance(emu, id, "planning"); return { runId: id }; } },
  { name: "paused for confirmation", allowed: ["apply", "discard"], make: async () => ({ runId: await paused() }) },
  { name: "policy_checked (policy passed, awaiting confirmation)", allowed: ["apply", "discard"],
    make: async () => ({ runId: await paused(await seedWorkspace(emu, { id: "ws-policypassed01", policy: "passed" })) }) },
  { name: "policy_override", allowed: ["discard"],
    make: async () => {
      const id = await queueRaw(emu, await seedWorkspace(emu, { id: "ws-policysoft0001", policy: "soft-failed" }));
      await advanceUntil(emu, id, (d) => d.attributes.status === "policy_override");
      return { runId: id };
    } },
  { name: "applying", allowed: ["cancel"],
    make: async () => {
      const id = await paused();
      expect((await runApi(emu, "POST", `/runs/${id}/actions/apply`, {})).status).toBe(202);
      await advanceUntil(emu, id, (d) => d.attributes.status === "applying");
      return { runId: id };
    } },
  ...["applied", "errored", "discarded", "canceled", "planned_and_finished", "policy_soft_failed", "force_canceled"].map((status) => ({
    name: `final: ${status}`, allowed: [] as Action[],
    make: async () => ({ runId: (await bulkRuns(emu, { status }))[0] }),
  })),
];

describe.each(CLASSES)("a run that is $name", ({ make, allowed }) => {
  it.each(ACTIONS)("%s is allowed or refused as the seed says", async (action) => {
    const { runId, holder } = await make();
    const before = await runDoc(emu, runId);
    const status = before.attributes.status as string;
    const result = await perform(action, runId).catch((e) => e as Error);

    if (allowed.includes(action)) {
      expect(result).not.toBeInstanceOf(Error);
      const after = await runDoc(emu, runId);
      switch (action) {
        case "apply": expect(["confirmed", "apply_queued", "applying"]).toContain(after.attributes.status); break;
        case "discard": expect(after.attributes.status).toBe("discarded"); break;
        case "cancel": {
          expect(after.attributes.force_cancel_available_at).toEqual(expect.any(String));
          expect((await advance(emu, runId)).attributes.status).toBe("canceled");
          break;
        }
        case "force-execute": {
          // The target holds the lock now: it moves on; the former holder was stopped.
          expect((await advance(emu, runId)).attributes.status).toBe("plan_queued");
          expect(["discarded", "canceled"]).toContain((await runDoc(emu, holder!)).attributes.status);
          break;
        }
        default: throw new Error(`no expectation for ${action}`);
      }
      return;
    }

    // Refused: a typed error that explains the refusal from the run's current state.
    expect(result).toBeInstanceOf(Error);
    const err = result as ConflictError & { runStatus?: string; allowedActions?: string[] };
    if (action === "force-execute") {
      // The seed: 403 when the run is not pending or the workspace is not locked by another run.
      expect(err).toBeInstanceOf(ForbiddenError);
      expect(err.status).toBe(403);
    } else {
      expect(err).toBeInstanceOf(ConflictError);
      expect(err.status).toBe(409);
    }
    expect(err.message).toContain(`POST /runs/${runId}/actions/${action}: ${err.status}`);
    expect(err.message).toContain(`run ${runId} is ${status}; ${action} needs`);
    const allowedNow = allowed.filter((a) => a !== "force-execute");
    expect(err.message).toContain(allowedNow.length > 0 ? `allowed now: ${allowedNow.join(", ")}` : "no action is allowed on it now");
    expect(err.runStatus).toBe(status);
    expect((await runDoc(emu, runId)).attributes.status).toBe(status); // nothing changed
  });
});

describe("the workspace lock and force-execute", () => {
  it("runs one run at a time: the next pending run takes the lock when the holder ends", async () => {
    const first = await queueRaw(emu);
    const second = await queueRaw(emu);
    await advance(emu, first, "planning");
    // The second cannot move while the first holds the lock.
    await expect(advance(emu, second)).rejects.toThrow(/409/);
    await cancelRun({ runId: first });
    await advance(emu, first); // → canceled, lock released
    expect((await advance(emu, second)).attributes.status).toBe("plan_queued");
  });

  it("refuses force-execute while the lock holder cannot be discarded, naming the holder", async () => {
    const holder = await queueRaw(emu);
    await advance(emu, holder, "planning");
    const target = await queueRaw(emu);
    const err = await forceExecuteRun({ runId: target }).catch((e) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.message).toContain(`run ${target} is pending; force-execute needs a pending run whose workspace is locked by another run that can be discarded`);
    expect(err.message).toContain(`the workspace is locked by ${holder} (planning, not discardable)`);
    expect((await runDoc(emu, holder)).attributes.status).toBe("planning");
  });

  it("force-executes past a paused holder and every earlier pending run", async () => {
    const holder = await paused();
    const middle = await queueRaw(emu);
    const target = await queueRaw(emu);
    const run = await forceExecuteRun({ runId: target });
    expect(run.id).toBe(target);
    expect(["discarded", "canceled"]).toContain((await runDoc(emu, holder)).attributes.status);
    expect(["discarded", "canceled"]).toContain((await runDoc(emu, middle)).attributes.status);
    expect((await advance(emu, target)).attributes.status).toBe("plan_queued");
    // force-execute has no body.
    expect((await requests(emu)).filter((r) => r.path.endsWith("/force-execute"))).toHaveLength(1);
  });

  it("refuses force-execute of a run that is not pending with a ForbiddenError explaining why", async () => {
    const id = await queueRaw(emu);
    await advance(emu, id, "planning");
    const err = await forceExecuteRun({ runId: id }).catch((e) => e);
    expect(err).toBeInstanceOf(ForbiddenError);
    expect(err.message).toMatch(new RegExp(`^forceExecuteRun: POST /runs/${id}/actions/force-execute: 403 .*run ${id} is planning; force-execute needs a pending run`));
  });
});

describe("force-cancel and its cool-off", () => {
  // The cool-off passes on the emulator's clock (POST /_emulator/clock/advance): no sleep decides the answer.
  it("is refused before the cool-off (naming when it becomes available) and accepted after", async () => {
    await control(emu, "PUT", "/settings", { forceCancelCooloffMs: 60_000 });
    try {
      const id = await queueRaw(emu);
      const next = await queueRaw(emu);
      await advance(emu, id, "planning");
      const noCancelYet = await forceCancelRun({ runId: id }).catch((e) => e);
      expect(noCancelYet).toBeInstanceOf(ConflictError);
      expect(noCancelYet.message).toContain("cancel it first");

      const canceled = await cancelRun({ runId: id, comment: "stop" });
      expect(canceled.forceCancelAvailableAt).toEqual(expect.any(String));
      expect(canceled.actions.isForceCancelable).toBe(false);
      const early = await forceCancelRun({ runId: id }).catch((e) => e);
      expect(early).toBeInstanceOf(ConflictError);
      expect(early.message).toContain(`force-cancel is available from ${canceled.forceCancelAvailableAt}`);

      await control(emu, "POST", "/clock/advance", { ms: 60_000 });
      expect((await getRun({ runId: id })).actions.isForceCancelable).toBe(true);
      const forced = await forceCancelRun({ runId: id, comment: "really stop" });
      expect(forced.status).toBe("force_canceled");
      // The workspace is unlocked at once: the next run moves on.
      expect((await advance(emu, next)).attributes.status).toBe("plan_queued");
    } finally {
      await control(emu, "PUT", "/settings", { forceCancelCooloffMs: 60_000 });
    }
  });

  it("works with the 50 ms cool-off of fast test setups", async () => {
    await control(emu, "PUT", "/settings", { forceCancelCooloffMs: 50 });
    try {
      const id = await queueRaw(emu);
      await advance(emu, id, "planning");
      await cancelRun({ runId: id });
      await control(emu, "POST", "/clock/advance", { ms: 50 });
      // The run stays planning (the emulator does not advance runs by itself here) until forced.
      expect((await forceCancelRun({ runId: id })).status).toBe("force_canceled");
    } finally {
      await control(emu, "PUT", "/settings", { forceCancelCooloffMs: 60_000 });
    }
  });
});
