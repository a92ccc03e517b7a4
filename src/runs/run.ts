import type * as pulumi from "@pulumi/pulumi";
import { createHash } from "node:crypto";
import { z } from "../core/zod";
import { field, fieldSet, output, pick, type ArgsOf, type PickOf, type OutputsOf, type StateOf } from "../core/fields";
import type { Context, ResourceDefinition } from "../core/definition";
import { PartialFailure } from "../core/definition";
import { registration, SvcResource } from "../core/resource";
import { isSvcError } from "../http";
import { runAction, stopRun } from "./runActions";
import { refineCreateAttributes, runCreateFields, runCreateSet, type RunCreateAttributes } from "./runAttributes";
import { createRunOnce, recentRuns } from "./runCreate";
import { readRun, runDetailsFields, type RunDetails } from "./runDetails";
import { RUNS_ROUTES } from "./routes";
import { FAILED_RUN_STATUSES, isTerminal, planFinished, type RunStatus } from "./runVocabulary";
import { confirmGoneIn } from "./visibility";
import { RunFailedError, RunWaitTimeoutError, pollRun } from "./runWait";
import type { ConnectionArgs } from "../core/connection";

export const WAIT_FOR = ["none", "planned", "completed"] as const;
/** How long create waits: not at all, until the plan phase is over, or until the run ends. */
export type RunWaitFor = (typeof WAIT_FOR)[number];

const positive = () => z.number().positive("must be more than 0");

const runFieldsOwn = {
  /**
   * Arbitrary strings; any change queues a new run (the old one is discarded or canceled first if it
   * is still active). Use it to re-run on purpose, e.g. `{ release: version }`. Never sent.
   */
  triggers: field(() => z.record(z.string(), z.string({ error: "must be a string" })), { optional: true, immutable: true }),
  /**
   * How long create waits: `none` (default: queue and return), `planned` (until the run is paused for
   * confirmation or a policy override, went past planning, or ended) or `completed` (until a final
   * status, applied, canceled or force_canceled). Changing it alone changes nothing.
   */
  waitFor: field(() => z.enum(WAIT_FOR, { error: `must be one of ${WAIT_FOR.join(", ")}` }), { local: true, default: "none" }),
  /**
   * Apply the run as soon as the service says it can be confirmed (`actions.is-confirmable`), never
   * guessed from its status, then go on waiting as `waitFor` says. Implies waiting until then.
   * Default false; not allowed with `planOnly`. Changing it alone changes nothing.
   */
  applyWhenConfirmable: field(() => z.boolean(), { local: true, default: false }),
  /**
   * Overall limit for create's waiting, in seconds (default 1800). When it runs out, the run this
   * create started is discarded or canceled (whichever its actions allow) and the create fails with
   * an error naming the run; the run stays in state. Changing it alone changes nothing.
   */
  timeoutSeconds: field(positive, { local: true, default: 1800 }),
  /** First interval between status polls in seconds (default 1); it grows by half up to 15 s while nothing changes. */
  pollIntervalSeconds: field(positive, { local: true, optional: true }),
  /** The run's id (`run-...`), the same as `id`. */
  runId: output<string>(),
};

/** What a Run reports of its run, as a read reports it (when create returned, or at the last refresh). */
const RUN_OUTPUTS = ["status", "hasChanges", "statusTimestamps", "createdAt"] as const;
const runOutputFields: PickOf<typeof runDetailsFields, (typeof RUN_OUTPUTS)[number]> = pick(runDetailsFields, ...RUN_OUTPUTS);

export const runFields: typeof runCreateFields & typeof runFieldsOwn & typeof runOutputFields = { ...runCreateFields, ...runFieldsOwn, ...runOutputFields };

const runSet = fieldSet(runFields, {
  case: "kebab",
  refine(v, ctx) {
    refineCreateAttributes(v, ctx);
    if (v.applyWhenConfirmable === true && v.planOnly === true) {
      ctx.addIssue({ code: "custom", path: ["applyWhenConfirmable"], message: "cannot be true for a plan-only run: it can never be applied" });
    }
  },
});

/** Inputs and outputs of a Run as kept in state. */
export type RunResourceState = StateOf<typeof runFields>;

function createAttributes(inputs: RunResourceState): RunCreateAttributes {
  const out: Record<string, unknown> = {};
  for (const k of runCreateSet.inputs) if (inputs[k] !== undefined && inputs[k] !== null) out[k] = inputs[k];
  return out as RunCreateAttributes;
}

/** A value as JSON with its object keys sorted, so equal inputs give equal text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(",")}}`;
  return JSON.stringify(v);
}

/**
 * What a Run writes at the end of its run's message, `[pulumi-svc 3f9a1c0b7e21]`: a digest of the
 * resource's URN and of every input that queues a new run when it changes (its create attributes
 * and triggers). A run is history and cannot carry anything else, and only this tells a run that a
 * cancelled `up` of this very resource queued from any other run with the same message: the next
 * create refuses to queue it again, and pulumi-svc-recover records it (src/core/leftovers.ts).
 * Without a URN (a definition called outside a provider) there is no claim.
 */
function claimOf(ctx: Context, inputs: RunResourceState): string | undefined {
  if (!ctx.urn) return undefined;
  const digest = createHash("sha256").update(`${ctx.urn}\n${canonical({ ...createAttributes(inputs), triggers: inputs.triggers ?? {} })}`).digest("hex");
  return `[pulumi-svc ${digest.slice(0, 12)}]`;
}

/** The create attributes as sent: the message ends with the resource's claim. */
function sentAttributes(ctx: Context, inputs: RunResourceState): RunCreateAttributes {
  const claim = claimOf(ctx, inputs);
  const attrs = createAttributes(inputs);
  return claim ? { ...attrs, message: `${attrs.message ?? "Queued by pulumi-svc"} ${claim}` } : attrs;
}

/** The workspace's recent runs (its first page, newest first) whose message ends with this resource's claim. */
async function claimed(ctx: Context, inputs: RunResourceState): Promise<RunDetails[]> {
  const claim = claimOf(ctx, inputs);
  if (!claim) return [];
  return (await recentRuns(ctx.client("runs"), inputs.workspaceId)).filter((r) => r.message.endsWith(claim));
}

const claimedRuns = async (ctx: Context, inputs: RunResourceState) => (await claimed(ctx, inputs)).map((r) => r.id);

/**
 * The claimed runs a create refuses to queue again: those still active. A destroy stops the run of
 * the resource it deletes (or finds it ended), so an active one is what a cancelled `up` queued; an
 * ended one may be an earlier deploy's, and the create goes on (pulumi-svc-recover, whose record
 * tells them apart, takes an ended one too).
 */
const activeClaimedRuns = async (ctx: Context, inputs: RunResourceState) => (await claimed(ctx, inputs)).filter((r) => !isTerminal(r)).map((r) => r.id);

/**
 * The run's outputs, from the run as read. The create attributes stay as the program gave them:
 * the service fills in its defaults (message, refresh, ...), which would otherwise show as changes
 * and queue a new run.
 */
function withRun(inputs: RunResourceState, run: RunDetails): RunResourceState {
  return { ...inputs, runId: run.id, ...Object.fromEntries(RUN_OUTPUTS.map((k) => [k, run[k]])) };
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

/** How a run fails by itself; the other failed statuses are someone's stop (a discard or a cancel). */
const SELF_FAILED: readonly RunStatus[] = ["errored", "policy_soft_failed"];

/** Whether the resource promises more than queueing: a wait, an apply, or both. */
function promisesMore(inputs: RunResourceState): boolean {
  return (inputs.waitFor ?? "none") !== "none" || inputs.applyWhenConfirmable === true;
}

async function createAndWait(ctx: Context, inputs: RunResourceState): Promise<{ id: string; outs: RunResourceState }> {
  const started = Date.now();
  const run = await createRunOnce(ctx, sentAttributes(ctx, inputs));
  ctx.log(`run ${run.id} queued on ${run.workspaceId || inputs.workspaceId} (${run.status})`);
  if (!promisesMore(inputs)) return { id: run.id, outs: withRun(inputs, run) };
  return { id: run.id, outs: await keepPromise(ctx, inputs, run, started) };
}

/**
 * What the resource promises beyond queueing, from wherever the run is: waits for its plan, applies
 * it when confirmable, waits for it to complete. A create does this right after queueing; the next
 * `up` after an interrupted one does it again from the run's status (see update).
 */
async function keepPromise(ctx: Context, inputs: RunResourceState, from: RunDetails, started: number): Promise<RunResourceState> {
  let run = from;
  const id = run.id;
  const waitFor = inputs.waitFor ?? "none";
  const apply = inputs.applyWhenConfirmable === true;
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
          ctx.log(`run ${id}: confirmed; the apply is queued`);
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
  return withRun(inputs, run);
}

/**
 * An update changes only local settings, or follows an `up` whose create failed partially (the
 * engine updates such a resource again). Either way a resource created with a wait or an apply
 * still promises them: a run that was active when the state was written is followed until the
 * promise is kept (applied, completed) or broken (it ended errored, discarded, ...), with a new
 * `timeoutSeconds`. A run that had already ended then is only read: its end was reported by the
 * `up` that saw it; so is one discarded or canceled since (the last `up`'s timeout stops its run).
 */
async function update(ctx: Context, id: string, olds: RunResourceState, news: RunResourceState): Promise<RunResourceState> {
  const run = (await readRun(ctx, id)).run;
  const endedBefore = typeof olds.status === "string" && isTerminal({ status: olds.status as RunStatus });
  // A wait asked for only now is not resumed: the run was queued without that promise. A run
  // stopped since (discarded or canceled: by the timeout of the last up, or by someone) is only
  // read; one that failed by itself fails this up too, as the wait would have.
  if (!promisesMore(olds) || !promisesMore(news) || endedBefore) return withRun(news, run);
  if (isTerminal(run) && !SELF_FAILED.includes(run.status)) return withRun(news, run);
  ctx.log(`run ${id}: ${run.status}${run.actions.isConfirmable ? " (paused for confirmation)" : ""} when the last up stopped waiting; resuming`);
  return keepPromise(ctx, news, run, Date.now());
}

export const runDefinition: ResourceDefinition<RunResourceState, RunResourceState> = {
  kind: "runs:Run",
  discover: { none: "runs are actions, not configuration: a run that happened is history, and declaring one starts a new run" },
  ...runSet,
  // Delete stops the run (runs cannot be deleted); a create that promises it applies the run.
  routes: {
    create: RUNS_ROUTES.run.create, read: RUNS_ROUTES.run.read, list: RUNS_ROUTES.run.list,
    apply: RUNS_ROUTES.run.apply, discard: RUNS_ROUTES.run.discard, cancel: RUNS_ROUTES.run.cancel,
  },
  leftovers: { find: claimedRuns, blocking: activeClaimedRuns, otherwise: "if it is the run of an earlier deploy of this resource, change triggers to queue a new one" },
  confirmGone: confirmGoneIn(RUNS_ROUTES.run.list, "run"),
  create: (ctx, inputs) => createAndWait(ctx, inputs),
  async read(ctx, id, props) {
    const run = (await readRun(ctx, id)).run;
    // A read resource (`Run.get` by id alone) learns its workspace from the run.
    return withRun({ ...props, workspaceId: props.workspaceId ?? run.workspaceId }, run);
  },
  update,
  async delete(ctx, id) {
    const action = await stopRun(ctx, id, "pulumi-svc: the Run resource was deleted");
    if (action) ctx.log(`run ${id}: ${action === "discard" ? "discarded" : "canceled"} on delete`);
  },
};

/** Arguments of a Run: every create attribute is fixed once the run is queued, so changing one (or `triggers`) queues a new run. */
export type RunArgs = ArgsOf<typeof runFields> & ConnectionArgs<"runs">;

/**
 * A run (`run-...`, `/runs/{run_id}`) queued in a workspace of the run service. Creating it queues
 * the run (`POST /runs`) and optionally waits for it and applies it; every create attribute is
 * fixed once the run is queued, so changing one of them (or `triggers`) queues a **new** run (a
 * replacement). Use `triggers` to re-run on purpose.
 *
 * @remarks
 * Progress (each status change, the apply, a timeout) goes to the Pulumi log.
 *
 * - **Timeouts.** When `timeoutSeconds` runs out, the run this create started is discarded or
 *   canceled (whichever its `actions` allow) and the create fails with
 *   `run run-… did not reach completed within 600 s (it is planning); it was canceled`. The run
 *   exists, so the failure is a partial failure: the run stays in state.
 * - **Interrupted waits.** When the wait fails (the service unreachable, the `up` stopped), the run
 *   stays in state; the next `up` takes up the wait where the run is (planning, confirmable,
 *   applying), applies it when confirmable, and ends with it applied or completed, or fails saying
 *   how it ended. It never queues a second run for it.
 * - **Failed runs.** A run that was awaited and ended `errored`, `discarded`, `canceled`,
 *   `force_canceled` or `policy_soft_failed` fails the create the same way (`run run-… ended errored`),
 *   keeping the run in state. Change `triggers` to queue a new one.
 * - **Replacement** in the same workspace deletes first: an old run that is still active is
 *   discarded or canceled before the new one is queued, because a workspace executes one run at a
 *   time and the new run would otherwise wait behind the old one's lock.
 * - **Delete** (destroy, or the old side of a replacement) discards or cancels the run if it is still
 *   active, deciding from its `actions`; a run that already ended is left alone, and an unknown run
 *   counts as deleted. Runs themselves cannot be deleted from the service.
 * - **Refresh** reads the run's status; a run the service no longer knows is dropped.
 * - A create whose response is lost is not blindly repeated (docs/assumptions.md, items 72 and
 *   73): the workspace's recent runs are searched for the one it queued first.
 *
 * @example
 * ```ts
 * const deploy = new svc.runs.Run("deploy", {
 *   workspaceId: "ws-example00000001",
 *   message: "Deploy release 42",
 *   variables: [{ key: "environment", value: "\"staging\"" }],   // literals in the tool's syntax
 *   waitFor: "completed",
 *   applyWhenConfirmable: true,
 *   timeoutSeconds: 1800,
 *   triggers: { release: "42" },
 * });
 * export const runStatus = deploy.status;     // "applied"
 * ```
 */
// The waiting settings are local, yet the class has always offered them as outputs (they are in state).
export interface Run extends OutputsOf<typeof runFields, "waitFor" | "applyWhenConfirmable" | "timeoutSeconds" | "pollIntervalSeconds"> {}
export class Run extends SvcResource(runDefinition) { constructor(name: string, args: RunArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
