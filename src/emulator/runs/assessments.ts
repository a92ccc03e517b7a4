import { jsonReply, type Incoming, type Reply } from "../http";
import type { Runtime } from "../runtime";
import { hasOwn, now, randomId } from "../util";
import { API_PREFIX } from "./jsonapi";
import type { AssessmentResult } from "./state";
import { emitAssessment } from "./notify";
import { fail, objectBody } from "./control-body";

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

/** The counts are illustrative: a drift of one resource, one failed check, or a failed run. */
function resultFor(trigger: AssessmentTrigger, workspaceId: string, baseUrl: string): AssessmentResult {
  const id = randomId("asmntres");
  const base = { id, workspaceId, url: `${baseUrl}${API_PREFIX}/assessment-results/${id}`, created_at: now(), checks_errored: 0, checks_unknown: 0 };
  switch (trigger) {
    case "assessment:drifted":
      return { ...base, succeeded: true, all_checks_succeeded: true, checks_passed: 1, checks_failed: 0, drifted: true, resources_drifted: 1, resources_undrifted: 2 };
    case "assessment:check_failure":
      return { ...base, succeeded: true, all_checks_succeeded: false, checks_passed: 1, checks_failed: 1, drifted: false, resources_drifted: 0, resources_undrifted: 3 };
    case "assessment:failed":
      return { ...base, succeeded: false, all_checks_succeeded: false, checks_passed: 0, checks_failed: 0, drifted: false, resources_drifted: 0, resources_undrifted: 0 };
  }
}

export function recordAssessment(rt: Runtime, req: Incoming): Reply {
  const parsed = objectBody(req);
  if (!parsed.ok) return parsed.reply;
  const { workspaceId, trigger } = parsed.value;
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
