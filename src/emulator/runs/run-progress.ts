import type { Runtime } from "../runtime";
import { now, randomId } from "../util";
import { holdsLock, releaseLock } from "./run-lock";
import { COMPLETED_STATUSES, type Run, type RunStatus } from "./state";
import { awaitsConfirmation, enterEffects, nextStep, pathAhead, timestampKey, type Step } from "./runPath";
import { emitRunEvent } from "./notify";

/**
 * Moves runs along their path with every side effect of a move: timestamps, the lock, and the
 * notifications of the seed's trigger table. Driven by actions, by /_emulator/runs/:id/advance
 * and by the opt-in timer; never by wall-clock time otherwise, so tests are deterministic.
 */

/** Trigger fired on entering a status (run:needs_attention for a plan awaiting approval is added in moveTo). */
const ENTER_TRIGGERS: Partial<Record<RunStatus, string>> = {
  planning: "run:planning",
  applying: "run:applying",
  policy_override: "run:needs_attention",
  applied: "run:completed",
  planned_and_finished: "run:completed",
  // The plan-only run finished all its phases; the payload's run_status tells it soft-failed.
  policy_soft_failed: "run:completed",
  errored: "run:errored",
  canceled: "run:errored",
  force_canceled: "run:errored",
  // A discarded run ends early without applying: the seed's "ends early" covers it.
  discarded: "run:errored",
};

/** `by` names who caused the move (an action's caller); steps of the service itself keep the last one. */
export function moveTo(rt: Runtime, run: Run, to: RunStatus, by?: string | null): void {
  const at = now();
  enterEffects(run, to);
  run.updatedAt = at;
  run.statusTimestamps[timestampKey(to)] = at;
  if (by !== undefined) run.updatedByName = by;
  if (to === "canceled" || to === "force_canceled") run.canceledAt = at;
  if (to === "policy_checking") run.policyCheckId ??= randomId("polchk");
  const trigger = ENTER_TRIGGERS[to];
  if (trigger) emitRunEvent(rt, run, trigger);
  if (awaitsConfirmation(run)) emitRunEvent(rt, run, "run:needs_attention");
  if (COMPLETED_STATUSES.has(to)) releaseLock(rt.store.data.run, run);
}

/** One step of `run`; the answer says whether it moved, waits for something, or is final. */
export function step(rt: Runtime, run: Run): Step {
  const next = nextStep(run, holdsLock(rt.store.data.run, run));
  if (next.kind === "move") moveTo(rt, run, next.to);
  return next;
}

/** Walks to `to` step by step (every step fires its events); false, changing nothing, when `to` is not ahead. */
export function advanceTo(rt: Runtime, run: Run, to: RunStatus): boolean {
  if (!pathAhead(run, holdsLock(rt.store.data.run, run)).includes(to)) return false;
  while (run.status !== to && step(rt, run).kind === "move");
  return true;
}

/** One tick of the timer: every run that can move moves one step, oldest first. */
export function tickAll(rt: Runtime): void {
  const active = Object.values(rt.store.data.run.runs)
    .filter((r) => !COMPLETED_STATUSES.has(r.status))
    .sort((a, b) => a.seq - b.seq);
  let moved = false;
  for (const run of active) {
    if (!COMPLETED_STATUSES.has(run.status) && step(rt, run).kind === "move") moved = true;
  }
  if (moved) rt.store.save();
}

export function startAutoAdvance(rt: Runtime): void {
  rt.runService.attach(() => tickAll(rt), rt.closing);
}
