import { emptyReply, type Incoming, type Reply } from "../transport/http";
import type { Route } from "../transport/router";
import { isRecord, now, randomId } from "../util";
import { accessibleRun, organizationRefused, principalName, type Need, type RunContext } from "./context";
import { errorReply, invalid, readDocument, simpleError } from "./jsonapi";
import { isCancelable, isConfirmable, isDiscardable, isForceCancelable, lockHolder, moveTo, takeLock } from "./runStateMachine";
import { runsOf } from "./runIndex";
import type { Run } from "./state";
import { COMPLETED_STATUSES } from "./vocabulary";

/**
 * POST /runs/:id/actions/{apply,discard,cancel,force-cancel,force-execute}: 202 with no body.
 * Checks in order: organization token (403), run visible and permission held (404), body (422),
 * then the seed's preconditions (409, or 403 for force-execute); every 409 names the status.
 */

type Action = (ctx: RunContext, run: Run, by: string | null) => Reply | undefined;

const conflict = (run: Run, detail: string) => simpleError(409, "conflict", `${detail} (the run's current status is ${run.status})`);

const apply: Action = (ctx, run, by) => {
  if (!isConfirmable(run)) return conflict(run, "run is not paused for confirmation or policy_checked, so it cannot be applied");
  moveTo(ctx.rt, run, "confirmed", by);
  return undefined;
};

const discard: Action = (ctx, run, by) => {
  if (!isDiscardable(run)) return conflict(run, "only a pending run, a run paused for confirmation, or one in policy_checked or policy_override can be discarded");
  moveTo(ctx.rt, run, "discarded", by);
  return undefined;
};

/** The run keeps its status and becomes canceled on its next step; force-cancel opens after the cool-off. */
const cancel: Action = (ctx, run, by) => {
  if (!isCancelable(run)) return conflict(run, "only a planning or applying run can be canceled");
  if (!run.cancelRequested) {
    run.cancelRequested = true;
    run.forceCancelAvailableAt = new Date(ctx.rt.runService.nowMs() + ctx.rt.runService.forceCancelCooloffMs).toISOString();
  }
  run.updatedByName = by;
  run.updatedAt = now();
  return undefined;
};

const forceCancel: Action = (ctx, run, by) => {
  if (!isCancelable(run)) return conflict(run, "only a planning or applying run can be force-canceled");
  if (!run.cancelRequested) return conflict(run, "run has not been canceled yet; cancel it first");
  if (!isForceCancelable(run, ctx.rt.runService.nowMs())) return conflict(run, `the cool-off period has not passed; force-cancel is available at ${run.forceCancelAvailableAt}`);
  moveTo(ctx.rt, run, "force_canceled", by);
  return undefined;
};

/** Cancels every earlier incomplete run of the workspace (seed 000: "All prior incomplete runs are canceled") and takes the lock. */
const forceExecute: Action = (ctx, run, by) => {
  const state = ctx.rt.store.data.run;
  if (run.status !== "pending") return simpleError(403, "forbidden", `only a pending run can be force-executed (the run's current status is ${run.status})`);
  const holder = lockHolder(state, run.workspaceId);
  if (!holder || holder.id === run.id) return simpleError(403, "forbidden", "the workspace is not locked by another run");
  if (!isDiscardable(holder)) {
    return simpleError(409, "conflict", `the locking run ${holder.id} cannot be discarded (its current status is ${holder.status}; this run is ${run.status})`);
  }
  const earlier = runsOf(state, run.workspaceId).filter((r) => r.seq < run.seq && !COMPLETED_STATUSES.has(r.status));
  for (const prior of earlier) moveTo(ctx.rt, prior, "canceled", by);
  takeLock(state, run);
  return undefined;
};

/** The optional `{"comment": string|null}` body; force-execute takes no body and ignores one. */
function readComment(req: Incoming): { ok: true; comment: string | null } | { ok: false; reply: Reply } {
  const body = readDocument(req);
  if (!body.ok) return { ok: false, reply: errorReply(422, body.errors) };
  if (body.value === undefined) return { ok: true, comment: null };
  if (!isRecord(body.value)) return { ok: false, reply: errorReply(422, [invalid("", "body must be a JSON object {comment}")]) };
  const comment = body.value.comment ?? null;
  if (comment !== null && typeof comment !== "string") return { ok: false, reply: errorReply(422, [invalid("/comment", "comment must be a string or null")]) };
  return { ok: true, comment };
}

function handler(name: string, need: Need, action: Action, takesBody = true) {
  return (ctx: RunContext, req: Incoming): Reply => {
    const refused = organizationRefused(ctx, `${name} runs`);
    if (refused) return refused;
    const run = accessibleRun(ctx, req.params.id, need);
    if (!run) return simpleError(404, "not found", `run ${req.params.id} not found`);
    const body = takesBody ? readComment(req) : ({ ok: true, comment: null } as const);
    if (!body.ok) return body.reply;
    const by = principalName(ctx);
    const refusal = action(ctx, run, by);
    if (refusal) return refusal;
    if (body.comment !== null && body.comment !== "") {
      run.comments.push({ id: randomId("wsc"), body: body.comment, action: name, by, at: now() });
    }
    return emptyReply(202);
  };
}

export const runActionRoutes: Route<RunContext>[] = [
  { method: "POST", path: "/runs/:id/actions/apply", handler: handler("apply", "applyRuns", apply) },
  { method: "POST", path: "/runs/:id/actions/discard", handler: handler("discard", "applyRuns", discard) },
  { method: "POST", path: "/runs/:id/actions/cancel", handler: handler("cancel", "applyRuns", cancel) },
  { method: "POST", path: "/runs/:id/actions/force-cancel", handler: handler("force-cancel", "admin", forceCancel) },
  { method: "POST", path: "/runs/:id/actions/force-execute", handler: handler("force-execute", "applyRuns", forceExecute, false) },
];
