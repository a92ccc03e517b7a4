/**
 * Shapes of runs, configuration versions and assessment results as the emulator keeps them,
 * and the value lists of the seed (statuses, operations, sources). Plain JSON only: all of it
 * is persisted by the store.
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

/** Run-service settings of a workspace (from /_emulator/seed); an absent member means off/none. */
export interface WorkspaceSettings {
  autoApply?: boolean;
  costEstimation?: boolean;
  policy?: PolicyMode;
  driftDetection?: boolean;
  healthAssessments?: boolean;
}

/** How the rest of a run goes; fixed from the workspace at creation, changed by /_emulator/runs/:id/outcome. */
export interface RunOutcome {
  hasChanges: boolean;
  costEstimation: boolean;
  policy: PolicyMode;
  error: "plan" | "apply" | null;
}

export interface RunComment {
  id: string;
  body: string;
  action: string;
  by: string | null;
  at: string;
}

export interface RunVariable {
  key: string;
  value: string;
}

export interface Run {
  id: string;
  /** Creation order: lists are newest first and the lock goes to the oldest pending run. */
  seq: number;
  workspaceId: string;
  configurationVersionId: string | null;
  source: RunSource;
  message: string;
  status: RunStatus;
  statusTimestamps: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  canceledAt: string | null;
  createdByUserId: string | null;
  /** Who created / last moved the run, as notifications name them (username, or api-team_<team>). */
  createdByName: string | null;
  updatedByName: string | null;
  vcsUsername: string | null;
  commitSha: string | null;
  hasChanges: boolean;
  autoApply: boolean;
  /** The seed auto-applies only plans queued by a user allowed to apply (or by a VCS commit). */
  autoApplyEffective: boolean;
  allowEmptyApply: boolean;
  allowConfigGeneration: boolean;
  isDestroy: boolean;
  planOnly: boolean;
  refresh: boolean;
  refreshOnly: boolean;
  targetAddrs: string[] | null;
  replaceAddrs: string[] | null;
  variables: RunVariable[];
  toolVersion: string | null;
  triggerReason: string;
  cancelRequested: boolean;
  forceCancelAvailableAt: string | null;
  outcome: RunOutcome;
  planId: string;
  applyId: string;
  costEstimateId: string | null;
  policyCheckId: string | null;
  comments: RunComment[];
}

export interface ConfigurationVersion {
  id: string;
  workspaceId: string;
  speculative: boolean;
  createdAt: string;
  commitSha: string | null;
  branch: string | null;
  senderUsername: string | null;
}

export interface AssessmentResult {
  id: string;
  workspaceId: string;
  url: string;
  succeeded: boolean;
  all_checks_succeeded: boolean;
  checks_passed: number;
  checks_failed: number;
  checks_errored: number;
  checks_unknown: number;
  drifted: boolean;
  resources_drifted: number;
  resources_undrifted: number;
  created_at: string;
}

/** The operation a run performs, for filter[operation]; the first matching rule wins. */
export function operationOf(run: Run): RunOperation {
  if (run.planOnly) return "plan_only";
  if (run.refreshOnly) return "refresh_only";
  if (run.isDestroy) return "destroy";
  if (run.allowEmptyApply && !run.hasChanges) return "empty_apply";
  return "plan_and_apply";
}
