import { workspaceAccess } from "../auth";
import type { Incoming, Reply } from "../transport/http";
import type { Route } from "../transport/router";
import type { Runtime } from "../clusterRuntime";
import { hasOwn, isRecord, now, randomId } from "../util";
import { accessibleWorkspace, organizationRefused, principalName, principalUserId, type RunContext } from "./context";
import { API_PREFIX, documentReply, errorReply, invalid, readDocument, simpleError, withLocation, type ApiError } from "./jsonapi";
import { emitRunEvent } from "./notificationDelivery";
import { runResource } from "./run";
import { assignLock, timestampKey } from "./runStateMachine";
import { insertRun, nextSeq } from "./runIndex";
import type { ConfigurationVersion, Run, RunState, RunVariable, Workspace } from "./state";

/**
 * POST /runs: the body's shape checks, the rules that need the workspace and configuration
 * version, and building and queueing the run (shared with POST /_emulator/runs).
 */

/** The seed's "fixed default text saying the run was queued manually through the API". */
export const DEFAULT_RUN_MESSAGE = "Queued manually via the API";

const CV_POINTER = "/data/relationships/configuration-version/data/id";

/** POST /runs: checks in the seed's order of answers (403 token type, 422 shape, 404 access, 422 rules). */
export function createRun(ctx: RunContext, req: Incoming): Reply {
  const refused = organizationRefused(ctx, "create runs");
  if (refused) return refused;
  const body = readDocument(req);
  if (!body.ok) return errorReply(422, body.errors);
  const input = readRunInput(body.value);
  if (Array.isArray(input)) return errorReply(422, input);
  const state = ctx.rt.store.data.run;
  const ws = accessibleWorkspace(ctx, input.workspaceId, "queuePlans");
  if (!ws) return simpleError(404, "not found", `workspace ${input.workspaceId} not found`);

  const cv = configurationVersionOf(ctx, ws, input.configurationVersionId);
  if ("status" in cv) return cv;
  const planOnly = input.planOnly ?? cv.speculative;
  if (cv.speculative && !planOnly) {
    return errorReply(422, [invalid("/data/attributes/plan-only", `configuration version ${cv.id} is speculative: only plan-only runs can use it`)]);
  }
  if (input.toolVersion !== undefined && !planOnly) {
    return errorReply(422, [invalid("/data/attributes/tool-version", "tool-version is only valid for plan-only runs")]);
  }

  const autoApply = input.autoApply ?? ws.settings?.autoApply ?? false;
  const userId = principalUserId(ctx.principal);
  const name = principalName(ctx);
  const run = buildRun(state, ws, {
    workspaceId: ws.id,
    configurationVersionId: cv.id,
    source: "svc-api",
    message: input.message ?? DEFAULT_RUN_MESSAGE,
    createdByUserId: userId,
    createdByName: name,
    updatedByName: name,
    // Users' version-control usernames are their usernames (docs/emulator.md, "Run path").
    vcsUsername: userId ? (state.users[userId]?.username ?? null) : cv.senderUsername,
    commitSha: cv.commitSha,
    autoApply,
    autoApplyEffective: autoApply && workspaceAccess(ctx.principal, ws).applyRuns,
    allowEmptyApply: input.allowEmptyApply ?? false,
    allowConfigGeneration: input.allowConfigGeneration ?? false,
    isDestroy: input.isDestroy ?? false,
    planOnly,
    refresh: input.refresh ?? true,
    refreshOnly: input.refreshOnly ?? false,
    targetAddrs: input.targetAddrs ?? null,
    replaceAddrs: input.replaceAddrs ?? null,
    variables: input.variables ?? [],
    toolVersion: input.toolVersion ?? null,
    triggerReason: "manual",
  });
  queueRun(ctx.rt, run);
  return withLocation(documentReply(201, { data: runResource(state, ctx.principal, run, { nowMs: ctx.rt.runService.nowMs() }) }), `${API_PREFIX}/runs/${run.id}`);
}

/** The version a run plans: the one named (404 when the caller cannot read it), else the workspace's latest (422 when none). */
function configurationVersionOf(ctx: RunContext, ws: Workspace, named: string | undefined): ConfigurationVersion | Reply {
  const state = ctx.rt.store.data.run;
  if (named !== undefined) {
    const cv = state.configurationVersions[named];
    // Promotion: a version of another workspace is fine when the caller can read that workspace.
    if (!cv || !accessibleWorkspace(ctx, cv.workspaceId, "read")) return simpleError(404, "not found", `configuration version ${named} not found`);
    return cv;
  }
  const latest = state.latestConfigurationVersions[ws.id];
  const cv = latest === undefined ? undefined : state.configurationVersions[latest];
  return cv ?? errorReply(422, [invalid(CV_POINTER, `workspace ${ws.id} has no configuration version; name one in configuration-version`)]);
}

/** A create-run body after shape checks; absent members take their defaults in createRun. */
interface RunInput {
  workspaceId: string;
  configurationVersionId?: string;
  allowEmptyApply?: boolean;
  allowConfigGeneration?: boolean;
  autoApply?: boolean;
  isDestroy?: boolean;
  message?: string;
  refresh?: boolean;
  refreshOnly?: boolean;
  replaceAddrs?: string[];
  targetAddrs?: string[];
  variables?: RunVariable[];
  planOnly?: boolean;
  toolVersion?: string;
}

const A = "/data/attributes";
const BOOLEANS = {
  "allow-empty-apply": "allowEmptyApply",
  "allow-config-generation": "allowConfigGeneration",
  "auto-apply": "autoApply",
  "is-destroy": "isDestroy",
  refresh: "refresh",
  "refresh-only": "refreshOnly",
  "plan-only": "planOnly",
} as const;
/** Which versions are "available to the organization" is not shown: any x.y.z (with a pre-release) is. */
const TOOL_VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/**
 * Checks the shape of a create-run document; every problem is one error naming its pointer.
 * A member set to null counts as absent, so clients may send explicit nulls for "default".
 */
function readRunInput(body: unknown): RunInput | ApiError[] {
  if (!isRecord(body) || !isRecord(body.data)) return [invalid("/data", "data must be a JSON object")];
  const data = body.data;
  const errors: ApiError[] = [];
  if (data.type !== "runs") errors.push(invalid("/data/type", 'type is required and must be "runs"'));
  const attributes = data.attributes ?? {};
  const relationships = data.relationships;
  if (!isRecord(attributes)) errors.push(invalid(A, "attributes must be a JSON object"));
  if (!isRecord(relationships)) {
    errors.push(invalid("/data/relationships", "relationships with a workspace are required"));
    return errors;
  }
  const workspaceId = readRelationship(relationships, "workspace", "workspaces", true, errors);
  const configurationVersionId = readRelationship(relationships, "configuration-version", "configuration-versions", false, errors);
  if (!isRecord(attributes)) return errors;

  const input: RunInput = { workspaceId: workspaceId ?? "" };
  if (configurationVersionId !== undefined) input.configurationVersionId = configurationVersionId;
  const present = (key: string) => hasOwn(attributes, key) && attributes[key] !== null;
  for (const [key, field] of Object.entries(BOOLEANS)) {
    if (!present(key)) continue;
    if (typeof attributes[key] === "boolean") input[field] = attributes[key] as boolean;
    else errors.push(invalid(`${A}/${key}`, `${key} must be a boolean`));
  }
  if (present("message")) {
    if (typeof attributes.message === "string") input.message = attributes.message;
    else errors.push(invalid(`${A}/message`, "message must be a string"));
  }
  for (const [key, field] of [["target-addrs", "targetAddrs"], ["replace-addrs", "replaceAddrs"]] as const) {
    if (present(key)) input[field] = readAddresses(attributes[key], key, errors);
  }
  if (present("variables")) input.variables = readVariables(attributes.variables, errors);
  if (present("tool-version")) {
    const v = attributes["tool-version"];
    if (typeof v === "string" && TOOL_VERSION.test(v)) input.toolVersion = v;
    else errors.push(invalid(`${A}/tool-version`, "tool-version must be a version such as 1.9.0"));
  }
  if (input.isDestroy === true && input.refreshOnly === true) {
    errors.push(invalid(`${A}/refresh-only`, "is-destroy and refresh-only are mutually exclusive; set at most one of them to true"));
  }
  return errors.length > 0 ? errors : input;
}

function readRelationship(relationships: Record<string, unknown>, name: string, type: string, required: boolean, errors: ApiError[]): string | undefined {
  const pointer = `/data/relationships/${name}/data`;
  const rel = relationships[name];
  if (rel === undefined || rel === null || (isRecord(rel) && rel.data === null)) {
    if (required) errors.push(invalid(`${pointer}/id`, `${name} is required: {data: {type: "${type}", id}}`));
    return undefined;
  }
  if (!isRecord(rel) || !isRecord(rel.data)) {
    errors.push(invalid(pointer, `${name} must be a relationship object {data: {type: "${type}", id}}`));
    return undefined;
  }
  const { id, type: given } = rel.data;
  if (given !== undefined && given !== type) errors.push(invalid(`${pointer}/type`, `${name} type must be "${type}"`));
  if (typeof id !== "string" || id === "") {
    errors.push(invalid(`${pointer}/id`, `${name} id must be a non-empty string`));
    return undefined;
  }
  return id;
}

function readAddresses(value: unknown, key: string, errors: ApiError[]): string[] {
  if (!Array.isArray(value)) {
    errors.push(invalid(`${A}/${key}`, `${key} must be an array of resource addresses`));
    return [];
  }
  value.forEach((v, i) => {
    if (typeof v !== "string" || v === "") errors.push(invalid(`${A}/${key}/${i}`, `${key} entries must be non-empty strings`));
  });
  return value as string[];
}

function readVariables(value: unknown, errors: ApiError[]): RunVariable[] {
  const pointer = `${A}/variables`;
  if (!Array.isArray(value)) {
    errors.push(invalid(pointer, "variables must be an array of {key, value}"));
    return [];
  }
  const out: RunVariable[] = [];
  const keys = new Set<string>();
  value.forEach((v, i) => {
    if (!isRecord(v)) return errors.push(invalid(`${pointer}/${i}`, "variables entries must be {key, value} objects"));
    if (typeof v.key !== "string" || v.key === "") return errors.push(invalid(`${pointer}/${i}/key`, "key must be a non-empty string"));
    if (typeof v.value !== "string") return errors.push(invalid(`${pointer}/${i}/value`, "value must be a string (a literal expression, strings with embedded quotes)"));
    if (keys.has(v.key)) return errors.push(invalid(`${pointer}/${i}/key`, `variable ${v.key} is given twice`));
    keys.add(v.key);
    out.push({ key: v.key, value: v.value });
  });
  return out;
}

/** Everything a new run needs that is not derived; shared by POST /runs and POST /_emulator/runs. */
export type RunFields = Omit<
  Run,
  "id" | "seq" | "status" | "statusTimestamps" | "createdAt" | "updatedAt" | "canceledAt" | "hasChanges" | "cancelRequested" | "forceCancelAvailableAt" | "outcome" | "planId" | "applyId" | "costEstimateId" | "policyCheckId" | "comments"
>;

function freshId(state: RunState, prefix: string): string {
  let id = randomId(prefix);
  while (state.runs[id]) id = randomId(prefix);
  return id;
}

/** A pending run with the workspace's settings as its outcome; not stored yet. */
export function buildRun(state: RunState, workspace: Workspace, fields: RunFields): Run {
  const at = now();
  const settings = workspace.settings ?? {};
  const costEstimation = settings.costEstimation === true;
  return {
    ...fields,
    id: freshId(state, "run"),
    seq: nextSeq(state),
    status: "pending",
    statusTimestamps: { [timestampKey("pending")]: at },
    createdAt: at,
    updatedAt: at,
    canceledAt: null,
    hasChanges: false,
    cancelRequested: false,
    forceCancelAvailableAt: null,
    outcome: { hasChanges: true, costEstimation, policy: settings.policy ?? "none", error: null, holdAt: settings.holdRunsAt ?? null },
    planId: randomId("plan"),
    applyId: randomId("apply"),
    costEstimateId: costEstimation ? randomId("ce") : null,
    policyCheckId: null,
    comments: [],
  };
}

/** Stores a pending run: it becomes its configuration version's latest use, may take the lock, and fires run:created. */
export function queueRun(rt: Runtime, run: Run): void {
  const state = rt.store.data.run;
  insertRun(state, run);
  if (run.configurationVersionId) state.latestConfigurationVersions[run.workspaceId] = run.configurationVersionId;
  assignLock(state, run.workspaceId);
  emitRunEvent(rt, run, "run:created");
}

export const runCreateRoutes: Route<RunContext>[] = [{ method: "POST", path: "/runs", handler: createRun }];
