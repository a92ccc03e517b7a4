import { COMPLETED_STATUSES, type Run, type RunStatus } from "./state";

/**
 * The run path as pure functions of a run: what one step does, and which actions its status
 * allows. Nothing here changes state, so the control endpoint can check a target status
 * before walking, and the document and the actions can never disagree.
 *
 * pending → plan_queued → planning → planned → [cost_estimating → cost_estimated] →
 * [policy_checking → policy_checked | policy_override | policy_soft_failed | errored] →
 * paused for confirmation → (apply) confirmed → apply_queued → applying → applied.
 */

export type WaitReason = "lock" | "confirmation" | "policy-override";

export type Step = { kind: "move"; to: RunStatus } | { kind: "wait"; reason: WaitReason } | { kind: "final" };

const move = (to: RunStatus): Step => ({ kind: "move", to });

export function nextStep(run: Run, holdsLock: boolean): Step {
  if (COMPLETED_STATUSES.has(run.status)) return { kind: "final" };
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
export function enterEffects(run: Run, to: RunStatus): void {
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

export function awaitsConfirmation(run: Run): boolean {
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
