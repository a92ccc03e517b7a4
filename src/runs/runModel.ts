/**
 * The run object of the run service (`run-...`): its statuses, routes, JSON:API codec, create
 * attributes and their rules, actions with explained conflicts, and waiting. Shared by the `Run`
 * resource (run.ts) and the run functions (runFunctions.ts).
 */
import { z } from "zod";
import { createOnce } from "../core/createOnce";
import type { Context } from "../core/definition";
import { isUnknown } from "../core/unknown";
import { ConflictError, ForbiddenError, isSvcError, type HttpClient, type SvcError } from "../http";
import { many, one, pages, relIds, type JsonApiResource } from "./jsonapi";

// ---------------------------------------------------------------------------------------------
// Vocabulary of the seed
// ---------------------------------------------------------------------------------------------

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

export const RUN_ROUTES = {
  create: "POST /runs",
  read: "GET /runs/{run_id}",
  list: "GET /workspaces/{workspace_id}/runs",
  apply: "POST /runs/{run_id}/actions/apply",
  discard: "POST /runs/{run_id}/actions/discard",
  cancel: "POST /runs/{run_id}/actions/cancel",
  forceCancel: "POST /runs/{run_id}/actions/force-cancel",
  forceExecute: "POST /runs/{run_id}/actions/force-execute",
} as const;

// ---------------------------------------------------------------------------------------------
// The run as users see it
// ---------------------------------------------------------------------------------------------

/** A run-specific variable; `value` is a literal in the tool's own syntax (strings carry their quotes). */
export interface RunVariable {
  key: string;
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
  id: string;
  status: RunStatus;
  message: string;
  source: RunSource | string;
  /** Present when the service says why the run was queued. */
  triggerReason?: string;
  isDestroy: boolean;
  planOnly: boolean;
  refresh: boolean;
  refreshOnly: boolean;
  autoApply: boolean;
  allowEmptyApply: boolean;
  allowConfigGeneration: boolean;
  hasChanges: boolean;
  targetAddrs: string[] | null;
  replaceAddrs: string[] | null;
  variables: RunVariable[];
  /** The tool version of a plan-only run, when the service returns it. */
  toolVersion?: string;
  actions: RunActions;
  permissions: RunPermissions;
  /** Timestamps per status, camelCase (`planQueueableAt`, `appliedAt`, ...). */
  statusTimestamps: Record<string, string>;
  /** When force-cancel becomes available; present only after a non-forceful cancel. */
  forceCancelAvailableAt?: string;
  canceledAt: string | null;
  createdAt: string;
  workspaceId: string;
  configurationVersionId?: string;
  planId?: string;
  applyId?: string;
  costEstimateId?: string;
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

export function isTerminal(run: Pick<RunDetails, "status">): boolean {
  return TERMINAL_RUN_STATUSES.includes(run.status);
}

/**
 * The plan phase is over: the run is paused for confirmation, waits for a policy override, went on
 * to apply, or ended.
 */
export function planFinished(run: Pick<RunDetails, "status" | "actions">): boolean {
  return run.actions.isConfirmable || run.status === "policy_override" || APPLY_PHASE.includes(run.status) || isTerminal(run);
}

// ---------------------------------------------------------------------------------------------
// Create attributes
// ---------------------------------------------------------------------------------------------

/** Every create attribute of the seed, with camelCase names. */
export interface RunCreateAttributes {
  /** Workspace (`ws-...`) where the run executes. */
  workspaceId: string;
  /** Configuration version (`cv-...`) to plan; default: the workspace's most recently used one. It may belong to another workspace (promotion). */
  configurationVersionId?: string;
  /** Why the run was queued; default: the service's text saying it was queued through the API. */
  message?: string;
  /** Destroy every object regardless of configuration. Cannot be combined with `refreshOnly`. */
  isDestroy?: boolean;
  /** Only refresh state. Cannot be combined with `isDestroy`. */
  refreshOnly?: boolean;
  /** Refresh state before planning; default true. */
  refresh?: boolean;
  /** Speculative run that cannot be applied; default from the configuration version. */
  planOnly?: boolean;
  /** Apply without confirmation; default the workspace's setting. */
  autoApply?: boolean;
  /** Let the run apply although the plan has no changes. */
  allowEmptyApply?: boolean;
  /** Allow generating configuration for import blocks; default false. */
  allowConfigGeneration?: boolean;
  /** Resource addresses to target. */
  targetAddrs?: string[];
  /** Resource addresses to force replacement of. */
  replaceAddrs?: string[];
  /** Run-specific variables overriding workspace variables of the same key; values are literals in the tool's syntax (strings with their quotes). */
  variables?: RunVariable[];
  /** Tool version for this run; only valid with `planOnly: true`. */
  toolVersion?: string;
}

/** Create attribute → its kebab-case name in the request body. */
export const CREATE_ATTRIBUTES = {
  message: "message",
  isDestroy: "is-destroy",
  refreshOnly: "refresh-only",
  refresh: "refresh",
  planOnly: "plan-only",
  autoApply: "auto-apply",
  allowEmptyApply: "allow-empty-apply",
  allowConfigGeneration: "allow-config-generation",
  targetAddrs: "target-addrs",
  replaceAddrs: "replace-addrs",
  variables: "variables",
  toolVersion: "tool-version",
} as const satisfies Partial<Record<keyof RunCreateAttributes, string>>;

export const CREATE_KEYS: ReadonlyArray<keyof RunCreateAttributes> = ["workspaceId", "configurationVersionId", ...Object.keys(CREATE_ATTRIBUTES) as (keyof RunCreateAttributes)[]];

const nonEmpty = () => z.string().min(1, "must not be empty");

/** The zod shape of the create attributes; call at run time only (never captured by a provider). */
export function createAttributesShape() {
  return {
    workspaceId: nonEmpty(),
    configurationVersionId: nonEmpty().optional(),
    message: z.string().optional(),
    isDestroy: z.boolean().optional(),
    refreshOnly: z.boolean().optional(),
    refresh: z.boolean().optional(),
    planOnly: z.boolean().optional(),
    autoApply: z.boolean().optional(),
    allowEmptyApply: z.boolean().optional(),
    allowConfigGeneration: z.boolean().optional(),
    targetAddrs: z.array(nonEmpty()).optional(),
    replaceAddrs: z.array(nonEmpty()).optional(),
    variables: z.array(z.object({ key: nonEmpty(), value: z.string() })).optional(),
    toolVersion: nonEmpty().optional(),
  };
}

/** The seed's cross-field rules of a run create, as zod issues at the property that breaks them. */
export function refineCreateAttributes(v: Partial<RunCreateAttributes>, ctx: z.RefinementCtx): void {
  const known = (x: unknown) => x !== undefined && !isUnknown(x);
  if (known(v.isDestroy) && known(v.refreshOnly) && v.isDestroy === true && v.refreshOnly === true) {
    ctx.addIssue({ code: "custom", path: ["refreshOnly"], message: "cannot be combined with isDestroy: a run is either a destroy or a refresh-only run" });
  }
  if (known(v.toolVersion) && !isUnknown(v.planOnly) && v.planOnly !== true) {
    ctx.addIssue({ code: "custom", path: ["toolVersion"], message: "is only valid for plan-only runs (set planOnly: true)" });
  }
  if (Array.isArray(v.variables)) {
    const seen = new Set<string>();
    v.variables.forEach((variable, i) => {
      const key = (variable as { key?: unknown } | undefined)?.key;
      if (typeof key !== "string" || isUnknown(key)) return;
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["variables", i, "key"], message: `duplicate variable key "${key}"` });
      seen.add(key);
    });
  }
}

/** The JSON:API body of `POST /runs`: only the attributes the caller set. */
export function createDocument(args: RunCreateAttributes): unknown {
  const attributes: Record<string, unknown> = {};
  for (const [key, wire] of Object.entries(CREATE_ATTRIBUTES)) {
    const value = (args as unknown as Record<string, unknown>)[key];
    if (value !== undefined && value !== null) attributes[wire] = value;
  }
  const relationships: Record<string, unknown> = { workspace: { data: { type: "workspaces", id: args.workspaceId } } };
  if (args.configurationVersionId) {
    relationships["configuration-version"] = { data: { type: "configuration-versions", id: args.configurationVersionId } };
  }
  return { data: { type: "runs", attributes, relationships } };
}

const sameList = (a: unknown, b: unknown) => {
  const norm = (v: unknown) => (Array.isArray(v) ? [...v].map((x) => JSON.stringify(x)).sort().join("\n") : "");
  return norm(a) === norm(b);
};

/** Whether a listed run looks like the one a lost `POST /runs` with these attributes created. */
function matchesCreate(run: RunDetails, args: RunCreateAttributes, since: number): boolean {
  const created = Date.parse(run.createdAt);
  if (!(created >= since - 5 * 60_000)) return false; // clock skew allowance, as for notification configurations
  if (run.source !== "svc-api") return false;
  if (args.message !== undefined && run.message !== args.message) return false;
  if (args.configurationVersionId !== undefined && run.configurationVersionId !== undefined && run.configurationVersionId !== args.configurationVersionId) return false;
  const flags: [keyof RunCreateAttributes, keyof RunDetails][] = [
    ["isDestroy", "isDestroy"], ["refreshOnly", "refreshOnly"], ["planOnly", "planOnly"], ["refresh", "refresh"],
    ["autoApply", "autoApply"], ["allowEmptyApply", "allowEmptyApply"], ["allowConfigGeneration", "allowConfigGeneration"],
  ];
  for (const [arg, attr] of flags) if (args[arg] !== undefined && run[attr] !== args[arg]) return false;
  if (!sameList(run.targetAddrs ?? [], args.targetAddrs ?? [])) return false;
  if (!sameList(run.replaceAddrs ?? [], args.replaceAddrs ?? [])) return false;
  if (!sameList(run.variables, args.variables ?? [])) return false;
  return true;
}

/**
 * Looks through the workspace's runs for one a lost create made: newest first, stopping at a page
 * that is sorted newest first and holds nothing recent enough.
 */
async function findCreatedRun(client: HttpClient, args: RunCreateAttributes, since: number): Promise<RunDetails | undefined> {
  const threshold = since - 5 * 60_000;
  let best: RunDetails | undefined;
  for (let page = 1; page <= 50; page++) {
    const res = await client.request({ route: RUN_ROUTES.list, params: { workspace_id: args.workspaceId }, query: { "page[number]": page, "page[size]": 100 } });
    const { data, pagination } = many(res.body);
    const runs = data.map(runFromResource);
    for (const run of runs) {
      if (matchesCreate(run, args, since) && (!best || Date.parse(run.createdAt) > Date.parse(best.createdAt))) best = run;
    }
    const times = runs.map((r) => Date.parse(r.createdAt));
    const descending = times.every((t, i) => i === 0 || t <= times[i - 1]);
    if (descending && times.length > 0 && times[0] < threshold) break;
    const next = pagination?.["next-page"];
    if (next === undefined ? data.length < 100 : !next) break;
  }
  return best;
}

/**
 * Queues a run. A `POST /runs` that failed ambiguously (the server may have acted) is not
 * repeated blindly: the workspace's recent runs are searched for the one it created first.
 */
export async function createRunOnce(ctx: Context, args: RunCreateAttributes): Promise<RunDetails> {
  const client = ctx.client("runs");
  return createOnce({
    attempt: async () => runFromResource(one((await client.request({ route: RUN_ROUTES.create, body: createDocument(args) })).body)),
    find: (since) => findCreatedRun(client, args, since),
    log: (m) => ctx.log(`run on ${args.workspaceId}: ${m}`),
  });
}

export async function readRun(ctx: Context, runId: string, include?: ReadonlyArray<string>): Promise<{ run: RunDetails; included: IncludedResource[] }> {
  const res = await ctx.client("runs").request({
    route: RUN_ROUTES.read, params: { run_id: runId }, query: include && include.length > 0 ? { include: [...include] } : undefined,
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

export interface RunListFilter {
  workspaceId: string;
  /** Runs of any of these operations. */
  operation?: RunOperation[];
  /** Runs in any of these statuses. */
  status?: RunStatus[];
  /** Runs from any of these sources. */
  source?: RunSource[];
  /** Version-control username. */
  searchUser?: string;
  /** Commit sha. */
  searchCommit?: string;
  /** Username, commit sha, run id or message; the service ignores it when searchUser or searchCommit is set. */
  searchBasic?: string;
  /** Runs per request (1 to 100); default 100. */
  pageSize?: number;
}

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
  const spec = { route: RUN_ROUTES.list, params: { workspace_id: f.workspaceId }, query: listQuery(f) };
  for await (const res of pages(ctx.client("runs"), spec, f.pageSize ?? 100)) yield runFromResource(res);
}

// ---------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------

export type RunAction = "apply" | "discard" | "cancel" | "force-cancel" | "force-execute";

const ACTION_ROUTES: Record<RunAction, string> = {
  apply: RUN_ROUTES.apply,
  discard: RUN_ROUTES.discard,
  cancel: RUN_ROUTES.cancel,
  "force-cancel": RUN_ROUTES.forceCancel,
  "force-execute": RUN_ROUTES.forceExecute,
};

const REQUIREMENTS: Record<RunAction, string> = {
  apply: "apply needs a run paused for confirmation (actions.is-confirmable)",
  discard: "discard needs a run that is pending, paused for confirmation or awaiting a policy override (actions.is-discardable)",
  cancel: "cancel needs a run that is planning or applying (actions.is-cancelable)",
  "force-cancel": "force-cancel needs a planning or applying run that was canceled non-forcefully and whose cool-off has passed (actions.is-force-cancelable)",
  "force-execute": "force-execute needs a pending run whose workspace is locked by another run that can be discarded",
};

/** The actions the service would accept for this run now, from its `actions`. */
export function allowedActions(run: RunDetails): RunAction[] {
  const out: RunAction[] = [];
  if (run.actions.isConfirmable) out.push("apply");
  if (run.actions.isDiscardable) out.push("discard");
  if (run.actions.isCancelable) out.push("cancel");
  if (run.actions.isForceCancelable) out.push("force-cancel");
  return out;
}

/** Best effort: the workspace's active run other than `runId` (the one holding the lock). */
async function lockHolder(ctx: Context, run: RunDetails): Promise<RunDetails | undefined> {
  if (!run.workspaceId) return undefined;
  const active = RUN_STATUSES.filter((s) => !TERMINAL_RUN_STATUSES.includes(s) && s !== "pending");
  for await (const other of iterateRuns(ctx, { workspaceId: run.workspaceId, status: [...active], pageSize: 20 })) {
    if (other.id !== run.id) return other;
  }
  return undefined;
}

/** Builds the explanation of a refused action from the run as it is now. */
async function explainRefusal(ctx: Context, e: SvcError, runId: string, action: RunAction): Promise<unknown> {
  let run: RunDetails;
  try {
    run = (await readRun(ctx, runId)).run;
  } catch {
    return e; // the original error is still the best we have
  }
  const parts = [`run ${runId} is ${run.status}`, REQUIREMENTS[action]];
  if (action === "force-cancel" && run.forceCancelAvailableAt) parts.push(`force-cancel is available from ${run.forceCancelAvailableAt}`);
  if (action === "force-cancel" && !run.forceCancelAvailableAt && run.actions.isCancelable) parts.push("cancel it first");
  if (action === "force-execute") {
    try {
      const holder = await lockHolder(ctx, run);
      if (holder) parts.push(`the workspace is locked by ${holder.id} (${holder.status}, ${holder.actions.isDiscardable ? "discardable" : "not discardable"})`);
    } catch {
      // Only an explanation: never let it hide the refusal itself.
    }
  }
  const allowed = allowedActions(run);
  parts.push(allowed.length > 0 ? `allowed now: ${allowed.join(", ")}` : "no action is allowed on it now");
  const init = { service: e.service, method: e.method, path: e.path, status: e.status, messages: [...e.messages, parts.join("; ")], cause: e };
  const err = e.code === "conflict" ? new ConflictError(init) : new ForbiddenError(init);
  return Object.assign(err, { runId, runStatus: run.status, allowedActions: allowed });
}

/**
 * Performs an action (`POST /runs/{id}/actions/...`, never repeated). A 409 (and a 403 of
 * force-execute, which the seed uses for a run that is not pending) is explained: the error names
 * the run's current status, what the action needs and which actions are allowed now.
 */
export async function runAction(ctx: Context, action: RunAction, runId: string, comment?: string): Promise<void> {
  try {
    await ctx.client("runs").request({
      route: ACTION_ROUTES[action],
      params: { run_id: runId },
      body: action === "force-execute" || comment === undefined ? undefined : { comment },
    });
  } catch (e) {
    if (isSvcError(e, "conflict") || (action === "force-execute" && isSvcError(e, "forbidden"))) throw await explainRefusal(ctx, e, runId, action);
    throw e;
  }
}

/**
 * Stops a run that is still active, from its `actions`: discard when it can be discarded, cancel
 * when it can be canceled, nothing otherwise. Returns the action taken. A 409 (the run moved on
 * meanwhile) re-reads it and decides again.
 */
export async function stopRun(ctx: Context, runId: string, comment: string): Promise<RunAction | undefined> {
  for (let attempt = 1; ; attempt++) {
    const { run } = await readRun(ctx, runId);
    const action: RunAction | undefined = run.actions.isDiscardable ? "discard" : run.actions.isCancelable ? "cancel" : undefined;
    if (action === undefined) return undefined;
    try {
      await runAction(ctx, action, runId, comment);
      return action;
    } catch (e) {
      if (!isSvcError(e, "conflict") || attempt >= 3) throw e;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Waiting
// ---------------------------------------------------------------------------------------------

export interface PollOptions {
  /** Done when this holds (a terminal status always ends the wait). */
  done(run: RunDetails): boolean;
  /** What is awaited, for messages: "completed", "planned", "status applied". */
  goal: string;
  /** Absolute time (ms since epoch) after which the wait gives up. */
  deadline: number;
  /** First interval between polls; grows by half each poll while nothing changes, back to this on a change. */
  intervalMs: number;
  maxIntervalMs?: number;
}

export interface PollResult {
  run: RunDetails;
  timedOut: boolean;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls a run until `done`, a terminal status or the deadline; reports each status change through ctx.log. */
export async function pollRun(ctx: Context, runId: string, o: PollOptions): Promise<PollResult> {
  const started = Date.now();
  const maxInterval = o.maxIntervalMs ?? 15_000;
  let interval = o.intervalMs;
  let last = "";
  for (;;) {
    const { run } = await readRun(ctx, runId);
    const confirmable = run.actions.isConfirmable ? " (paused for confirmation)" : "";
    if (run.status + confirmable !== last) {
      ctx.log(`run ${runId}: ${run.status}${confirmable} after ${((Date.now() - started) / 1000).toFixed(1)} s, waiting for ${o.goal}`);
      if (last !== "") interval = o.intervalMs;
      last = run.status + confirmable;
    }
    if (o.done(run) || isTerminal(run)) return { run, timedOut: false };
    const remaining = o.deadline - Date.now();
    if (remaining <= 0) return { run, timedOut: true };
    await sleep(Math.min(interval, remaining));
    interval = Math.min(Math.ceil(interval * 1.5), maxInterval);
  }
}

/** Thrown when a run does not reach what was awaited in time. */
export class RunWaitTimeoutError extends Error {
  readonly code = "run_timeout";
  constructor(readonly runId: string, readonly status: string, readonly goal: string, readonly timeoutSeconds: number, what = "") {
    super(`run ${runId} did not reach ${goal} within ${timeoutSeconds} s (it is ${status})${what}`);
    this.name = "RunWaitTimeoutError";
  }
}

/** Thrown when a run that was awaited ended in a status that is not success (errored, discarded, ...). */
export class RunFailedError extends Error {
  readonly code = "run_failed";
  constructor(readonly runId: string, readonly status: string) {
    super(`run ${runId} ended ${status}`);
    this.name = "RunFailedError";
  }
}
