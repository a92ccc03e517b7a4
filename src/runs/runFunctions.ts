/**
 * Run functions: queue, read, list, act on and wait for runs. Each has a Promise form and an Output
 * form; the ones with side effects (and waiting) make no request during preview.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { segment } from "../core/segment";
import { invoke, invokeOutput, programContext, settle, validated, type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions } from "../core/fn";
import { runAction, type RunAction } from "./runActions";
import { createAttributesShape, createRunOnce, refineCreateAttributes, type RunCreateAttributes } from "./runCreate";
import { iterateRuns, readRun, type IncludedResource, type RunDetails, type RunListFilter } from "./runDetails";
import {
  RUN_INCLUDES, RUN_OPERATIONS, RUN_SOURCES, RUN_STATUSES, planFinished, type RunInclude, type RunStatus,
} from "./runVocabulary";
import { RunWaitTimeoutError, pollRun } from "./runWait";

type Inputs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

const nonEmpty = () => z.string().min(1, "must not be empty");
const memo = <T>(build: () => T) => { let v: T | undefined; return () => (v ??= build()); };

// ---------------------------------------------------------------------------------------------
// createRun
// ---------------------------------------------------------------------------------------------

/** Arguments of {@link createRun}: every create attribute of a run. */
export type CreateRunArgs = RunCreateAttributes;

const createRunDef: FunctionDefinition<CreateRunArgs, RunDetails> = {
  name: "createRun",
  schema: memo(() => z.object(createAttributesShape()).superRefine(refineCreateAttributes)),
  sideEffects: true, service: "runs",
  run: (ctx, args) => createRunOnce(ctx, args),
};

/**
 * Queues a run (`POST /runs`) and returns it. A request whose response was lost is not repeated
 * blindly (the run it created is found and returned). During preview it makes no request and
 * resolves to undefined.
 */
export function createRun(args: CreateRunArgs, opts?: SvcInvokeOptions<"runs">): Promise<RunDetails> {
  return invoke(createRunDef, args, opts);
}

/** Output form of {@link createRun}: unknown during preview. */
export function createRunOutput(args: Inputs<CreateRunArgs>, opts?: SvcInvokeOutputOptions<"runs">): pulumi.Output<RunDetails> {
  return invokeOutput(createRunDef, args, opts);
}

// ---------------------------------------------------------------------------------------------
// getRun
// ---------------------------------------------------------------------------------------------

export interface GetRunArgs {
  /** Run id (`run-...`). */
  runId: string;
  /** Related resources to return in `included`: plan, apply, created_by, cost_estimate, configuration_version, configuration_version.ingress_attributes. */
  include?: RunInclude[];
}

export type GetRunResult = RunDetails & {
  /** Related resources asked for with `include`, as the service sends them. */
  included?: IncludedResource[];
};

const getRunDef: FunctionDefinition<GetRunArgs, GetRunResult> = {
  name: "getRun",
  schema: memo(() => z.object({
    runId: segment(),
    include: z.array(z.enum(RUN_INCLUDES, { error: `must be one of ${RUN_INCLUDES.join(", ")}` })).optional(),
  })),
  sideEffects: false, service: "runs",
  async run(ctx, args) {
    const { run, included } = await readRun(ctx, args.runId, args.include);
    return args.include && args.include.length > 0 ? { ...run, included } : run;
  },
};

/** Reads a run (`GET /runs/{id}`), with related resources when `include` is given. Runs during preview too. */
export function getRun(args: GetRunArgs, opts?: SvcInvokeOptions<"runs">): Promise<GetRunResult> {
  return invoke(getRunDef, args, opts);
}

/** Output form of {@link getRun}. */
export function getRunOutput(args: Inputs<GetRunArgs>, opts?: SvcInvokeOutputOptions<"runs">): pulumi.Output<GetRunResult> {
  return invokeOutput(getRunDef, args, opts);
}

// ---------------------------------------------------------------------------------------------
// listRuns
// ---------------------------------------------------------------------------------------------

export interface ListRunsArgs extends RunListFilter {
  /** Workspace (`ws-...`) whose runs are listed. */
  workspaceId: string;
  /** Runs of any of these operations: plan_only, plan_and_apply, refresh_only, destroy, empty_apply. */
  operation?: RunListFilter["operation"];
  /** Runs in any of these statuses. */
  status?: RunStatus[];
  /** Runs from any of these sources: svc-ui, svc-api, svc-configuration-version. */
  source?: RunListFilter["source"];
  /** Runs whose version-control username matches. */
  searchUser?: string;
  /** Runs whose commit sha matches. */
  searchCommit?: string;
  /** Matches username, commit sha, run id and message; ignored by the service when searchUser or searchCommit is set. */
  searchBasic?: string;
  /** Runs per request, 1 to 100; default 100. */
  pageSize?: number;
  /** Stop after this many runs. */
  limit?: number;
}

const listRunsDef: FunctionDefinition<ListRunsArgs, RunDetails[]> = {
  name: "listRuns",
  schema: memo(() => z.object({
    workspaceId: segment(),
    operation: z.array(z.enum(RUN_OPERATIONS, { error: `must be one of ${RUN_OPERATIONS.join(", ")}` })).optional(),
    status: z.array(z.enum(RUN_STATUSES, { error: "must be a run status" })).optional(),
    source: z.array(z.enum(RUN_SOURCES, { error: `must be one of ${RUN_SOURCES.join(", ")}` })).optional(),
    searchUser: nonEmpty().optional(),
    searchCommit: nonEmpty().optional(),
    searchBasic: nonEmpty().optional(),
    pageSize: z.number().int("must be an integer").min(1, "must be at least 1").max(100, "must be at most 100").optional(),
    limit: z.number().int("must be an integer").min(1, "must be at least 1").optional(),
  })),
  sideEffects: false, service: "runs",
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
export function listRuns(args: ListRunsArgs, opts?: SvcInvokeOptions<"runs">): Promise<RunDetails[]> {
  return invoke(listRunsDef, args, opts);
}

/** Output form of {@link listRuns}. */
export function listRunsOutput(args: Inputs<ListRunsArgs>, opts?: SvcInvokeOutputOptions<"runs">): pulumi.Output<RunDetails[]> {
  return invokeOutput(listRunsDef, args, opts);
}

/**
 * The runs of a workspace one at a time, fetching a page when the previous one is used up: for
 * workspaces with many runs, memory stays at one page. `for await (const run of listRunsIterator(...))`.
 * Arguments are validated when iteration starts.
 */
export async function* listRunsIterator(args: ListRunsArgs, opts: SvcInvokeOptions<"runs"> = {}): AsyncGenerator<RunDetails, void, undefined> {
  const checked = validated(listRunsDef, args);
  let n = 0;
  for await (const run of iterateRuns(programContext(await settle(opts.connection), "runs"), checked)) {
    yield run;
    if (checked.limit !== undefined && ++n >= checked.limit) return;
  }
}

// ---------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------

export interface RunActionArgs {
  /** Run id (`run-...`). */
  runId: string;
  /** Comment recorded with the action. */
  comment?: string;
}

export interface ForceExecuteRunArgs {
  /** Id of the pending run (`run-...`) to execute now. */
  runId: string;
}

function actionDef<A extends { runId: string; comment?: string }>(name: string, action: RunAction, withComment: boolean): FunctionDefinition<A, RunDetails> {
  return {
    name,
    schema: memo(() => z.object(withComment ? { runId: segment(), comment: z.string().optional() } : { runId: segment() }).strict()),
    sideEffects: true, service: "runs",
    async run(ctx, args) {
      await runAction(ctx, action, args.runId, args.comment);
      return (await readRun(ctx, args.runId)).run;
    },
  };
}

const applyDef = actionDef<RunActionArgs>("applyRun", "apply", true);
const discardDef = actionDef<RunActionArgs>("discardRun", "discard", true);
const cancelDef = actionDef<RunActionArgs>("cancelRun", "cancel", true);
const forceCancelDef = actionDef<RunActionArgs>("forceCancelRun", "force-cancel", true);
const forceExecuteDef = actionDef<ForceExecuteRunArgs>("forceExecuteRun", "force-execute", false);

/**
 * Applies a run paused for confirmation and returns the run as it is right after (the apply is
 * queued and may not start at once). A run that is not confirmable fails with a ConflictError that
 * names its status and the actions allowed now. No request during preview.
 */
export function applyRun(args: RunActionArgs, opts?: SvcInvokeOptions<"runs">): Promise<RunDetails> {
  return invoke(applyDef, args, opts);
}
/** Output form of {@link applyRun}: unknown during preview. */
export function applyRunOutput(args: Inputs<RunActionArgs>, opts?: SvcInvokeOutputOptions<"runs">): pulumi.Output<RunDetails> {
  return invokeOutput(applyDef, args, opts);
}

/** Discards a run that is pending, paused for confirmation or awaiting a policy override. ConflictError otherwise. No request during preview. */
export function discardRun(args: RunActionArgs, opts?: SvcInvokeOptions<"runs">): Promise<RunDetails> {
  return invoke(discardDef, args, opts);
}
/** Output form of {@link discardRun}: unknown during preview. */
export function discardRunOutput(args: Inputs<RunActionArgs>, opts?: SvcInvokeOutputOptions<"runs">): pulumi.Output<RunDetails> {
  return invokeOutput(discardDef, args, opts);
}

/** Cancels a planning or applying run (it wraps up safely; not immediate). ConflictError otherwise. No request during preview. */
export function cancelRun(args: RunActionArgs, opts?: SvcInvokeOptions<"runs">): Promise<RunDetails> {
  return invoke(cancelDef, args, opts);
}
/** Output form of {@link cancelRun}: unknown during preview. */
export function cancelRunOutput(args: Inputs<RunActionArgs>, opts?: SvcInvokeOutputOptions<"runs">): pulumi.Output<RunDetails> {
  return invokeOutput(cancelDef, args, opts);
}

/**
 * Forcefully cancels a run after a non-forceful cancel, once its cool-off has passed
 * (`forceCancelAvailableAt`); needs workspace admin access. ConflictError (naming the time it becomes
 * available) otherwise. No request during preview.
 */
export function forceCancelRun(args: RunActionArgs, opts?: SvcInvokeOptions<"runs">): Promise<RunDetails> {
  return invoke(forceCancelDef, args, opts);
}
/** Output form of {@link forceCancelRun}: unknown during preview. */
export function forceCancelRunOutput(args: Inputs<RunActionArgs>, opts?: SvcInvokeOutputOptions<"runs">): pulumi.Output<RunDetails> {
  return invokeOutput(forceCancelDef, args, opts);
}

/**
 * Executes a pending run now: the run holding the workspace lock (which must be discardable) and
 * every earlier incomplete run are canceled. ConflictError when the lock holder cannot be discarded,
 * ForbiddenError when the run is not pending or the workspace is not locked. No request during preview.
 */
export function forceExecuteRun(args: ForceExecuteRunArgs, opts?: SvcInvokeOptions<"runs">): Promise<RunDetails> {
  return invoke(forceExecuteDef, args, opts);
}
/** Output form of {@link forceExecuteRun}: unknown during preview. */
export function forceExecuteRunOutput(args: Inputs<ForceExecuteRunArgs>, opts?: SvcInvokeOutputOptions<"runs">): pulumi.Output<RunDetails> {
  return invokeOutput(forceExecuteDef, args, opts);
}

// ---------------------------------------------------------------------------------------------
// waitForRun
// ---------------------------------------------------------------------------------------------

export interface WaitForRunArgs {
  /** Run id (`run-...`). */
  runId: string;
  /** Stop at any of these statuses. A terminal status always stops the wait. */
  statuses?: RunStatus[];
  /**
   * What to wait for when `statuses` is not given: `completed` (default: a final status, applied,
   * canceled or force_canceled) or `planned` (paused for confirmation or a policy override, past
   * planning, or ended).
   */
  until?: "planned" | "completed";
  /** Give up after this long with a RunWaitTimeoutError naming the run; default 1800. */
  timeoutSeconds?: number;
  /** First interval between polls; it grows by half up to 15 s while nothing changes. Default 1. */
  pollIntervalSeconds?: number;
}

const waitDef: FunctionDefinition<WaitForRunArgs, RunDetails> = {
  name: "waitForRun",
  schema: memo(() => z.object({
    runId: segment(),
    statuses: z.array(z.enum(RUN_STATUSES, { error: "must be a run status" })).optional(),
    until: z.enum(["planned", "completed"], { error: "must be planned or completed" }).optional(),
    timeoutSeconds: z.number().positive("must be more than 0").optional(),
    pollIntervalSeconds: z.number().positive("must be more than 0").optional(),
  })),
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
export function waitForRun(args: WaitForRunArgs, opts?: SvcInvokeOptions<"runs">): Promise<RunDetails> {
  return invoke(waitDef, args, opts);
}
/** Output form of {@link waitForRun}: unknown during preview. */
export function waitForRunOutput(args: Inputs<WaitForRunArgs>, opts?: SvcInvokeOutputOptions<"runs">): pulumi.Output<RunDetails> {
  return invokeOutput(waitDef, args, opts);
}
