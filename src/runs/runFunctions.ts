/**
 * Run functions: queue, read, list, act on and wait for runs. Each has a Promise form and an Output
 * form; the ones with side effects (and waiting) make no request during preview.
 */
import { z } from "../core/zod";
import { forms } from "../core/forms";
import { field, pick, type PlainArgsOf } from "../core/fields";
import { segment } from "../core/segment";
import { programContext, settle, validated, type FunctionDefinition, type SvcInvokeOptions } from "../core/fn";
import { runAction, type RunAction } from "./runActions";
import { runCreateFields, runCreateSet } from "./runAttributes";
import { createRunOnce } from "./runCreate";
import { iterateRuns, readRun, runListFields, type IncludedResource, type RunDetails } from "./runDetails";
import { RUN_INCLUDES, RUN_STATUSES, planFinished } from "./runVocabulary";
import { RunWaitTimeoutError, pollRun } from "./runWait";

/** The run a function reads, acts on or waits for. */
const runRef = {
  /** Run id (`run-...`). */
  runId: field(segment),
};

// ---------------------------------------------------------------------------------------------
// createRun
// ---------------------------------------------------------------------------------------------

/** Arguments of {@link createRun}: every create attribute of a run. */
export type CreateRunArgs = PlainArgsOf<typeof runCreateFields>;

const createRunDef: FunctionDefinition<CreateRunArgs, RunDetails, "runs"> = {
  name: "createRun",
  schema: runCreateSet.schema, fields: runCreateFields,
  sideEffects: true, service: "runs",
  run: (ctx, args) => createRunOnce(ctx, args),
};

/**
 * Queues a run (`POST /runs`) and returns it. A request whose response was lost is not repeated
 * blindly (the run it created is found and returned). During preview it makes no request and
 * resolves to undefined.
 */
export const createRun = forms(createRunDef).promise;

/** Output form of {@link createRun}: unknown during preview. */
export const createRunOutput = forms(createRunDef).output;

// ---------------------------------------------------------------------------------------------
// getRun
// ---------------------------------------------------------------------------------------------

const getRunFieldsOwn = {
  /** Related resources to return in `included`: plan, apply, created_by, cost_estimate, configuration_version, configuration_version.ingress_attributes. */
  include: field(() => z.array(z.enum(RUN_INCLUDES, { error: `must be one of ${RUN_INCLUDES.join(", ")}` })), { optional: true }),
};

const getRunFields: typeof runRef & typeof getRunFieldsOwn = { ...runRef, ...getRunFieldsOwn };

/** Arguments of {@link getRun}. */
export type GetRunArgs = PlainArgsOf<typeof getRunFields>;

export type GetRunResult = RunDetails & {
  /** Related resources asked for with `include`, as the service sends them. */
  included?: IncludedResource[];
};

const getRunDef: FunctionDefinition<GetRunArgs, GetRunResult, "runs"> = { name: "getRun", fields: getRunFields, sideEffects: false, service: "runs",
  async run(ctx, args) {
    const { run, included } = await readRun(ctx, args.runId, args.include);
    return args.include && args.include.length > 0 ? { ...run, included } : run;
  },
};

/** Reads a run (`GET /runs/{id}`), with related resources when `include` is given. Runs during preview too. */
export const getRun = forms(getRunDef).promise;

/** Output form of {@link getRun}. */
export const getRunOutput = forms(getRunDef).output;

// ---------------------------------------------------------------------------------------------
// listRuns
// ---------------------------------------------------------------------------------------------

const listRunsFieldsOwn = {
  /** Stop after this many runs. */
  limit: field(() => z.number().int("must be an integer").min(1, "must be at least 1"), { optional: true }),
};

const listRunsFields: typeof runListFields & typeof listRunsFieldsOwn = { ...runListFields, ...listRunsFieldsOwn };

/** Arguments of {@link listRuns}: the workspace, filters and search. */
export type ListRunsArgs = PlainArgsOf<typeof listRunsFields>;

const listRunsDef: FunctionDefinition<ListRunsArgs, RunDetails[], "runs"> = { name: "listRuns", fields: listRunsFields, sideEffects: false, service: "runs",
  async run(ctx, args) {
    const all: RunDetails[] = [];
    for await (const run of iterateRuns(ctx, args)) {
      all.push(run);
      if (args.limit !== undefined && all.length >= args.limit) break;
    }
    return all;
  },
};

/** Lists a workspace's runs, every page, with filters and search. Runs during preview too. */
export const listRuns = forms(listRunsDef).promise;

/** Output form of {@link listRuns}. */
export const listRunsOutput = forms(listRunsDef).output;

// A const like the forms above (function declarations are listed first), so the reference keeps it after them.
/**
 * The runs of a workspace one at a time, fetching a page when the previous one is used up: for
 * workspaces with many runs, memory stays at one page. `for await (const run of listRunsIterator(...))`.
 * Arguments are validated when iteration starts.
 */
export const listRunsIterator: (args: ListRunsArgs, opts?: SvcInvokeOptions<"runs">) => AsyncGenerator<RunDetails, void, undefined> = async function* (args, opts = {}) {
  const checked = validated(listRunsDef, args);
  let n = 0;
  for await (const run of iterateRuns(programContext(await settle(opts.connection), "runs"), checked)) {
    yield run;
    if (checked.limit !== undefined && ++n >= checked.limit) return;
  }
};

// ---------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------

const runActionFieldsOwn = {
  /** Comment recorded with the action. */
  comment: field(() => z.string(), { optional: true }),
};

const runActionFields: typeof runRef & typeof runActionFieldsOwn = { ...runRef, ...runActionFieldsOwn };

/** Arguments of the run actions that take a comment. */
export type RunActionArgs = PlainArgsOf<typeof runActionFields>;

// force-execute takes no comment: the seed's request has no body.
const forceExecuteFields = pick(runActionFields, "runId");

/** Arguments of {@link forceExecuteRun}: the pending run to execute now. */
export type ForceExecuteRunArgs = PlainArgsOf<typeof forceExecuteFields>;

function actionDef<A extends { runId: string; comment?: string }>(name: string, action: RunAction, fields: typeof runActionFields | typeof forceExecuteFields): FunctionDefinition<A, RunDetails, "runs"> {
  return {
    name,
    fields,
    sideEffects: true, service: "runs",
    async run(ctx, args) {
      await runAction(ctx, action, args.runId, args.comment);
      return (await readRun(ctx, args.runId)).run;
    },
  };
}

const applyDef = actionDef<RunActionArgs>("applyRun", "apply", runActionFields);
const discardDef = actionDef<RunActionArgs>("discardRun", "discard", runActionFields);
const cancelDef = actionDef<RunActionArgs>("cancelRun", "cancel", runActionFields);
const forceCancelDef = actionDef<RunActionArgs>("forceCancelRun", "force-cancel", runActionFields);
const forceExecuteDef = actionDef<ForceExecuteRunArgs>("forceExecuteRun", "force-execute", forceExecuteFields);

/**
 * Applies a run paused for confirmation and returns the run as it is right after (the apply is
 * queued and may not start at once). A run that is not confirmable fails with a ConflictError that
 * names its status and the actions allowed now. No request during preview.
 *
 * @remarks
 * **Refused actions explain themselves** (this one and the other run actions). A 409 comes back as
 * a `ConflictError` whose message names the run's current status, what the action needs and what
 * is allowed now, read from the run after the refusal:
 *
 * ```
 * POST /runs/run-C2pF…/actions/apply: 409 Conflict: <the service's message>; run run-C2pF… is planning;
 * apply needs a run paused for confirmation (actions.is-confirmable); allowed now: cancel
 * ```
 *
 * The error also carries `runStatus` and `allowedActions`. Force-cancel before the cool-off names
 * the time it becomes available; force-execute names the run holding the workspace lock and whether
 * it can be discarded (403 refusals of force-execute are explained the same way, as a
 * `ForbiddenError`). Decide whether a run can be applied from `actions.isConfirmable`, never from a
 * list of statuses. Every action function returns the run as it is right after the action (the
 * service may take a moment to act on it).
 *
 * @example
 * ```ts
 * // Apply a run queued elsewhere once it is confirmable, during `pulumi up` only.
 * const planned = svc.runs.waitForRunOutput({ runId, until: "planned", timeoutSeconds: 900 });
 * export const applied = planned.apply((r) =>
 *   r.actions.isConfirmable ? svc.runs.applyRun({ runId: r.id, comment: "approved by pipeline" }) : r);
 * ```
 */
export const applyRun = forms(applyDef).promise;
/** Output form of {@link applyRun}: unknown during preview. */
export const applyRunOutput = forms(applyDef).output;

/**
 * Discards a run that is pending, paused for confirmation or awaiting a policy override.
 * ConflictError otherwise (explained as for {@link applyRun}). No request during preview.
 */
export const discardRun = forms(discardDef).promise;
/** Output form of {@link discardRun}: unknown during preview. */
export const discardRunOutput = forms(discardDef).output;

/**
 * Cancels a planning or applying run (it wraps up safely; not immediate) and sets its
 * `forceCancelAvailableAt`. ConflictError otherwise (explained as for {@link applyRun}). No request
 * during preview.
 */
export const cancelRun = forms(cancelDef).promise;
/** Output form of {@link cancelRun}: unknown during preview. */
export const cancelRunOutput = forms(cancelDef).output;

/**
 * Forcefully cancels a run after a non-forceful cancel, once its cool-off has passed
 * (`forceCancelAvailableAt`); needs workspace admin access. ConflictError (naming the time it becomes
 * available) otherwise. No request during preview.
 */
export const forceCancelRun = forms(forceCancelDef).promise;
/** Output form of {@link forceCancelRun}: unknown during preview. */
export const forceCancelRunOutput = forms(forceCancelDef).output;

/**
 * Executes a pending run now: the run holding the workspace lock (which must be discardable) and
 * every earlier incomplete run are canceled. ConflictError when the lock holder cannot be discarded,
 * ForbiddenError when the run is not pending or the workspace is not locked. No request during preview.
 */
export const forceExecuteRun = forms(forceExecuteDef).promise;
/** Output form of {@link forceExecuteRun}: unknown during preview. */
export const forceExecuteRunOutput = forms(forceExecuteDef).output;

// ---------------------------------------------------------------------------------------------
// waitForRun
// ---------------------------------------------------------------------------------------------

const waitForRunFieldsOwn = {
  /** Stop at any of these statuses. A terminal status always stops the wait. */
  statuses: field(() => z.array(z.enum(RUN_STATUSES, { error: "must be a run status" })), { optional: true }),
  /**
   * What to wait for when `statuses` is not given: `completed` (default: a final status, applied,
   * canceled or force_canceled) or `planned` (paused for confirmation or a policy override, past
   * planning, or ended).
   */
  until: field(() => z.enum(["planned", "completed"], { error: "must be planned or completed" }), { optional: true }),
  /** Give up after this long with a RunWaitTimeoutError naming the run; default 1800. */
  timeoutSeconds: field(() => z.number().positive("must be more than 0"), { optional: true }),
  /** First interval between polls; it grows by half up to 15 s while nothing changes. Default 1. */
  pollIntervalSeconds: field(() => z.number().positive("must be more than 0"), { optional: true }),
};

const waitForRunFields: typeof runRef & typeof waitForRunFieldsOwn = { ...runRef, ...waitForRunFieldsOwn };

/** Arguments of {@link waitForRun}. */
export type WaitForRunArgs = PlainArgsOf<typeof waitForRunFields>;

const waitDef: FunctionDefinition<WaitForRunArgs, RunDetails, "runs"> = {
  name: "waitForRun",
  fields: waitForRunFields,
  // Waiting during preview would make previews as slow as runs; the run id is usually unknown then anyway.
  sideEffects: true, service: "runs",
  async run(ctx, args) {
    const timeoutSeconds = args.timeoutSeconds ?? 1800;
    const targets = args.statuses;
    const goal = targets && targets.length > 0 ? `status ${targets.join(" or ")}` : args.until ?? "completed";
    const { run, timedOut } = await pollRun(ctx, args.runId, {
      goal,
      deadline: Date.now() + timeoutSeconds * 1000,
      intervalMs: (args.pollIntervalSeconds ?? 1) * 1000,
      done: (r) => (targets && targets.length > 0 ? targets.includes(r.status) : args.until === "planned" ? planFinished(r) : false),
    });
    if (timedOut) throw new RunWaitTimeoutError(args.runId, run.status, goal, timeoutSeconds);
    return run;
  },
};

/**
 * Polls a run (with backoff, progress in the Pulumi log) until one of `statuses`, or `until`, or a
 * terminal status, and returns it; fails with a RunWaitTimeoutError after `timeoutSeconds`. A run
 * that ends errored is returned, not thrown: look at `status`. No request during preview.
 */
export const waitForRun = forms(waitDef).promise;
/** Output form of {@link waitForRun}: unknown during preview. */
export const waitForRunOutput = forms(waitDef).output;
