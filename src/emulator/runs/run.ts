import { workspaceAccess, type RunPrincipal } from "../auth";
import type { Incoming, Reply } from "../transport/http";
import type { Route } from "../transport/router";
import { accessibleRun, type RunContext } from "./context";
import { API_PREFIX, documentReply, errorReply, simpleError, type ApiError } from "./jsonapi";
import { isCancelable, isConfirmable, isDiscardable, isForceCancelable } from "./runStateMachine";
import type { Run, RunState } from "./state";
import { COMPLETED_STATUSES, type RunStatus } from "./vocabulary";

/**
 * The run document of the seed. `actions` follow the status (runStateMachine.ts); `permissions` say what
 * the caller may do on the workspace, whatever the status (a caller allowed to apply keeps
 * can-apply on an applied run), and are all false for organization tokens, which the seed refuses
 * for every action.
 */

const ref = (type: string, id: string | null) => ({ data: id === null ? null : { id, type } });

function permissions(principal: RunPrincipal, state: RunState, run: Run): Record<string, boolean> {
  const ws = state.workspaces[run.workspaceId];
  const access = ws ? workspaceAccess(principal, ws) : { read: false, queuePlans: false, applyRuns: false, admin: false };
  const acting = principal.kind !== "organization";
  const apply = acting && access.applyRuns;
  const admin = acting && access.admin;
  return {
    "can-apply": apply,
    "can-cancel": apply,
    "can-comment": acting && access.queuePlans,
    "can-discard": apply,
    "can-force-execute": apply,
    "can-force-cancel": admin,
    "can-override-policy-check": admin,
  };
}

export interface DocumentOptions {
  /** The seed puts task-stages on the get-run response only. */
  taskStages?: boolean;
  /** The run service's clock (RunService.nowMs), which decides is-force-cancelable. */
  nowMs: number;
}

export function runResource(state: RunState, principal: RunPrincipal, run: Run, options: DocumentOptions) {
  const nowMs = options.nowMs;
  const attributes: Record<string, unknown> = {
    actions: {
      "is-cancelable": isCancelable(run),
      "is-confirmable": isConfirmable(run),
      "is-discardable": isDiscardable(run),
      "is-force-cancelable": isForceCancelable(run, nowMs),
    },
    "canceled-at": run.canceledAt,
    "created-at": run.createdAt,
    "has-changes": run.hasChanges,
    "auto-apply": run.autoApply,
    "allow-empty-apply": run.allowEmptyApply,
    "allow-config-generation": run.allowConfigGeneration,
    "is-destroy": run.isDestroy,
    message: run.message,
    "plan-only": run.planOnly,
    source: run.source,
    status: run.status,
    "status-timestamps": { ...run.statusTimestamps },
    "trigger-reason": run.triggerReason,
    "target-addrs": run.targetAddrs,
    "replace-addrs": run.replaceAddrs,
    refresh: run.refresh,
    "refresh-only": run.refreshOnly,
    variables: run.variables,
    "tool-version": run.toolVersion,
    permissions: permissions(principal, state, run),
  };
  if (run.forceCancelAvailableAt !== null) attributes.force_cancel_available_at = run.forceCancelAvailableAt;
  const relationships: Record<string, unknown> = {
    apply: ref("applies", run.applyId),
    comments: { data: run.comments.map((c) => ({ id: c.id, type: "comments" })) },
    "configuration-version": ref("configuration-versions", run.configurationVersionId),
    "cost-estimate": ref("cost-estimates", run.costEstimateId),
    "created-by": ref("users", run.createdByUserId),
    "input-state-version": ref("state-versions", null),
    plan: ref("plans", run.planId),
    "run-events": { data: [] },
    "policy-checks": { data: run.policyCheckId ? [{ id: run.policyCheckId, type: "policy-checks" }] : [] },
    workspace: ref("workspaces", run.workspaceId),
    "workspace-run-alerts": { data: [] },
  };
  if (options.taskStages) relationships["task-stages"] = { data: [] };
  return { id: run.id, type: "runs", attributes, relationships, links: { self: `${API_PREFIX}/runs/${run.id}` } };
}

/**
 * `include` on the GET endpoints for runs. The seed shows only the identifiers of related
 * resources, so each included document is minimal: its id, type, a status and a few counts
 * (see the emulator README for the shapes).
 */

export const INCLUDES = ["plan", "apply", "created_by", "cost_estimate", "configuration_version", "configuration_version.ingress_attributes"] as const;
type Include = (typeof INCLUDES)[number];

/** The requested includes, or a 400 error (JSON:API's answer for an unsupported include path). */
export function parseInclude(query: URLSearchParams): Include[] | ApiError {
  const raw = query.get("include");
  if (raw === null) return [];
  const out: Include[] = [];
  for (const part of raw.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    if (!(INCLUDES as readonly string[]).includes(part)) {
      return { status: "400", title: "invalid include", detail: `include ${JSON.stringify(part)} is not supported; allowed: ${INCLUDES.join(", ")}`, source: { parameter: "include" } };
    }
    if (!out.includes(part as Include)) out.push(part as Include);
  }
  return out;
}

type Resource = { id: string; type: string; attributes: Record<string, unknown>; relationships?: Record<string, unknown>; links?: Record<string, string> };

const reached = (run: Run, status: RunStatus) => run.statusTimestamps[`${status.replace(/_/g, "-")}-at`] !== undefined;

function planStatus(run: Run): string {
  if (reached(run, "planned")) return "finished";
  switch (run.status) {
    case "pending":
      return "pending";
    case "plan_queued":
      return "queued";
    case "planning":
      return "running";
    case "errored":
      return "errored";
    case "canceled":
    case "force_canceled":
      return "canceled";
    default:
      return "unreachable";
  }
}

function applyStatus(run: Run): string {
  switch (run.status) {
    case "applied":
      return "finished";
    case "applying":
      return "running";
    case "confirmed":
    case "apply_queued":
      return "queued";
    case "errored":
    case "canceled":
    case "force_canceled":
      if (reached(run, "applying")) return run.status === "errored" ? "errored" : "canceled";
      return "unreachable";
    case "planned_and_finished":
    case "discarded":
    case "policy_soft_failed":
      return "unreachable";
    default:
      return "pending";
  }
}

function counts(run: Run, phaseDone: boolean): Record<string, number> {
  const changed = phaseDone && run.hasChanges ? 1 : 0;
  return {
    "resource-additions": run.isDestroy ? 0 : changed,
    "resource-changes": 0,
    "resource-destructions": run.isDestroy ? changed : 0,
  };
}

function costStatus(run: Run): string {
  if (reached(run, "cost_estimated")) return "finished";
  if (run.status === "cost_estimating") return "running";
  // A run that ended before its estimate leaves the estimate canceled.
  return COMPLETED_STATUSES.has(run.status) ? "canceled" : "pending";
}

function ingressId(cvId: string): string {
  return `ia-${cvId.replace(/^cv-/, "")}`;
}

function related(state: RunState, run: Run, include: Include): Resource[] {
  switch (include) {
    case "plan":
      return [{ id: run.planId, type: "plans", attributes: { status: planStatus(run), "has-changes": run.hasChanges, ...counts(run, reached(run, "planned")) }, links: { self: `${API_PREFIX}/plans/${run.planId}` } }];
    case "apply":
      return [{ id: run.applyId, type: "applies", attributes: { status: applyStatus(run), ...counts(run, run.status === "applied") }, links: { self: `${API_PREFIX}/applies/${run.applyId}` } }];
    case "created_by": {
      const user = run.createdByUserId ? state.users[run.createdByUserId] : undefined;
      return user ? [{ id: user.id, type: "users", attributes: { username: user.username } }] : [];
    }
    case "cost_estimate":
      return run.costEstimateId
        ? [{ id: run.costEstimateId, type: "cost-estimates", attributes: { status: costStatus(run), "prior-monthly-cost": "0.0", "proposed-monthly-cost": "0.0", "delta-monthly-cost": "0.0" } }]
        : [];
    case "configuration_version": {
      const cv = run.configurationVersionId ? state.configurationVersions[run.configurationVersionId] : undefined;
      if (!cv) return [];
      return [
        {
          id: cv.id,
          type: "configuration-versions",
          attributes: { status: "uploaded", speculative: cv.speculative, "created-at": cv.createdAt },
          relationships: { "ingress-attributes": { data: { id: ingressId(cv.id), type: "ingress-attributes" } } },
          links: { self: `${API_PREFIX}/configuration-versions/${cv.id}` },
        },
      ];
    }
    case "configuration_version.ingress_attributes": {
      const cv = run.configurationVersionId ? state.configurationVersions[run.configurationVersionId] : undefined;
      if (!cv) return [];
      // JSON:API includes every resource on a dotted path, so the configuration version comes too.
      return [
        ...related(state, run, "configuration_version"),
        { id: ingressId(cv.id), type: "ingress-attributes", attributes: { "commit-sha": cv.commitSha, branch: cv.branch, "sender-username": cv.senderUsername } },
      ];
    }
  }
}

/** The `included` array for `runs`, each related resource once. */
export function includedFor(state: RunState, runs: Run[], includes: Include[]): Resource[] {
  const seen = new Set<string>();
  const out: Resource[] = [];
  for (const run of runs) {
    for (const include of includes) {
      for (const resource of related(state, run, include)) {
        const key = `${resource.type}/${resource.id}`;
        if (!seen.has(key)) {
          seen.add(key);
          out.push(resource);
        }
      }
    }
  }
  return out;
}

/** GET /runs/:id: any caller who can read the workspace (user, team, own-organization token). */
function showRun(ctx: RunContext, req: Incoming): Reply {
  const run = accessibleRun(ctx, req.params.id, "read");
  if (!run) return simpleError(404, "not found", `run ${req.params.id} not found`);
  const includes = parseInclude(req.query);
  if (!Array.isArray(includes)) return errorReply(400, [includes]);
  const state = ctx.rt.store.data.run;
  return documentReply(200, {
    data: runResource(state, ctx.principal, run, { taskStages: true, nowMs: ctx.rt.runService.nowMs() }),
    ...(includes.length > 0 ? { included: includedFor(state, [run], includes) } : {}),
  });
}

/** The run object's read row; create (runCreate.ts), list (runList.ts) and the actions (runActions.ts) bring theirs. */
export const runRoutes: Route<RunContext>[] = [{ method: "GET", path: "/runs/:id", handler: showRun }];
