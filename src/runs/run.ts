import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { CROSS_FIELD, crossField } from "../core/crossField";
import type { Context, ResourceDefinition } from "../core/definition";
import { PartialFailure } from "../core/definition";
import { SvcResource } from "../core/resource";
import { isSvcError } from "../http";
import { runAction, stopRun } from "./runActions";
import { CREATE_KEYS, createAttributesShape, createRunOnce, refineCreateAttributes, type RunCreateAttributes } from "./runCreate";
import { readRun, type RunDetails, type RunVariable } from "./runDetails";
import { FAILED_RUN_STATUSES, RUN_ROUTES, planFinished, type RunStatus } from "./runVocabulary";
import { confirmGoneIn } from "./visibility";
import { RunFailedError, RunWaitTimeoutError, pollRun } from "./runWait";
import type { ConnectionArgs } from "../core/connection";

export const WAIT_FOR = ["none", "planned", "completed"] as const;
/** How long create waits: not at all, until the plan phase is over, or until the run ends. */
export type RunWaitFor = (typeof WAIT_FOR)[number];

/** Inputs and outputs of a Run as kept in state. */
export interface RunResourceState extends RunCreateAttributes {
  triggers?: Record<string, string>;
  waitFor?: RunWaitFor;
  applyWhenConfirmable?: boolean;
  timeoutSeconds?: number;
  pollIntervalSeconds?: number;
  runId?: string;
  status?: RunStatus;
  hasChanges?: boolean;
  statusTimestamps?: Record<string, string>;
  createdAt?: string;
  [key: string]: unknown;
}

const LOCAL = ["waitFor", "applyWhenConfirmable", "timeoutSeconds", "pollIntervalSeconds"] as const;

let schema: z.ZodType | undefined;
function buildSchema(): z.ZodType {
  return z.object({
    ...createAttributesShape(),
    triggers: z.record(z.string(), z.string({ error: "must be a string" })).optional(),
    waitFor: z.enum(WAIT_FOR, { error: `must be one of ${WAIT_FOR.join(", ")}` }),
    applyWhenConfirmable: z.boolean(),
    timeoutSeconds: z.number().positive("must be more than 0"),
    pollIntervalSeconds: z.number().positive("must be more than 0").optional(),
  }).superRefine(crossField((v, ctx) => {
    refineCreateAttributes(v as Partial<RunCreateAttributes>, ctx);
    if (v.applyWhenConfirmable === true && (v.planOnly as unknown) === true) {
      ctx.addIssue({ code: "custom", path: ["applyWhenConfirmable"], message: "cannot be true for a plan-only run: it can never be applied" });
    }
  }), CROSS_FIELD);
}

function createAttributes(inputs: RunResourceState): RunCreateAttributes {
  const out: Record<string, unknown> = {};
  for (const k of CREATE_KEYS) if (inputs[k] !== undefined && inputs[k] !== null) out[k] = inputs[k];
  return out as unknown as RunCreateAttributes;
}

function withRun(inputs: RunResourceState, run: RunDetails): RunResourceState {
  return {
    ...inputs,
    runId: run.id,
    status: run.status,
    hasChanges: run.hasChanges,
    statusTimestamps: run.statusTimestamps,
    createdAt: run.createdAt,
  };
}

/** A failure after the run was queued: the run exists, so the engine keeps it in state. */
function keep(id: string, props: RunResourceState, cause: Error): PartialFailure {
  const e = new PartialFailure(id, props, cause);
  e.message = `${cause.message} (run ${id} is kept in state; change triggers to queue a new run)`;
  return e;
}

async function latest(ctx: Context, id: string, fallback: RunDetails): Promise<RunDetails> {
  try {
    return (await readRun(ctx, id)).run;
  } catch {
    return fallback;
  }
}

/** The wait ran out: stop what this create started (discard or cancel, from its actions) and say so. */
async function giveUp(ctx: Context, inputs: RunResourceState, run: RunDetails, goal: string, timeoutSeconds: number): Promise<PartialFailure> {
  let what: string;
  try {
    const action = await stopRun(ctx, run.id, `pulumi-svc: timed out after ${timeoutSeconds} s waiting for ${goal}`);
    what = action === "discard" ? "; it was discarded" : action === "cancel" ? "; it was canceled" : "; it could not be discarded or canceled";
  } catch (e) {
    what = `; stopping it failed: ${(e as Error).message}`;
  }
  ctx.log(`run ${run.id}: timed out waiting for ${goal}${what}`);
  const now = await latest(ctx, run.id, run);
  return keep(run.id, withRun(inputs, now), new RunWaitTimeoutError(run.id, run.status, goal, timeoutSeconds, what));
}

async function createAndWait(ctx: Context, inputs: RunResourceState): Promise<{ id: string; outs: RunResourceState }> {
  const started = Date.now();
  let run = await createRunOnce(ctx, createAttributes(inputs));
  const id = run.id;
  ctx.log(`run ${id} queued on ${run.workspaceId || inputs.workspaceId} (${run.status})`);
  const waitFor = inputs.waitFor ?? "none";
  const apply = inputs.applyWhenConfirmable === true;
  if (waitFor === "none" && !apply) return { id, outs: withRun(inputs, run) };

  const timeoutSeconds = inputs.timeoutSeconds ?? 1800;
  const poll = { deadline: started + timeoutSeconds * 1000, intervalMs: (inputs.pollIntervalSeconds ?? 1) * 1000 };
  try {
    if (apply || waitFor === "planned") {
      const goal = apply ? "confirmation" : "planned";
      const r = await pollRun(ctx, id, { ...poll, goal, done: planFinished });
      run = r.run;
      if (r.timedOut) throw await giveUp(ctx, inputs, run, goal, timeoutSeconds);
      if (apply && run.actions.isConfirmable) {
        try {
          await runAction(ctx, "apply", id, "applied by pulumi-svc (applyWhenConfirmable)");
          ctx.log(`run ${id}: applied`);
        } catch (e) {
          // Someone acted first (applied or discarded it): carry on from what the run is now.
          if (!isSvcError(e, "conflict")) throw e;
          ctx.log(`run ${id}: apply refused (${(e as Error).message}); continuing`);
        }
        run = await latest(ctx, id, run);
      }
    }
    if (waitFor === "completed") {
      const r = await pollRun(ctx, id, { ...poll, goal: "completed", done: () => false });
      run = r.run;
      if (r.timedOut) throw await giveUp(ctx, inputs, run, "completed", timeoutSeconds);
    }
  } catch (e) {
    if (e instanceof PartialFailure) throw e;
    throw keep(id, withRun(inputs, run), e as Error);
  }
  if (FAILED_RUN_STATUSES.includes(run.status)) throw keep(id, withRun(inputs, run), new RunFailedError(id, run.status));
  return { id, outs: withRun(inputs, run) };
}

export const runDefinition: ResourceDefinition<RunResourceState, RunResourceState> = {
  kind: "runs:Run",
  schema: () => (schema ??= buildSchema()),
  defaults: { waitFor: "none", applyWhenConfirmable: false, timeoutSeconds: 1800 },
  sets: ["targetAddrs", "replaceAddrs", "variables"],
  // Every create attribute is fixed once the run is queued: any change queues a new run.
  immutable: [...CREATE_KEYS, "triggers"],
  // A workspace runs one run at a time: a replacement in the same workspace stops the old run first,
  // or a new run would wait behind the old one's lock.
  identity: ["workspaceId"],
  local: [...LOCAL],
  outputs: ["runId", "status", "hasChanges", "statusTimestamps", "createdAt"],
  confirmGone: confirmGoneIn(RUN_ROUTES.list, "run"),
  create: (ctx, inputs) => createAndWait(ctx, inputs),
  async read(ctx, id, props) {
    return withRun(props, (await readRun(ctx, id)).run);
  },
  // Only the local settings can differ (or an earlier create failed partially): refresh the status.
  async update(ctx, id, _olds, news) {
    return withRun(news, (await readRun(ctx, id)).run);
  },
  async delete(ctx, id) {
    const action = await stopRun(ctx, id, "pulumi-svc: the Run resource was deleted");
    if (action) ctx.log(`run ${id}: ${action === "discard" ? "discarded" : "canceled"} on delete`);
  },
};

export interface RunArgs extends ConnectionArgs<"runs"> {
  /** Workspace (`ws-...`) where the run executes. Changing it queues a new run. */
  workspaceId: pulumi.Input<string>;
  /**
   * Configuration version (`cv-...`) to plan; default the workspace's most recently used one. It may
   * belong to another workspace (promotion of known good code). Changing it queues a new run.
   */
  configurationVersionId?: pulumi.Input<string>;
  /** Why the run was queued; default the service's text for runs queued through the API. Changing it queues a new run. */
  message?: pulumi.Input<string>;
  /** Destroy every object regardless of configuration. Cannot be combined with `refreshOnly`. Changing it queues a new run. */
  isDestroy?: pulumi.Input<boolean>;
  /** Only refresh state. Cannot be combined with `isDestroy`. Changing it queues a new run. */
  refreshOnly?: pulumi.Input<boolean>;
  /** Refresh state before planning; the service's default is true. Changing it queues a new run. */
  refresh?: pulumi.Input<boolean>;
  /** Speculative run that cannot be applied; default from the configuration version. Changing it queues a new run. */
  planOnly?: pulumi.Input<boolean>;
  /** Apply without confirmation; default the workspace's auto-apply setting. Changing it queues a new run. */
  autoApply?: pulumi.Input<boolean>;
  /** Let the run apply although its plan has no changes. Changing it queues a new run. */
  allowEmptyApply?: pulumi.Input<boolean>;
  /** Allow generating resource configuration for import blocks; default false. Changing it queues a new run. */
  allowConfigGeneration?: pulumi.Input<boolean>;
  /** Resource addresses to target (a set). Changing it queues a new run. */
  targetAddrs?: pulumi.Input<pulumi.Input<string>[]>;
  /** Resource addresses to force replacement of (a set). Changing it queues a new run. */
  replaceAddrs?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Run-specific variables; they override workspace variables (and variable sets) of the same key.
   * Each value is a literal in the tool's own syntax: a string carries its quotes (`"\"eu-west-1\""`).
   * Keys must be unique. Changing them queues a new run.
   */
  variables?: pulumi.Input<pulumi.Input<RunVariable>[]>;
  /** Tool version for this run; only valid with `planOnly: true`. Changing it queues a new run. */
  toolVersion?: pulumi.Input<string>;
  /**
   * Arbitrary strings; any change queues a new run (the old one is discarded or canceled first if it
   * is still active). Use it to re-run on purpose, e.g. `{ release: version }`.
   */
  triggers?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * How long create waits: `none` (default: queue and return), `planned` (until the run is paused for
   * confirmation or a policy override, went past planning, or ended) or `completed` (until a final
   * status, applied, canceled or force_canceled). Changing it alone changes nothing.
   */
  waitFor?: pulumi.Input<RunWaitFor>;
  /**
   * Apply the run as soon as the service says it can be confirmed (`actions.is-confirmable`), never
   * guessed from its status. Implies waiting until then. Default false. Changing it alone changes nothing.
   */
  applyWhenConfirmable?: pulumi.Input<boolean>;
  /**
   * Overall limit for create's waiting, in seconds (default 1800). When it runs out, the run this
   * create started is discarded or canceled (whichever its actions allow) and the create fails with
   * an error naming the run; the run stays in state. Changing it alone changes nothing.
   */
  timeoutSeconds?: pulumi.Input<number>;
  /** First interval between status polls in seconds (default 1); it grows by half up to 15 s while nothing changes. */
  pollIntervalSeconds?: pulumi.Input<number>;
}

/**
 * A run (`run-...`) queued in a workspace of the run service. Creating it queues the run (and
 * optionally waits for it and applies it); every create attribute is fixed, so changing one (or
 * `triggers`) queues a new run. Deleting it discards or cancels the run if it is still active.
 *
 * @example
 * ```ts
 * const deploy = new svc.runs.Run("deploy", {
 *   workspaceId: "ws-example00000001", message: "Deploy from Pulumi",
 *   waitFor: "completed", applyWhenConfirmable: true, triggers: { release: "1" },
 * });
 * export const status = deploy.status;
 * ```
 */
export class Run extends SvcResource {
  /** Workspace (`ws-...`) where the run executes. Changing it queues a new run. */
  declare readonly workspaceId: pulumi.Output<string>;
  /**
   * Configuration version (`cv-...`) to plan; default the workspace's most recently used one. It may
   * belong to another workspace (promotion of known good code). Changing it queues a new run.
   */
  declare readonly configurationVersionId: pulumi.Output<string | undefined>;
  /** Why the run was queued; default the service's text for runs queued through the API. Changing it queues a new run. */
  declare readonly message: pulumi.Output<string | undefined>;
  /** Destroy every object regardless of configuration. Cannot be combined with `refreshOnly`. Changing it queues a new run. */
  declare readonly isDestroy: pulumi.Output<boolean | undefined>;
  /** Only refresh state. Cannot be combined with `isDestroy`. Changing it queues a new run. */
  declare readonly refreshOnly: pulumi.Output<boolean | undefined>;
  /** Refresh state before planning; the service's default is true. Changing it queues a new run. */
  declare readonly refresh: pulumi.Output<boolean | undefined>;
  /** Speculative run that cannot be applied; default from the configuration version. Changing it queues a new run. */
  declare readonly planOnly: pulumi.Output<boolean | undefined>;
  /** Apply without confirmation; default the workspace's auto-apply setting. Changing it queues a new run. */
  declare readonly autoApply: pulumi.Output<boolean | undefined>;
  /** Let the run apply although its plan has no changes. Changing it queues a new run. */
  declare readonly allowEmptyApply: pulumi.Output<boolean | undefined>;
  /** Allow generating resource configuration for import blocks; default false. Changing it queues a new run. */
  declare readonly allowConfigGeneration: pulumi.Output<boolean | undefined>;
  /** Resource addresses to target (a set). Changing it queues a new run. */
  declare readonly targetAddrs: pulumi.Output<string[] | undefined>;
  /** Resource addresses to force replacement of (a set). Changing it queues a new run. */
  declare readonly replaceAddrs: pulumi.Output<string[] | undefined>;
  /**
   * Run-specific variables; they override workspace variables (and variable sets) of the same key.
   * Each value is a literal in the tool's own syntax: a string carries its quotes (`"\"eu-west-1\""`).
   * Keys must be unique. Changing them queues a new run.
   */
  declare readonly variables: pulumi.Output<RunVariable[] | undefined>;
  /** Tool version for this run; only valid with `planOnly: true`. Changing it queues a new run. */
  declare readonly toolVersion: pulumi.Output<string | undefined>;
  /**
   * Arbitrary strings; any change queues a new run (the old one is discarded or canceled first if it
   * is still active). Use it to re-run on purpose, e.g. `{ release: version }`.
   */
  declare readonly triggers: pulumi.Output<Record<string, string> | undefined>;
  /**
   * How long create waits: `none` (default: queue and return), `planned` (until the run is paused for
   * confirmation or a policy override, went past planning, or ended) or `completed` (until a final
   * status, applied, canceled or force_canceled). Changing it alone changes nothing.
   */
  declare readonly waitFor: pulumi.Output<RunWaitFor>;
  /**
   * Apply the run as soon as the service says it can be confirmed (`actions.is-confirmable`), never
   * guessed from its status. Implies waiting until then. Default false. Changing it alone changes nothing.
   */
  declare readonly applyWhenConfirmable: pulumi.Output<boolean>;
  /**
   * Overall limit for create's waiting, in seconds (default 1800). When it runs out, the run this
   * create started is discarded or canceled (whichever its actions allow) and the create fails with
   * an error naming the run; the run stays in state. Changing it alone changes nothing.
   */
  declare readonly timeoutSeconds: pulumi.Output<number>;
  /** First interval between status polls in seconds (default 1); it grows by half up to 15 s while nothing changes. */
  declare readonly pollIntervalSeconds: pulumi.Output<number | undefined>;
  /** The run's id (`run-...`), the same as `id`. */
  declare readonly runId: pulumi.Output<string>;
  /** The run's status when create returned (or at the last refresh). */
  declare readonly status: pulumi.Output<RunStatus>;
  /** Whether the plan has changes. */
  declare readonly hasChanges: pulumi.Output<boolean>;
  /** Timestamps per status, camelCase (`planQueueableAt`, `appliedAt`, ...). */
  declare readonly statusTimestamps: pulumi.Output<Record<string, string>>;
  /** When the service queued the run (ISO 8601, `created-at`). */
  declare readonly createdAt: pulumi.Output<string>;

  constructor(name: string, args: RunArgs, opts?: pulumi.CustomResourceOptions) {
    super(runDefinition, name, args, opts);
  }
}
