/**
 * The run service's stored model: organizations, workspaces, users and teams, notification
 * configurations, runs, configuration versions and assessment results, and the initial state
 * `reset` restores. Plain JSON only: all of it is persisted by the store. The seed's words are in
 * vocabulary.ts; what is derived or live and never persisted is in runIndex.ts (the runs of each
 * workspace) and runService.ts (timing, timer, delivery counters).
 */
import { dict } from "../util";
import type { DestinationType, HoldableStatus, PolicyMode, RunSource, RunStatus } from "./vocabulary";

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

/** The run service's initial state (the store makes every map prototype-free, see nullProto). */
export function initialRunState(at: string): RunState {
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
      [DEFAULT_CONFIGURATION_VERSION_ID]: initialCv(DEFAULT_CONFIGURATION_VERSION_ID, DEFAULT_WORKSPACE_ID, at),
      [AUTOAPPLY_CONFIGURATION_VERSION_ID]: initialCv(AUTOAPPLY_CONFIGURATION_VERSION_ID, AUTOAPPLY_WORKSPACE_ID, at),
    },
    latestConfigurationVersions: {
      [DEFAULT_WORKSPACE_ID]: DEFAULT_CONFIGURATION_VERSION_ID,
      [AUTOAPPLY_WORKSPACE_ID]: AUTOAPPLY_CONFIGURATION_VERSION_ID,
    },
    workspaceLocks: {},
    assessmentResults: {},
  };
}

function initialCv(id: string, workspaceId: string, at: string): ConfigurationVersion {
  return { id, workspaceId, speculative: false, createdAt: at, commitSha: null, branch: null, senderUsername: null };
}

/**
 * The table of an object's kind (`runs` data `name`, keyed by id). A kind the initial state names
 * has its table from the start; any other's is made on its first write (`create`), so a kind added
 * to the emulator needs no entry above, and an older state file none either, as the secrets
 * engines keep their kinds' tables (secrets/transform/state.ts). A read before any write gives an
 * empty table and leaves the state as it was: nothing new to persist.
 */
export function kindTable<T>(data: RunState, name: string, create = false): Record<string, T> {
  const tables = data as unknown as Record<string, Record<string, T> | undefined>;
  const current = tables[name];
  if (current) return current;
  const fresh = dict<T>();
  if (create) tables[name] = fresh;
  return fresh;
}
