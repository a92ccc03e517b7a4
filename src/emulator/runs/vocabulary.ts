/**
 * The run service's words as the seed spells them, each list written once: run statuses (and which
 * of them end a run or can hold one), operations, sources, policy modes, and a notification
 * configuration's destination types and triggers. The stored model (state.ts) and every object
 * file take their types from here.
 */

export const RUN_STATUSES = [
  "pending",
  "fetching",
  "fetching_completed",
  "pre_plan_running",
  "pre_plan_completed",
  "queuing",
  "plan_queued",
  "planning",
  "planned",
  "cost_estimating",
  "cost_estimated",
  "policy_checking",
  "policy_override",
  "policy_soft_failed",
  "policy_checked",
  "confirmed",
  "post_plan_running",
  "post_plan_completed",
  "planned_and_finished",
  "apply_queued",
  "applying",
  "applied",
  "discarded",
  "errored",
  "canceled",
  "force_canceled",
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * Statuses after which a run never moves again and releases the workspace lock. The seed calls
 * four of them final; applied, canceled and force_canceled end a run just as surely.
 */
export const COMPLETED_STATUSES: ReadonlySet<RunStatus> = new Set<RunStatus>([
  "applied",
  "planned_and_finished",
  "policy_soft_failed",
  "discarded",
  "errored",
  "canceled",
  "force_canceled",
]);

export const OPERATIONS = ["plan_only", "plan_and_apply", "refresh_only", "destroy", "empty_apply"] as const;
export type RunOperation = (typeof OPERATIONS)[number];

export const SOURCES = ["svc-ui", "svc-api", "svc-configuration-version"] as const;
export type RunSource = (typeof SOURCES)[number];

export const POLICY_MODES = ["none", "passed", "soft-failed", "hard-failed"] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];

/**
 * Statuses the service leaves by itself (its own work or capacity), so a run can be held in them:
 * a plan or apply that never ends, a queue that never drains. Emulator-only (holdAt).
 */
export const HOLDABLE_STATUSES = ["plan_queued", "planning", "cost_estimating", "policy_checking", "apply_queued", "applying"] as const;
export type HoldableStatus = (typeof HOLDABLE_STATUSES)[number];

/** Where a notification configuration sends: the seed's `destination-type` values. */
export const DESTINATION_TYPES = ["generic", "email", "chat-a", "chat-b"] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/** What a notification configuration may be told of: run and assessment triggers. */
export const NOTIFICATION_TRIGGERS = [
  "run:created",
  "run:planning",
  "run:needs_attention",
  "run:applying",
  "run:completed",
  "run:errored",
  "assessment:drifted",
  "assessment:check_failure",
  "assessment:failed",
] as const;
