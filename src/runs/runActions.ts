/**
 * Acting on a run (apply, discard, cancel, force-cancel, force-execute) and stopping one. A refused
 * action is explained from the run as it is now, because the service's 409 alone does not say why.
 */
import type { Context } from "../core/definition";
import { ConflictError, ForbiddenError, isSvcError, type SvcError } from "../http";
import { iterateRuns, readRun, type RunDetails } from "./runDetails";
import { RUNS_ROUTES } from "./routes";
import { RUN_STATUSES, TERMINAL_RUN_STATUSES } from "./runVocabulary";

export type RunAction = "apply" | "discard" | "cancel" | "force-cancel" | "force-execute";

const ACTION_ROUTES: Record<RunAction, string> = {
  apply: RUNS_ROUTES.run.apply,
  discard: RUNS_ROUTES.run.discard,
  cancel: RUNS_ROUTES.run.cancel,
  "force-cancel": RUNS_ROUTES.run.forceCancel,
  "force-execute": RUNS_ROUTES.run.forceExecute,
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
