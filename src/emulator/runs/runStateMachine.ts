import type { Runtime } from "../clusterRuntime";
import { now, randomId } from "../util";
import { emitRunEvent } from "./notificationDelivery";
import { runsOf } from "./runIndex";
import type { Run, RunState } from "./state";
import { COMPLETED_STATUSES, type RunStatus } from "./vocabulary";

/**
 * The run state machine. The run path: first as pure functions of a run (what one step does, which actions its status
 * allows), which change nothing, so the control endpoint can check a target status before
 * walking and the document and the actions can never disagree; then the workspace lock, and
 * moving runs with every side effect (below).
 *
 * pending → plan_queued → planning → planned → [cost_estimating → cost_estimated] →
 * [policy_checking → policy_checked | policy_override | policy_soft_failed | errored] →
 * paused for confirmation → (apply) confirmed → apply_queued → applying → applied.
 */

export type WaitReason = "lock" | "confirmation" | "policy-override" | "hold";

export type Step = { kind: "move"; to: RunStatus } | { kind: "wait"; reason: WaitReason } | { kind: "final" };

const move = (to: RunStatus): Step => ({ kind: "move", to });

export function nextStep(run: Run, holdsLock: boolean): Step {
  if (COMPLETED_STATUSES.has(run.status)) return { kind: "final" };
  // A held process still receives the interrupt of a cancel and wraps up (the seed's cancel).
  if (run.outcome.holdAt === run.status && !run.cancelRequested) return { kind: "wait", reason: "hold" };
  switch (run.status) {
    case "pending":
      return holdsLock ? move("plan_queued") : { kind: "wait", reason: "lock" };
    case "plan_queued":
      return move("planning");
    case "planning":
      if (run.cancelRequested) return move("canceled");
      return move(run.outcome.error === "plan" ? "errored" : "planned");
    case "planned":
      return run.outcome.costEstimation ? move("cost_estimating") : afterCost(run);
    case "cost_estimating":
      return move("cost_estimated");
    case "cost_estimated":
      return afterCost(run);
    case "policy_checking":
      switch (run.outcome.policy) {
        case "soft-failed":
          return move(run.planOnly ? "policy_soft_failed" : "policy_override");
        case "hard-failed":
          return move("errored");
        default:
          return move("policy_checked");
      }
    case "policy_checked":
      return afterChecks(run);
    case "policy_override":
      // The seed does not show the override endpoint, so only a discard moves it on.
      return { kind: "wait", reason: "policy-override" };
    case "confirmed":
      return move("apply_queued");
    case "apply_queued":
      return move("applying");
    case "applying":
      if (run.cancelRequested) return move("canceled");
      return move(run.outcome.error === "apply" ? "errored" : "applied");
    default:
      // Statuses of the version-control and pre/post-plan phases are never entered by the emulator.
      return { kind: "final" };
  }
}

function afterCost(run: Run): Step {
  return run.outcome.policy !== "none" ? move("policy_checking") : afterChecks(run);
}

function afterChecks(run: Run): Step {
  if (run.planOnly || (!run.hasChanges && !run.allowEmptyApply)) return move("planned_and_finished");
  return run.autoApplyEffective ? move("confirmed") : { kind: "wait", reason: "confirmation" };
}

/** What entering a status changes besides the status itself, applied by stepping and by simulation. */
function enterEffects(run: Run, to: RunStatus): void {
  run.status = to;
  if (to === "planned") run.hasChanges = run.outcome.hasChanges;
}

/** The statuses a run would pass through from here if nobody acted, in order. */
export function pathAhead(run: Run, holdsLock: boolean): RunStatus[] {
  const copy: Run = structuredClone(run);
  const out: RunStatus[] = [];
  let lock = holdsLock;
  for (let step = nextStep(copy, lock); step.kind === "move"; step = nextStep(copy, lock)) {
    enterEffects(copy, step.to);
    out.push(step.to);
    lock = true;
  }
  return out;
}

function awaitsConfirmation(run: Run): boolean {
  const step = nextStep(run, true);
  return step.kind === "wait" && step.reason === "confirmation";
}

/** Apply is allowed when paused for confirmation or in policy_checked (the seed's two cases). */
export function isConfirmable(run: Run): boolean {
  if (run.status === "policy_checked") return !run.planOnly && (run.hasChanges || run.allowEmptyApply);
  return awaitsConfirmation(run);
}

export function isDiscardable(run: Run): boolean {
  return run.status === "pending" || run.status === "policy_checked" || run.status === "policy_override" || awaitsConfirmation(run);
}

export function isCancelable(run: Run): boolean {
  return run.status === "planning" || run.status === "applying";
}

export function isForceCancelable(run: Run, nowMs: number): boolean {
  return isCancelable(run) && run.cancelRequested && run.forceCancelAvailableAt !== null && nowMs >= Date.parse(run.forceCancelAvailableAt);
}

/** Key of a status in status-timestamps; a new run's pending time is the seed's plan-queueable-at. */
export function timestampKey(status: RunStatus): string {
  return status === "pending" ? "plan-queueable-at" : `${status.replace(/_/g, "-")}-at`;
}

/**
 * One run per workspace holds the lock. The oldest pending run takes a free lock at once (on
 * create, or when the holder completes) and leaves pending on its next step; a pending run
 * without the lock waits.
 */

export function lockHolder(state: RunState, workspaceId: string): Run | undefined {
  const id = state.workspaceLocks[workspaceId];
  return id === undefined ? undefined : state.runs[id];
}

export function holdsLock(state: RunState, run: Run): boolean {
  return state.workspaceLocks[run.workspaceId] === run.id;
}

/** Gives a free lock to the oldest pending run of the workspace, if any. */
export function assignLock(state: RunState, workspaceId: string): void {
  if (lockHolder(state, workspaceId)) return;
  const next = runsOf(state, workspaceId).find((r) => r.status === "pending");
  if (next) state.workspaceLocks[workspaceId] = next.id;
  else delete state.workspaceLocks[workspaceId];
}

/** Called when `run` completes: frees its lock and hands it to the next pending run. */
function releaseLock(state: RunState, run: Run): void {
  if (!holdsLock(state, run)) return;
  delete state.workspaceLocks[run.workspaceId];
  assignLock(state, run.workspaceId);
}

/** Force-execute: `run` takes the lock from whoever holds it. */
export function takeLock(state: RunState, run: Run): void {
  state.workspaceLocks[run.workspaceId] = run.id;
}

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
