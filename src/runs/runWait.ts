/**
 * Waiting for a run: polling until a goal, a terminal status or a deadline, and the errors a wait
 * ends with.
 */
import type { Context } from "../core/definition";
import { readRun, type RunDetails } from "./runDetails";
import { isTerminal } from "./runVocabulary";

export interface PollOptions {
  /** Done when this holds (a terminal status always ends the wait). */
  done(run: RunDetails): boolean;
  /** What is awaited, for messages: "completed", "planned", "status applied". */
  goal: string;
  /** Absolute time (ms since epoch) after which the wait gives up. */
  deadline: number;
  /** First interval between polls; grows by half each poll while nothing changes, back to this on a change. */
  intervalMs: number;
  maxIntervalMs?: number;
}

export interface PollResult {
  run: RunDetails;
  timedOut: boolean;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls a run until `done`, a terminal status or the deadline; reports each status change through ctx.log. */
export async function pollRun(ctx: Context, runId: string, o: PollOptions): Promise<PollResult> {
  const started = Date.now();
  const maxInterval = o.maxIntervalMs ?? 15_000;
  let interval = o.intervalMs;
  let last = "";
  for (;;) {
    const { run } = await readRun(ctx, runId);
    const confirmable = run.actions.isConfirmable ? " (paused for confirmation)" : "";
    if (run.status + confirmable !== last) {
      ctx.log(`run ${runId}: ${run.status}${confirmable} after ${((Date.now() - started) / 1000).toFixed(1)} s, waiting for ${o.goal}`);
      if (last !== "") interval = o.intervalMs;
      last = run.status + confirmable;
    }
    if (o.done(run) || isTerminal(run)) return { run, timedOut: false };
    const remaining = o.deadline - Date.now();
    if (remaining <= 0) return { run, timedOut: true };
    await sleep(Math.min(interval, remaining));
    interval = Math.min(Math.ceil(interval * 1.5), maxInterval);
  }
}

/** Thrown when a run does not reach what was awaited in time. */
export class RunWaitTimeoutError extends Error {
  /** Always `run_timeout`. */
  readonly code = "run_timeout";
  constructor(
    /** The run waited for. */
    readonly runId: string,
    /** Its status when the time ran out. */
    readonly status: string,
    /** What was awaited (`completed`, `planned`, or `status a or b`). */
    readonly goal: string,
    /** The limit that ran out, in seconds. */
    readonly timeoutSeconds: number,
    what = "",
  ) {
    super(`run ${runId} did not reach ${goal} within ${timeoutSeconds} s (it is ${status})${what}`);
    this.name = "RunWaitTimeoutError";
  }
}

/** Thrown when a run that was awaited ended in a status that is not success (errored, discarded, ...). */
export class RunFailedError extends Error {
  /** Always `run_failed`. */
  readonly code = "run_failed";
  constructor(
    /** The run waited for. */
    readonly runId: string,
    /** The status it ended in. */
    readonly status: string,
  ) {
    super(`run ${runId} ended ${status}`);
    this.name = "RunFailedError";
  }
}
