import type { Runtime } from "../runtime";
import type { AssessmentResult, NotificationConfiguration, Run, Workspace } from "./state";
import { deliver } from "./delivery";
import { assessmentPayload, assessmentSummary, chatA, chatB, email, runPayload, runSummary, type Summary } from "./notificationPayload";

/**
 * Fans an event out to every enabled configuration of the workspace whose triggers include it.
 * Bodies are built now, from the run as it is at the event, and sent later (see delivery.ts).
 */

function subscribers(rt: Runtime, workspaceId: string, trigger: string): NotificationConfiguration[] {
  return Object.values(rt.store.data.run.notificationConfigurations).filter(
    (nc) => nc.workspaceId === workspaceId && nc.enabled && nc.triggers.includes(trigger),
  );
}

function recipients(rt: Runtime, nc: NotificationConfiguration): string[] {
  const users = rt.store.data.run.users;
  return nc.userIds.map((id) => users[id]?.email).filter((e): e is string => typeof e === "string");
}

/** The body for a non-generic destination. */
function formatted(nc: NotificationConfiguration, summary: Summary): object {
  if (nc.destinationType === "chat-a") return chatA(summary);
  if (nc.destinationType === "chat-b") return chatB(summary);
  return email(summary);
}

export function emitRunEvent(rt: Runtime, run: Run, trigger: string): void {
  const ws = rt.store.data.run.workspaces[run.workspaceId];
  if (!ws) return;
  const baseUrl = rt.runService.baseUrl;
  for (const nc of subscribers(rt, run.workspaceId, trigger)) {
    const body = nc.destinationType === "generic" ? runPayload(baseUrl, nc, ws, run, trigger) : formatted(nc, runSummary(baseUrl, ws, run, trigger));
    deliver(rt, { nc, trigger, payloadVersion: 1, body: JSON.stringify(body), runId: run.id, recipients: recipients(rt, nc) });
  }
}

export function emitAssessment(rt: Runtime, ws: Workspace, trigger: string, result: AssessmentResult, prior: AssessmentResult | null): number {
  const targets = subscribers(rt, ws.id, trigger);
  for (const nc of targets) {
    const body =
      nc.destinationType === "generic"
        ? assessmentPayload(rt.runService.baseUrl, nc, ws, trigger, result, prior)
        : formatted(nc, assessmentSummary(ws, trigger, result));
    deliver(rt, { nc, trigger, payloadVersion: 2, body: JSON.stringify(body), recipients: recipients(rt, nc) });
  }
  return targets.length;
}
