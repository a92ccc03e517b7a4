/**
 * The run as users see it (`RunDetails`, camelCase) and its JSON:API codec: decoding a run
 * document, reading one run with its included resources, and listing a workspace's runs (the
 * list's filter fields are declared here, once, for the list functions and the actions' lookups).
 */
import { z } from "zod";
import type { Context } from "../core/definition";
import { field, type PlainArgsOf } from "../core/fields";
import { segment } from "../core/segment";
import { one, pages, relIds, type JsonApiResource } from "./jsonapi";
import { RUNS_ROUTES } from "./routes";
import { RUN_OPERATIONS, RUN_SOURCES, RUN_STATUSES, type RunSource, type RunStatus } from "./runVocabulary";

/** A run-specific variable; `value` is a literal in the tool's own syntax (strings carry their quotes). */
export interface RunVariable {
  /** The variable's name. */
  key: string;
  /** Its value, a literal in the tool's own syntax (`"\"eu-west-1\""`, `42`, `["a"]`). */
  value: string;
}

/** What can be done with the run now (`actions` of the run). */
export interface RunActions {
  isCancelable: boolean;
  /** True while the run is paused for confirmation: the only reliable sign that apply will be accepted. */
  isConfirmable: boolean;
  isDiscardable: boolean;
  isForceCancelable: boolean;
}

/** What the caller may do (`permissions` of the run). */
export interface RunPermissions {
  canApply: boolean;
  canCancel: boolean;
  canComment: boolean;
  canDiscard: boolean;
  canForceExecute: boolean;
  canForceCancel: boolean;
  canOverridePolicyCheck: boolean;
}

/** A run (`run-...`) with camelCase names. */
export interface RunDetails {
  /** Run id (`run-...`). */
  id: string;
  /** Current status (`pending`, `planning`, `planned`, `applied`, `errored`, ...). */
  status: RunStatus;
  /** The message the run was queued with. */
  message: string;
  /** Where the run came from (`tfe-api`, `tfe-ui`, `tfe-configuration-version`, ...). */
  source: RunSource | string;
  /** Present when the service says why the run was queued. */
  triggerReason?: string;
  /** Whether the run destroys everything the workspace manages. */
  isDestroy: boolean;
  /** Whether the run only plans and can never be applied. */
  planOnly: boolean;
  /** Whether the plan refreshes state first. */
  refresh: boolean;
  /** Whether the run only refreshes state. */
  refreshOnly: boolean;
  /** Whether the plan is applied without confirmation. */
  autoApply: boolean;
  /** Whether an apply with no changes is allowed. */
  allowEmptyApply: boolean;
  /** Whether the plan may generate configuration for imports. */
  allowConfigGeneration: boolean;
  /** Whether the plan found changes (false until the plan finished). */
  hasChanges: boolean;
  /** Resource addresses the run is limited to; null when not targeted. */
  targetAddrs: string[] | null;
  /** Resource addresses the run replaces; null when none. */
  replaceAddrs: string[] | null;
  /** Run-level variables (`key`, `value` as HCL text). */
  variables: RunVariable[];
  /** The tool version of a plan-only run, when the service returns it. */
  toolVersion?: string;
  /** What can be done to the run now: `isConfirmable`, `isDiscardable`, `isCancelable`, `isForceCancelable`. */
  actions: RunActions;
  /** What the caller may do to the run (`canApply`, `canCancel`, `canDiscard`, `canForceExecute`, `canForceCancel`, ...). */
  permissions: RunPermissions;
  /** Timestamps per status, camelCase (`planQueueableAt`, `appliedAt`, ...). */
  statusTimestamps: Record<string, string>;
  /** When force-cancel becomes available; present only after a non-forceful cancel. */
  forceCancelAvailableAt?: string;
  /** When the run was canceled; null when it was not. */
  canceledAt: string | null;
  /** When the run was queued (ISO 8601). */
  createdAt: string;
  /** Workspace id (`ws-...`). */
  workspaceId: string;
  /** Configuration version the run plans (`cv-...`). */
  configurationVersionId?: string;
  /** Its plan (`plan-...`), once there is one. */
  planId?: string;
  /** Its apply (`apply-...`), once there is one. */
  applyId?: string;
  /** Its cost estimate, when the workspace estimates costs. */
  costEstimateId?: string;
  /** The user who queued it. */
  createdById?: string;
}

/** A related resource returned by `getRun({ include })`, as the service sends it. */
export interface IncludedResource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
}

const kebabToCamel = (k: string) => k.replace(/[-_]([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

function bool(v: unknown): boolean {
  return v === true;
}

function strings(v: unknown): string[] | null {
  return Array.isArray(v) ? v.map(String) : null;
}

/** Decodes a run document (type `runs`). */
export function runFromResource(res: JsonApiResource): RunDetails {
  const a = res.attributes;
  const actions = (a.actions ?? {}) as Record<string, unknown>;
  const perms = (a.permissions ?? {}) as Record<string, unknown>;
  const timestamps: Record<string, string> = {};
  for (const [k, v] of Object.entries((a["status-timestamps"] ?? {}) as Record<string, unknown>)) {
    if (typeof v === "string") timestamps[kebabToCamel(k)] = v;
  }
  // The seed writes this one with underscores; accept the kebab spelling too.
  const forceAt = a.force_cancel_available_at ?? a["force-cancel-available-at"];
  const rel = (name: string) => relIds(res, name)[0];
  const run: RunDetails = {
    id: res.id,
    status: String(a.status ?? "") as RunStatus,
    message: String(a.message ?? ""),
    source: String(a.source ?? ""),
    isDestroy: bool(a["is-destroy"]),
    planOnly: bool(a["plan-only"]),
    refresh: a.refresh !== false,
    refreshOnly: bool(a["refresh-only"]),
    autoApply: bool(a["auto-apply"]),
    allowEmptyApply: bool(a["allow-empty-apply"]),
    allowConfigGeneration: bool(a["allow-config-generation"]),
    hasChanges: bool(a["has-changes"]),
    targetAddrs: strings(a["target-addrs"]),
    replaceAddrs: strings(a["replace-addrs"]),
    variables: Array.isArray(a.variables)
      ? (a.variables as Record<string, unknown>[]).map((v) => ({ key: String(v?.key ?? ""), value: String(v?.value ?? "") }))
      : [],
    actions: {
      isCancelable: bool(actions["is-cancelable"]),
      isConfirmable: bool(actions["is-confirmable"]),
      isDiscardable: bool(actions["is-discardable"]),
      isForceCancelable: bool(actions["is-force-cancelable"]),
    },
    permissions: {
      canApply: bool(perms["can-apply"]),
      canCancel: bool(perms["can-cancel"]),
      canComment: bool(perms["can-comment"]),
      canDiscard: bool(perms["can-discard"]),
      canForceExecute: bool(perms["can-force-execute"]),
      canForceCancel: bool(perms["can-force-cancel"]),
      canOverridePolicyCheck: bool(perms["can-override-policy-check"]),
    },
    statusTimestamps: timestamps,
    canceledAt: typeof a["canceled-at"] === "string" ? a["canceled-at"] : null,
    createdAt: String(a["created-at"] ?? ""),
    workspaceId: rel("workspace") ?? "",
  };
  if (typeof a["trigger-reason"] === "string") run.triggerReason = a["trigger-reason"];
  if (typeof a["tool-version"] === "string") run.toolVersion = a["tool-version"];
  if (typeof forceAt === "string") run.forceCancelAvailableAt = forceAt;
  const optional: [keyof RunDetails, string][] = [
    ["configurationVersionId", "configuration-version"], ["planId", "plan"], ["applyId", "apply"],
    ["costEstimateId", "cost-estimate"], ["createdById", "created-by"],
  ];
  for (const [key, name] of optional) {
    const id = rel(name);
    if (id !== undefined) (run as unknown as Record<string, unknown>)[key] = id;
  }
  return run;
}

export async function readRun(ctx: Context, runId: string, include?: ReadonlyArray<string>): Promise<{ run: RunDetails; included: IncludedResource[] }> {
  const res = await ctx.client("runs").request({
    route: RUNS_ROUTES.run.read, params: { run_id: runId }, query: include && include.length > 0 ? { include: [...include] } : undefined,
  });
  const included = ((res.body as { included?: unknown } | undefined)?.included ?? []) as JsonApiResource[];
  return {
    run: runFromResource(one(res.body)),
    included: Array.isArray(included)
      ? included.map((r) => ({ id: String(r.id), type: String(r.type), attributes: r.attributes ?? {} }))
      : [],
  };
}

// ---------------------------------------------------------------------------------------------
// Listing
// ---------------------------------------------------------------------------------------------

const nonEmpty = () => z.string().min(1, "must not be empty");

/** Which runs of a workspace a list returns (filters and search). */
export const runListFields = {
  /** Workspace (`ws-...`) whose runs are listed. */
  workspaceId: field(segment),
  /** Runs of any of these operations: plan_only, plan_and_apply, refresh_only, destroy, empty_apply. */
  operation: field(() => z.array(z.enum(RUN_OPERATIONS, { error: `must be one of ${RUN_OPERATIONS.join(", ")}` })), { optional: true }),
  /** Runs in any of these statuses. */
  status: field(() => z.array(z.enum(RUN_STATUSES, { error: "must be a run status" })), { optional: true }),
  /** Runs from any of these sources: svc-ui, svc-api, svc-configuration-version. */
  source: field(() => z.array(z.enum(RUN_SOURCES, { error: `must be one of ${RUN_SOURCES.join(", ")}` })), { optional: true }),
  /** Runs whose version-control username matches. */
  searchUser: field(nonEmpty, { optional: true }),
  /** Runs whose commit sha matches. */
  searchCommit: field(nonEmpty, { optional: true }),
  /** Matches username, commit sha, run id and message; ignored by the service when searchUser or searchCommit is set. */
  searchBasic: field(nonEmpty, { optional: true }),
  /** Runs per request, 1 to 100; default 100. */
  pageSize: field(() => z.number().int("must be an integer").min(1, "must be at least 1").max(100, "must be at most 100"), { optional: true }),
};

export type RunListFilter = PlainArgsOf<typeof runListFields>;

export function listQuery(f: RunListFilter): Record<string, string | string[] | undefined> {
  return {
    "filter[operation]": f.operation,
    "filter[status]": f.status,
    "filter[source]": f.source,
    "search[user]": f.searchUser,
    "search[commit]": f.searchCommit,
    "search[basic]": f.searchBasic,
  };
}

export async function* iterateRuns(ctx: Context, f: RunListFilter): AsyncGenerator<RunDetails> {
  const spec = { route: RUNS_ROUTES.run.list, params: { workspace_id: f.workspaceId }, query: listQuery(f) };
  for await (const res of pages(ctx.client("runs"), spec, f.pageSize ?? 100)) yield runFromResource(res);
}
