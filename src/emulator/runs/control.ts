import type { RunPrincipal } from "../auth";
import { jsonReply, type Incoming, type Reply } from "../http";
import type { Route } from "../router";
import type { Runtime } from "../runtime";
import { ADMIN_USER_ID, POLICY_MODES, RUN_STATUSES, type Run, type RunStatus } from "./state";
import { fail, objectBody } from "./control-body";
import { documentReply } from "./jsonapi";
import { holdsLock, lockHolder } from "./run-lock";
import { runResource } from "./run-document";
import { nextStep, pathAhead } from "./runPath";
import { advanceTo, step } from "./run-progress";

/**
 * /_emulator endpoints that drive runs: advance, outcome, clock and settings. Answers with a
 * run document show it as the seeded admin would see it (control endpoints have no caller).
 */

const ADMIN: RunPrincipal = { kind: "user", userId: ADMIN_USER_ID, role: "admin" };
function runDocument(rt: Runtime, run: Run): Reply {
  return documentReply(200, { data: runResource(rt.store.data.run, ADMIN, run, { taskStages: true }) });
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
  }
}

function advance(rt: Runtime, req: Incoming): Reply {
  const run = rt.store.data.run.runs[req.params.id];
  if (!run) return fail(404, `no run ${req.params.id}`);
  const parsed = objectBody(req);
  if (!parsed.ok) return parsed.reply;
  const body = parsed.value;
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

function outcome(rt: Runtime, req: Incoming): Reply {
  const run = rt.store.data.run.runs[req.params.id];
  if (!run) return fail(404, `no run ${req.params.id}`);
  const parsed = objectBody(req);
  if (!parsed.ok) return parsed.reply;
  const body = parsed.value;
  const { hasChanges, policy, error, costEstimation } = body;
  if (hasChanges !== undefined && typeof hasChanges !== "boolean") return fail(400, "hasChanges must be a boolean");
  if (costEstimation !== undefined && typeof costEstimation !== "boolean") return fail(400, "costEstimation must be a boolean");
  if (policy !== undefined && !(POLICY_MODES as readonly unknown[]).includes(policy)) return fail(400, `policy must be one of ${POLICY_MODES.join(", ")}`);
  if (error !== undefined && error !== null && error !== "plan" && error !== "apply") return fail(400, 'error must be "plan", "apply" or null');
  const o = run.outcome;
  if (hasChanges !== undefined) o.hasChanges = hasChanges as boolean;
  if (costEstimation !== undefined) o.costEstimation = costEstimation as boolean;
  if (o.costEstimation) run.costEstimateId ??= `ce-${run.id.slice(4)}`;
  if (policy !== undefined) o.policy = policy as Run["outcome"]["policy"];
  if (error !== undefined) o.error = error as Run["outcome"]["error"];
  return runDocument(rt, run);
}

function nonNegativeInt(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function settingsOf(rt: Runtime) {
  return { forceCancelCooloffMs: rt.runService.forceCancelCooloffMs, autoAdvanceMs: rt.runService.autoAdvanceMs };
}

function putClock(rt: Runtime, req: Incoming): Reply {
  const parsed = objectBody(req);
  if (!parsed.ok) return parsed.reply;
  const body = parsed.value;
  if (!nonNegativeInt(body.autoAdvanceMs)) return fail(400, "autoAdvanceMs must be a non-negative integer (0 turns the timer off)");
  rt.runService.setAutoAdvance(body.autoAdvanceMs);
  return jsonReply(200, settingsOf(rt));
}

function putSettings(rt: Runtime, req: Incoming): Reply {
  const parsed = objectBody(req);
  if (!parsed.ok) return parsed.reply;
  const body = parsed.value;
  if (body.forceCancelCooloffMs !== undefined) {
    if (!nonNegativeInt(body.forceCancelCooloffMs)) return fail(400, "forceCancelCooloffMs must be a non-negative integer");
    rt.runService.forceCancelCooloffMs = body.forceCancelCooloffMs;
  }
  return jsonReply(200, settingsOf(rt));
}

export const runDriveRoutes: Route<Runtime>[] = [
  { method: "POST", path: "/runs/:id/advance", handler: advance },
  { method: "POST", path: "/runs/:id/outcome", handler: outcome },
  { method: "PUT", path: "/clock", handler: putClock },
  { method: "GET", path: "/clock", handler: (rt) => jsonReply(200, settingsOf(rt)) },
  { method: "PUT", path: "/settings", handler: putSettings },
  { method: "GET", path: "/settings", handler: (rt) => jsonReply(200, settingsOf(rt)) },
];
