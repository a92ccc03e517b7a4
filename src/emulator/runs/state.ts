/**
 * The run service's stored model: organizations, workspaces, users and teams, notification
 * configurations, runs, configuration versions and assessment results, with the value lists of
 * the seed (statuses, operations, sources) and the seeded defaults `reset` restores. Plain JSON
 * only: all of it is persisted by the store. Also what is never persisted: the per-workspace
 * index of runs (derived from the runs) and the service's live settings (RunService).
 */
import type { Clock } from "../clock";

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

/**
 * Statuses the service leaves by itself (its own work or capacity), so a run can be held in them:
 * a plan or apply that never ends, a queue that never drains. Emulator-only (holdAt).
 */
export const HOLDABLE_STATUSES = ["plan_queued", "planning", "cost_estimating", "policy_checking", "apply_queued", "applying"] as const;
export type HoldableStatus = (typeof HOLDABLE_STATUSES)[number];
export type PolicyMode = (typeof POLICY_MODES)[number];

/** Run-service settings of a workspace (from /_emulator/seed); an absent member means off/none. */
export interface WorkspaceSettings {
  autoApply?: boolean;
  costEstimation?: boolean;
  policy?: PolicyMode;
  driftDetection?: boolean;
  healthAssessments?: boolean;
  /** Every new run of the workspace stops in this status until released (RunOutcome.holdAt). */
  holdRunsAt?: HoldableStatus;
}

/** How the rest of a run goes; fixed from the workspace at creation, changed by /_emulator/runs/:id/outcome. */
export interface RunOutcome {
  hasChanges: boolean;
  costEstimation: boolean;
  policy: PolicyMode;
  error: "plan" | "apply" | null;
  /**
   * The run stays in this status (a plan or apply that never ends, a queue that never drains) until
   * released by /outcome; a cancel still ends a held planning or applying run. Absent in older state.
   */
  holdAt?: HoldableStatus | null;
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

export interface Organization {
  name: string;
  createdAt: string;
}

export interface Workspace {
  id: string;
  name: string;
  organization: string;
  createdAt: string;
  /** Run-service behaviour (auto-apply, cost estimation, policy, assessments); absent = all off. */
  settings?: WorkspaceSettings;
}

export interface User {
  id: string;
  username: string;
  email: string;
}

export interface Team {
  id: string;
  name: string;
  organization: string;
}

export interface DeliveryResponse {
  url: string;
  body: string;
  code: string;
  headers: Record<string, string[]>;
  "sent-at": string;
  successful: boolean;
}

export type DestinationType = "generic" | "email" | "chat-a" | "chat-b";

/** The writable fields of a configuration after defaults and previous values are applied. */
export interface NcFields {
  name: string;
  destinationType: DestinationType;
  url: string | null;
  enabled: boolean;
  token: string | null;
  triggers: string[];
  userIds: string[];
}

export interface NotificationConfiguration extends NcFields {
  id: string;
  workspaceId: string;
  deliveryResponses: DeliveryResponse[];
  createdAt: string;
  updatedAt: string;
}

export interface RunState {
  organizations: Record<string, Organization>;
  workspaces: Record<string, Workspace>;
  users: Record<string, User>;
  teams: Record<string, Team>;
  notificationConfigurations: Record<string, NotificationConfiguration>;
  runs: Record<string, Run>;
  configurationVersions: Record<string, ConfigurationVersion>;
  /** Workspace id → its most recently created or used configuration version id. */
  latestConfigurationVersions: Record<string, string>;
  /** Workspace id → id of the run holding its lock (absent when unlocked). */
  workspaceLocks: Record<string, string>;
  /** Workspace id → its assessment results, oldest first. */
  assessmentResults: Record<string, AssessmentResult[]>;
}

export const DEFAULT_ORGANIZATION = "example-org";
export const DEFAULT_WORKSPACE_ID = "ws-example00000001";
export const ADMIN_USER_ID = "usr-admin000000001";
export const MEMBER_USER_ID = "usr-member00000001";
export const DEPLOYERS_TEAM_ID = "team-deployers00001";
export const DEFAULT_CONFIGURATION_VERSION_ID = "cv-example00000001";
export const AUTOAPPLY_WORKSPACE_ID = "ws-autoapply000001";
export const AUTOAPPLY_CONFIGURATION_VERSION_ID = "cv-autoapply000001";

/** The run service's defaults (the store makes every map prototype-free, see nullProto). */
export function seededRunState(at: string): RunState {
  return {
    organizations: { [DEFAULT_ORGANIZATION]: { name: DEFAULT_ORGANIZATION, createdAt: at } },
    workspaces: {
      [DEFAULT_WORKSPACE_ID]: { id: DEFAULT_WORKSPACE_ID, name: "example", organization: DEFAULT_ORGANIZATION, createdAt: at },
      [AUTOAPPLY_WORKSPACE_ID]: {
        id: AUTOAPPLY_WORKSPACE_ID,
        name: "autoapply",
        organization: DEFAULT_ORGANIZATION,
        createdAt: at,
        settings: { autoApply: true },
      },
    },
    users: {
      [ADMIN_USER_ID]: { id: ADMIN_USER_ID, username: "admin", email: "admin@example.com" },
      [MEMBER_USER_ID]: { id: MEMBER_USER_ID, username: "member", email: "member@example.com" },
    },
    teams: {
      [DEPLOYERS_TEAM_ID]: { id: DEPLOYERS_TEAM_ID, name: "deployers", organization: DEFAULT_ORGANIZATION },
    },
    notificationConfigurations: {},
    runs: {},
    configurationVersions: {
      [DEFAULT_CONFIGURATION_VERSION_ID]: seededCv(DEFAULT_CONFIGURATION_VERSION_ID, DEFAULT_WORKSPACE_ID, at),
      [AUTOAPPLY_CONFIGURATION_VERSION_ID]: seededCv(AUTOAPPLY_CONFIGURATION_VERSION_ID, AUTOAPPLY_WORKSPACE_ID, at),
    },
    latestConfigurationVersions: {
      [DEFAULT_WORKSPACE_ID]: DEFAULT_CONFIGURATION_VERSION_ID,
      [AUTOAPPLY_WORKSPACE_ID]: AUTOAPPLY_CONFIGURATION_VERSION_ID,
    },
    workspaceLocks: {},
    assessmentResults: {},
  };
}

function seededCv(id: string, workspaceId: string, at: string): ConfigurationVersion {
  return { id, workspaceId, speculative: false, createdAt: at, commitSha: null, branch: null, senderUsername: null };
}

/**
 * Runs of each workspace in creation order, so listing 5,000 runs of one workspace never scans
 * or sorts every run of the emulator. The index is derived, never persisted: it is keyed by the
 * runs record itself, so a reset or a state file loaded at start (a new record) rebuilds it.
 */
interface Index {
  byWorkspace: Map<string, Run[]>;
  maxSeq: number;
}

const indexes = new WeakMap<Record<string, Run>, Index>();

function indexOf(state: RunState): Index {
  let index = indexes.get(state.runs);
  if (!index) {
    index = { byWorkspace: new Map(), maxSeq: 0 };
    for (const run of Object.values(state.runs).sort((a, b) => a.seq - b.seq)) add(index, run);
    indexes.set(state.runs, index);
  }
  return index;
}

function add(index: Index, run: Run): void {
  let list = index.byWorkspace.get(run.workspaceId);
  if (!list) index.byWorkspace.set(run.workspaceId, (list = []));
  list.push(run);
  index.maxSeq = Math.max(index.maxSeq, run.seq);
}

export function nextSeq(state: RunState): number {
  return indexOf(state).maxSeq + 1;
}

/** Stores a new run; every run enters the state through here so the index stays whole. */
export function insertRun(state: RunState, run: Run): void {
  state.runs[run.id] = run;
  add(indexOf(state), run);
}

/** Oldest first. The array is the index's own: callers must not change it. */
export function runsOf(state: RunState, workspaceId: string): readonly Run[] {
  return indexOf(state).byWorkspace.get(workspaceId) ?? [];
}

/**
 * Per-emulator run-service machinery that is not data: timing settings, the auto-advance timer,
 * the emulator's own URL (for links inside notifications) and the delivery counters. Data lives
 * in the store; this object lives as long as the emulator and is never persisted.
 */
export interface RunServiceOptions {
  /** Delay between a cancel and the moment force-cancel becomes available; default 60000 ms. */
  forceCancelCooloffMs?: number;
  /** When > 0 every active run moves one status step per tick of this many ms; default 0 (off). */
  autoAdvanceMs?: number;
}

export const DEFAULT_FORCE_CANCEL_COOLOFF_MS = 60_000;

export class RunService {
  forceCancelCooloffMs: number;
  autoAdvanceMs: number;
  /**
   * Whether a verification request goes to the configuration's destination (the default). Off, it
   * is recorded and succeeds without being sent: a test of a server's configurations, whose
   * destinations it cannot reach (pulumi-svc/testing's `seed`).
   */
  verifyDestinations = true;
  /** Absolute base URL of the emulator (`http://127.0.0.1:port`), set once it listens. */
  baseUrl = "";
  /** Event order of run and assessment notifications, carried by their delivery log entries. */
  deliverySequence = 0;
  /** Bumped by reset so deliveries still in flight from before it are not logged after it. */
  generation = 0;
  /** Per notification configuration, the tail of its delivery chain: one receiver sees events in order. */
  readonly chains = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private tick: (() => void) | undefined;

  constructor(private readonly clock: Clock, private readonly defaults: RunServiceOptions = {}) {
    this.forceCancelCooloffMs = defaults.forceCancelCooloffMs ?? DEFAULT_FORCE_CANCEL_COOLOFF_MS;
    this.autoAdvanceMs = defaults.autoAdvanceMs ?? 0;
  }

  /** Wires the step function and stops the timer when the emulator closes. */
  attach(tick: () => void, closing: AbortSignal): void {
    this.tick = tick;
    closing.addEventListener("abort", () => this.stopTimer(), { once: true });
    this.setAutoAdvance(this.autoAdvanceMs);
  }

  setAutoAdvance(ms: number): void {
    this.autoAdvanceMs = ms;
    this.stopTimer();
    if (ms > 0 && this.tick) {
      this.timer = setInterval(this.tick, ms);
      // The timer alone must never keep a process (a test run, the CLI after close) alive.
      this.timer.unref();
    }
  }

  /** The run service's time (ms since the epoch): the emulator's clock (clock.ts). */
  nowMs(): number {
    return this.clock.nowMs();
  }

  /** Back to the options the emulator was started with; called by /_emulator/reset. */
  reset(): void {
    this.generation += 1;
    this.chains.clear();
    this.forceCancelCooloffMs = this.defaults.forceCancelCooloffMs ?? DEFAULT_FORCE_CANCEL_COOLOFF_MS;
    this.verifyDestinations = true;
    this.setAutoAdvance(this.defaults.autoAdvanceMs ?? 0);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
