/**
 * The run service's words as the seed spells them: a run's statuses and what they mean for waiting,
 * operations, sources and includes, and a notification configuration's triggers and destination
 * types. Every other file of src/runs builds on these; the emulator reads the seed on its own
 * (src/emulator/runs/vocabulary.ts), and test/unit/vocabulary-parity.test.ts holds the two together.
 */

export const RUN_STATUSES = [
  "pending", "fetching", "fetching_completed", "pre_plan_running", "pre_plan_completed", "queuing", "plan_queued",
  "planning", "planned", "cost_estimating", "cost_estimated", "policy_checking", "policy_override",
  "policy_soft_failed", "policy_checked", "confirmed", "post_plan_running", "post_plan_completed",
  "planned_and_finished", "apply_queued", "applying", "applied", "discarded", "errored", "canceled", "force_canceled",
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The statuses the seed calls final. */
export const FINAL_RUN_STATUSES: ReadonlyArray<RunStatus> = ["policy_soft_failed", "planned_and_finished", "discarded", "errored"];

/**
 * Statuses a run never leaves: the seed's final statuses plus applied, canceled and force_canceled
 * (a run in one of them has released the workspace lock and takes no action).
 */
export const TERMINAL_RUN_STATUSES: ReadonlyArray<RunStatus> = [...FINAL_RUN_STATUSES, "applied", "canceled", "force_canceled"];

/** Terminal statuses that count as a run that went wrong (it did not plan or apply as asked). */
export const FAILED_RUN_STATUSES: ReadonlyArray<RunStatus> = ["errored", "discarded", "canceled", "force_canceled", "policy_soft_failed"];

/** Statuses after the plan phase that show the run went on to apply (auto-apply or someone applied). */
const APPLY_PHASE: ReadonlyArray<string> = ["confirmed", "apply_queued", "applying", "applied"];

export const RUN_OPERATIONS = ["plan_only", "plan_and_apply", "refresh_only", "destroy", "empty_apply"] as const;
export type RunOperation = (typeof RUN_OPERATIONS)[number];

export const RUN_SOURCES = ["svc-ui", "svc-api", "svc-configuration-version"] as const;
export type RunSource = (typeof RUN_SOURCES)[number];

export const RUN_INCLUDES = [
  "plan", "apply", "created_by", "cost_estimate", "configuration_version", "configuration_version.ingress_attributes",
] as const;
export type RunInclude = (typeof RUN_INCLUDES)[number];

/** What a notification configuration may be told of runs: the `run:*` triggers. */
export const RUN_NOTIFICATION_TRIGGERS = ["run:created", "run:planning", "run:needs_attention", "run:applying", "run:completed", "run:errored"] as const;
export type RunNotificationTrigger = (typeof RUN_NOTIFICATION_TRIGGERS)[number];

/** What it may be told of workspace assessments: the `assessment:*` triggers. */
export const ASSESSMENT_NOTIFICATION_TRIGGERS = ["assessment:drifted", "assessment:check_failure", "assessment:failed"] as const;
export type AssessmentNotificationTrigger = (typeof ASSESSMENT_NOTIFICATION_TRIGGERS)[number];

/** Where a notification configuration sends: the seed's `destination-type` values. */
export const DESTINATION_TYPES = ["generic", "email", "chat-a", "chat-b"] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/** The destination types that send to the configuration's `url` (the seed's url: "used by chat-a, chat-b, generic"); email sends to users. */
export const URL_DESTINATION_TYPES: ReadonlyArray<DestinationType> = ["generic", "chat-a", "chat-b"];

// The rules below take only the members they read (not RunDetails), so this file imports nothing of the run's own.
export function isTerminal(run: { status: RunStatus }): boolean {
  return TERMINAL_RUN_STATUSES.includes(run.status);
}

/**
 * The plan phase is over: the run is paused for confirmation, waits for a policy override, went on
 * to apply, or ended.
 */
export function planFinished(run: { status: RunStatus; actions: { isConfirmable: boolean } }): boolean {
  return run.actions.isConfirmable || run.status === "policy_override" || APPLY_PHASE.includes(run.status) || isTerminal(run);
}
