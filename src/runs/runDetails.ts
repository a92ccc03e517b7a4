/**
 * The run as users see it (`RunDetails`, camelCase) and its JSON:API codec: decoding a run
 * document, reading one run with its included resources, and listing a workspace's runs (the
 * list's filter fields are declared here, once, for the list functions and the actions' lookups).
 */
import { z } from "../core/zod";
import type { Context } from "../core/definition";
import { asText, field, fieldSet, nested, output, reported, reportedText, type Field, type PlainArgsOf, type ReadOf, type ReportedFields, type ResultOf } from "../core/fields";
import { segment } from "../core/segment";
import { membersOf, one, pages, type JsonApiResource } from "./jsonapi";
import { runCreateFields, type RunVariable } from "./runAttributes";
import { RUNS_ROUTES } from "./routes";
import { RUN_OPERATIONS, RUN_SOURCES, RUN_STATUSES, type RunSource, type RunStatus } from "./runVocabulary";

const flag = () => output<boolean>({ default: false, decode: (v) => v === true });
const flagRule = { default: false, decode: (v: unknown) => v === true };
/** Present only when the service sends a string. */
const maybeText = (v: unknown) => (typeof v === "string" ? v : undefined);
const addresses = { default: null, decode: (v: unknown) => (Array.isArray(v) ? v.map(String) : null) };
/** The id of a related resource, from the relationship `name` (runFromResource). */
const related = (name: string) => output<string>({ optional: true, relationship: { name, type: `${name}s` } });

const runActionsFields = {
  isCancelable: flag(),
  /** True while the run is paused for confirmation: the only reliable sign that apply will be accepted. */
  isConfirmable: flag(),
  isDiscardable: flag(),
  isForceCancelable: flag(),
};

/** What can be done with the run now (`actions` of the run). */
export interface RunActions extends ResultOf<typeof runActionsFields> {}

const runPermissionsFields = {
  canApply: flag(),
  canCancel: flag(),
  canComment: flag(),
  canDiscard: flag(),
  canForceExecute: flag(),
  canForceCancel: flag(),
  canOverridePolicyCheck: flag(),
};

/** What the caller may do (`permissions` of the run). */
export interface RunPermissions extends ResultOf<typeof runPermissionsFields> {}

const kebabToCamel = (k: string) => k.replace(/[-_]([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** What only a read of a run reports: its id, status, source, actions, timestamps and related objects. */
const runReadFields = {
  /** Run id (`run-...`). */
  id: reportedText(),
  /** Current status (`pending`, `planning`, `planned`, `applied`, `errored`, ...). */
  status: output<RunStatus>({ default: "" as RunStatus, decode: (v) => String(v) as RunStatus }),
  /** Where the run came from (`tfe-api`, `tfe-ui`, `tfe-configuration-version`, ...). */
  source: output<RunSource | string>({ default: "", decode: String }),
  /** Present when the service says why the run was queued. */
  triggerReason: output<string>({ optional: true, decode: maybeText }),
  /** Whether the plan found changes (false until the plan finished). */
  hasChanges: flag(),
  /** What can be done to the run now: `isConfirmable`, `isDiscardable`, `isCancelable`, `isForceCancelable`. */
  actions: nested(runActionsFields, { case: "kebab" }) as Field<RunActions, "output">,
  /** What the caller may do to the run (`canApply`, `canCancel`, `canDiscard`, `canForceExecute`, `canForceCancel`, ...). */
  permissions: nested(runPermissionsFields, { case: "kebab" }) as Field<RunPermissions, "output">,
  /** Timestamps per status, camelCase (`planQueueableAt`, `appliedAt`, ...). */
  statusTimestamps: output<Record<string, string>>({
    default: {},
    decode: (v) => Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, t]) => typeof t === "string").map(([k, t]) => [kebabToCamel(k), t as string])),
  }),
  /** When force-cancel becomes available; present only after a non-forceful cancel. */
  forceCancelAvailableAt: output<string>({ optional: true, wire: "force_cancel_available_at", decode: maybeText }),
  /** When the run was canceled; null when it was not. */
  canceledAt: output<string | null>({ default: null, decode: (v) => (typeof v === "string" ? v : null) }),
  /** When the run was queued (ISO 8601). */
  createdAt: reportedText(),
  /** Its plan (`plan-...`), once there is one. */
  planId: related("plan"),
  /** Its apply (`apply-...`), once there is one. */
  applyId: related("apply"),
  /** Its cost estimate, when the workspace estimates costs. */
  costEstimateId: related("cost-estimate"),
  /** The user who queued it. */
  createdById: output<string>({ optional: true, relationship: { name: "created-by", type: "users" } }),
};

/**
 * The create attributes as a read reports them, each declared once with the create
 * (src/runs/runCreate.ts): a blank where the run was queued without one, the service's own default
 * where it has one (a refresh unless told otherwise).
 */
const attributeRules = {
  workspaceId: { default: "" },
  configurationVersionId: {},
  message: { default: "", decode: asText },
  isDestroy: flagRule,
  refreshOnly: flagRule,
  refresh: { default: true, decode: (v: unknown) => v !== false },
  planOnly: flagRule,
  autoApply: flagRule,
  allowEmptyApply: flagRule,
  allowConfigGeneration: flagRule,
  targetAddrs: addresses,
  replaceAddrs: addresses,
  variables: {
    default: [] as RunVariable[],
    decode: (v: unknown) => (Array.isArray(v) ? (v as Record<string, unknown>[]).map((x) => ({ key: String(x?.key ?? ""), value: String(x?.value ?? "") })) : []),
  },
  toolVersion: { decode: maybeText },
};
const runAttributeFields: ReportedFields<typeof runCreateFields, typeof attributeRules> = reported(runCreateFields, attributeRules);

/**
 * Everything a read of a run reports, each field with its wire name in the run service's kebab
 * case, the related objects from their relationships.
 */
export const runDetailsFields: typeof runReadFields & typeof runAttributeFields = { ...runReadFields, ...runAttributeFields };

/** @internal */
export const runDetailsSet = fieldSet(runDetailsFields, { case: "kebab" });

/** A run (`run-...`) with camelCase names. */
export interface RunDetails extends ReadOf<typeof runDetailsFields> {}

/** A related resource returned by `getRun({ include })`, as the service sends it. */
export interface IncludedResource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
}

/** Decodes a run document (type `runs`). */
export function runFromResource(res: JsonApiResource): RunDetails {
  const wire = membersOf(runDetailsSet, res);
  // The seed writes this one with underscores; accept the kebab spelling too.
  wire.force_cancel_available_at ??= wire["force-cancel-available-at"];
  wire.id = res.id;
  return runDetailsSet.decode(wire, {}) as RunDetails;
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
