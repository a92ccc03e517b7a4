import type { RunPrincipal } from "../auth";
import { jsonReply, parseJson, type Incoming, type Reply } from "../transport/http";
import type { Route } from "../transport/router";
import type { Runtime } from "../clusterRuntime";
import { hasOwn, isRecord, now, randomId } from "../util";
import { count, timeoutOf, waitUntil } from "../control/waiting";
import { API_PREFIX, documentReply } from "./jsonapi";
import { emitAssessment } from "./notificationDelivery";
import { runResource } from "./run";
import { advanceTo, holdsLock, lockHolder, nextStep, pathAhead, step } from "./runStateMachine";
import { ADMIN_USER_ID, type AssessmentResult, type Run } from "./state";
import { HOLDABLE_STATUSES, POLICY_MODES, RUN_STATUSES, type RunStatus } from "./vocabulary";

/**
 * The run service's /_emulator endpoints (see the emulator README): driving runs (advance,
 * outcome, clock, settings; a run document in an answer shows the run as the initial admin user would
 * see it, control endpoints having no caller), assessments, and the deliveries log with `wait`.
 * Seeding and bulk runs are in controlSeed.ts.
 */

const ADMIN: RunPrincipal = { kind: "user", userId: ADMIN_USER_ID, role: "admin" };
function runDocument(rt: Runtime, run: Run): Reply {
  return documentReply(200, { data: runResource(rt.store.data.run, ADMIN, run, { taskStages: true, nowMs: rt.runService.nowMs() }) });
}

function waitMessage(rt: Runtime, run: Run): string {
  const step = nextStep(run, holdsLock(rt.store.data.run, run));
  if (step.kind === "final") return `run ${run.id} is ${run.status}, a final status`;
  if (step.kind !== "wait") return "";
  switch (step.reason) {
    case "lock":
      return `run ${run.id} is pending and waits for the workspace lock (held by ${lockHolder(rt.store.data.run, run.workspaceId)?.id ?? "nobody"})`;
    case "confirmation":
      return `run ${run.id} is ${run.status} and paused for confirmation: apply or discard it`;
    case "policy-override":
      return `run ${run.id} is in policy_override and needs an override (not emulated): discard it`;
    case "hold":
      return `run ${run.id} is held in ${run.status} (holdAt): release it with POST /_emulator/runs/${run.id}/outcome {"holdAt": null}${run.status === "planning" || run.status === "applying" ? ", or cancel it" : ""}`;
  }
}

function advance(rt: Runtime, run: Run, body: Record<string, unknown>): Reply {
  if (body.to === undefined) {
    const moved = step(rt, run);
    return moved.kind === "move" ? runDocument(rt, run) : fail(409, waitMessage(rt, run));
  }
  if (typeof body.to !== "string" || !(RUN_STATUSES as readonly string[]).includes(body.to)) return fail(400, `to must be a run status`);
  // Already there: nothing to walk, so asking twice is harmless.
  if (run.status === body.to) return runDocument(rt, run);
  if (!advanceTo(rt, run, body.to as RunStatus)) {
    const ahead = pathAhead(run, holdsLock(rt.store.data.run, run));
    const why = ahead.length === 0 ? `; ${waitMessage(rt, run)}` : `; statuses ahead: ${ahead.join(", ")}`;
    return fail(409, `status ${body.to} is not on the path of run ${run.id} from ${run.status}${why}`);
  }
  return runDocument(rt, run);
}

function outcome(rt: Runtime, run: Run, body: Record<string, unknown>): Reply {
  const { hasChanges, policy, error, costEstimation, holdAt } = body;
  if (hasChanges !== undefined && typeof hasChanges !== "boolean") return fail(400, "hasChanges must be a boolean");
  if (costEstimation !== undefined && typeof costEstimation !== "boolean") return fail(400, "costEstimation must be a boolean");
  if (policy !== undefined && !(POLICY_MODES as readonly unknown[]).includes(policy)) return fail(400, `policy must be one of ${POLICY_MODES.join(", ")}`);
  if (error !== undefined && error !== null && error !== "plan" && error !== "apply") return fail(400, 'error must be "plan", "apply" or null');
  if (holdAt !== undefined && holdAt !== null && !(HOLDABLE_STATUSES as readonly unknown[]).includes(holdAt)) return fail(400, `holdAt must be one of ${HOLDABLE_STATUSES.join(", ")}, or null`);
  const o = run.outcome;
  if (hasChanges !== undefined) o.hasChanges = hasChanges as boolean;
  if (costEstimation !== undefined) o.costEstimation = costEstimation as boolean;
  if (o.costEstimation) run.costEstimateId ??= `ce-${run.id.slice(4)}`;
  if (policy !== undefined) o.policy = policy as Run["outcome"]["policy"];
  if (error !== undefined) o.error = error as Run["outcome"]["error"];
  if (holdAt !== undefined) o.holdAt = holdAt as Run["outcome"]["holdAt"];
  return runDocument(rt, run);
}

function nonNegativeInt(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function settingsOf(rt: Runtime) {
  const { forceCancelCooloffMs, autoAdvanceMs, verifyDestinations } = rt.runService;
  return { forceCancelCooloffMs, autoAdvanceMs, advancedMs: rt.clock.advancedMs, verifyDestinations };
}

/**
 * POST /clock/advance {ms}: the cluster's clock jumps forward (cool-offs pass, leases, passwords and
 * tokens expire) without anyone waiting.
 */
function advanceClock(rt: Runtime, body: Record<string, unknown>): Reply {
  if (!nonNegativeInt(body.ms)) return fail(400, "ms must be a non-negative integer");
  rt.clock.advancedMs += body.ms;
  return jsonReply(200, settingsOf(rt));
}

function putClock(rt: Runtime, body: Record<string, unknown>): Reply {
  if (!nonNegativeInt(body.autoAdvanceMs)) return fail(400, "autoAdvanceMs must be a non-negative integer (0 turns the timer off)");
  rt.runService.setAutoAdvance(body.autoAdvanceMs);
  return jsonReply(200, settingsOf(rt));
}

function putSettings(rt: Runtime, body: Record<string, unknown>): Reply {
  if (body.forceCancelCooloffMs !== undefined) {
    if (!nonNegativeInt(body.forceCancelCooloffMs)) return fail(400, "forceCancelCooloffMs must be a non-negative integer");
    rt.runService.forceCancelCooloffMs = body.forceCancelCooloffMs;
  }
  if (body.verifyDestinations !== undefined) {
    if (typeof body.verifyDestinations !== "boolean") return fail(400, "verifyDestinations must be a boolean");
    rt.runService.verifyDestinations = body.verifyDestinations;
  }
  return jsonReply(200, settingsOf(rt));
}

/** Control endpoints answer errors as `{"error": message}`, like the rest of /_emulator. */
export const fail = (status: number, error: string): Reply => jsonReply(status, { error });

export type Body = { ok: true; value: Record<string, unknown> } | { ok: false; reply: Reply };

/** A JSON object body (empty means `{}`), or the 400 to answer. */
export function objectBody(req: Incoming): Body {
  const parsed = parseJson(req.body);
  if (!parsed.ok) return { ok: false, reply: fail(400, `invalid JSON: ${parsed.error}`) };
  const value = parsed.value ?? {};
  return isRecord(value) ? { ok: true, value } : { ok: false, reply: fail(400, "body must be a JSON object") };
}

/** A control handler of a JSON object body: anything else is answered 400 before it runs. */
export function withObject(handler: (rt: Runtime, body: Record<string, unknown>) => Reply): (rt: Runtime, req: Incoming) => Reply {
  return (rt, req) => {
    const parsed = objectBody(req);
    return parsed.ok ? handler(rt, parsed.value) : parsed.reply;
  };
}

/** A control handler of the run `:id` (404 when there is none) and a JSON object body. */
function withRun(handler: (rt: Runtime, run: Run, body: Record<string, unknown>) => Reply): (rt: Runtime, req: Incoming) => Reply {
  return (rt, req) => {
    const run = rt.store.data.run.runs[req.params.id];
    if (!run) return fail(404, `no run ${req.params.id}`);
    const parsed = objectBody(req);
    return parsed.ok ? handler(rt, run, parsed.value) : parsed.reply;
  };
}

/**
 * GET /_emulator/deliveries[?wait=N|settled=1][&timeoutMs=T]: the deliveries log; with `wait`,
 * answers once at least N entries exist, with `settled=1` once no notification is still on its way
 * (every one emitted so far is logged), or after T ms (default 5000, at most 60000), with
 * `timedOut` saying which. Notifications are sent after the API answers, so this is how tests wait
 * for them, and how they know none is still coming.
 */
async function listDeliveries(rt: Runtime, req: Incoming): Promise<Reply> {
  const wait = count(req.query.get("wait"), 0);
  const settled = req.query.get("settled");
  const timeoutMs = timeoutOf(req);
  if (wait === undefined) return fail(400, "wait must be a non-negative integer");
  if (settled !== null && settled !== "1") return fail(400, "settled must be 1");
  if (typeof timeoutMs !== "number") return timeoutMs;
  const reached = settled === "1" ? () => rt.runService.chains.size === 0 : () => rt.deliveries.all().length >= wait;
  const waited = wait > 0 || settled === "1";
  const ok = waited ? await waitUntil(rt, reached, timeoutMs) : true;
  return jsonReply(200, { deliveries: rt.deliveries.all(), ...(waited ? { timedOut: !ok } : {}) });
}

/**
 * POST /_emulator/assessments {workspaceId, trigger}: records a workspace assessment result and
 * sends payload-version-2 notifications. The seed sends drift and check events only when drift
 * detection is on, and failures only when health assessments are on; otherwise 409.
 */

const TRIGGERS = {
  "assessment:drifted": "driftDetection",
  "assessment:check_failure": "driftDetection",
  "assessment:failed": "healthAssessments",
} as const;
type AssessmentTrigger = keyof typeof TRIGGERS;

/**
 * The counts are illustrative: a drift of one resource, one failed check, or a failed run. A run
 * that succeeded passed one check and looked at three resources.
 */
const OUTCOMES: Record<AssessmentTrigger, { succeeded: boolean; drifted: number; failedChecks: number }> = {
  "assessment:drifted": { succeeded: true, drifted: 1, failedChecks: 0 },
  "assessment:check_failure": { succeeded: true, drifted: 0, failedChecks: 1 },
  "assessment:failed": { succeeded: false, drifted: 0, failedChecks: 0 },
};

function resultFor(trigger: AssessmentTrigger, workspaceId: string, baseUrl: string): AssessmentResult {
  const id = randomId("asmntres");
  const { succeeded, drifted, failedChecks } = OUTCOMES[trigger];
  return {
    id, workspaceId, url: `${baseUrl}${API_PREFIX}/assessment-results/${id}`, created_at: now(), checks_errored: 0, checks_unknown: 0,
    succeeded, all_checks_succeeded: succeeded && failedChecks === 0, checks_passed: succeeded ? 1 : 0, checks_failed: failedChecks,
    drifted: drifted > 0, resources_drifted: drifted, resources_undrifted: succeeded ? 3 - drifted : 0,
  };
}

function recordAssessment(rt: Runtime, body: Record<string, unknown>): Reply {
  const { workspaceId, trigger } = body;
  const state = rt.store.data.run;
  const ws = typeof workspaceId === "string" ? state.workspaces[workspaceId] : undefined;
  if (!ws) return fail(404, `no workspace ${String(workspaceId)}`);
  if (typeof trigger !== "string" || !hasOwn(TRIGGERS, trigger)) return fail(400, `trigger must be one of ${Object.keys(TRIGGERS).join(", ")}`);
  const setting = TRIGGERS[trigger as AssessmentTrigger];
  if (ws.settings?.[setting] !== true) return fail(409, `workspace ${ws.id} does not have ${setting} enabled, so ${trigger} is never sent`);
  const history = (state.assessmentResults[ws.id] ??= []);
  const prior = history.at(-1) ?? null;
  const result = resultFor(trigger as AssessmentTrigger, ws.id, rt.runService.baseUrl);
  history.push(result);
  const notified = emitAssessment(rt, ws, trigger, result, prior);
  return jsonReply(201, { result, prior, notified });
}

export const runControlRoutes: Route<Runtime>[] = [
  { method: "POST", path: "/runs/:id/advance", handler: withRun(advance) },
  { method: "POST", path: "/runs/:id/outcome", handler: withRun(outcome) },
  { method: "PUT", path: "/clock", handler: withObject(putClock) },
  { method: "GET", path: "/clock", handler: (rt) => jsonReply(200, settingsOf(rt)) },
  { method: "POST", path: "/clock/advance", handler: withObject(advanceClock) },
  { method: "PUT", path: "/settings", handler: withObject(putSettings) },
  { method: "GET", path: "/settings", handler: (rt) => jsonReply(200, settingsOf(rt)) },
  { method: "POST", path: "/assessments", handler: withObject(recordAssessment) },
  { method: "GET", path: "/deliveries", handler: listDeliveries },
];
