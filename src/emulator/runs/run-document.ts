import { workspaceAccess, type RunPrincipal } from "../auth";
import type { Run, RunState } from "./state";
import { API_PREFIX } from "./jsonapi";
import { isCancelable, isConfirmable, isDiscardable, isForceCancelable } from "./runPath";

/**
 * The run document of the seed. `actions` follow the status (run-path.ts); `permissions` say what
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
  nowMs?: number;
}

export function runResource(state: RunState, principal: RunPrincipal, run: Run, options: DocumentOptions = {}) {
  const nowMs = options.nowMs ?? Date.now();
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
