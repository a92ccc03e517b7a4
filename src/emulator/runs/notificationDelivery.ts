import { createHmac } from "node:crypto";
import type { DeliveryEntry } from "../control/logs";
import type { Runtime } from "../clusterRuntime";
import { postJson } from "../transport/outbound";
import { now } from "../util";
import { assessmentPayload, assessmentSummary, chatA, chatB, email, runPayload, runSummary, type Summary } from "./notificationPayload";
import type { AssessmentResult, DeliveryResponse, NotificationConfiguration, Run, Workspace } from "./state";

/**
 * Notifications on their way out: which configurations an event goes to (emitRunEvent,
 * emitAssessment), sending them after the API has answered, one at a time per configuration
 * (deliver) and signing generic ones. The POST itself is transport/outbound.ts's.
 */

export const SIGNATURE_HEADER = "X-Svc-Notification-Signature";

/** The signature of a generic notification: HMAC-SHA512 of the body with the configuration's token, hex. */
export function sign(token: string, body: string): string {
  return createHmac("sha512", token).update(body, "utf8").digest("hex");
}

/**
 * Fans an event out to every enabled configuration of the workspace whose triggers include it.
 * Bodies are built now, from the run as it is at the event, and sent later (see deliver below).
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

/** A run or assessment notification entry of GET /_emulator/deliveries. */
export type NotificationDelivery = DeliveryEntry & {
  /** Event order across all notifications (deliveries may complete out of order across configurations). */
  sequence: number;
  /** 1 for run events, 2 for assessment events, whatever the destination type. */
  payloadVersion: 1 | 2;
  runId?: string;
};

interface Outgoing {
  nc: NotificationConfiguration;
  trigger: string;
  payloadVersion: 1 | 2;
  body: string;
  runId?: string;
  recipients?: string[];
}

const STORED_BODY_LIMIT = 4096;

/**
 * Queues one notification without waiting for it: the API answers first, the POST follows.
 * Deliveries of one configuration go one after another so its receiver sees events in order.
 * Email is only recorded. The latest response is stored on the configuration.
 */
function deliver(rt: Runtime, out: Outgoing): void {
  const service = rt.runService;
  const sequence = ++service.deliverySequence;
  const base = { configurationId: out.nc.id, destinationType: out.nc.destinationType, trigger: out.trigger, body: out.body, sequence, payloadVersion: out.payloadVersion, ...(out.runId ? { runId: out.runId } : {}) };
  if (out.nc.destinationType === "email" || out.nc.url === null) {
    const entry: NotificationDelivery = { ...base, url: null, headers: {}, response: null, sentAt: now(), recipients: out.recipients ?? [] };
    rt.deliveries.push(entry);
    return;
  }
  const url = out.nc.url;
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "pulumi-svc-emulator" };
  // The seed signs generic notifications only; chat services have no way to check a signature.
  if (out.nc.destinationType === "generic" && out.nc.token !== null) headers[SIGNATURE_HEADER] = sign(out.nc.token, out.body);
  const generation = service.generation;
  const previous = service.chains.get(out.nc.id) ?? Promise.resolve();
  const task = previous.then(async () => {
    if (rt.closing.aborted || generation !== service.generation) return;
    const sentAt = now();
    let entry: NotificationDelivery;
    let response: DeliveryResponse;
    try {
      const res = await postJson(url, out.body, headers, rt.deliveryTimeoutMs, rt.closing);
      entry = { ...base, url, headers, sentAt, response: { code: String(res.status), body: res.body, headers: res.headers } };
      response = { url, body: res.body.slice(0, STORED_BODY_LIMIT), code: String(res.status), headers: res.headers, "sent-at": sentAt, successful: res.status >= 200 && res.status < 300 };
    } catch (err) {
      entry = { ...base, url, headers, sentAt, response: null, error: (err as Error).message };
      response = { url, body: "", code: "", headers: {}, "sent-at": sentAt, successful: false };
    }
    // A reset or close meanwhile means this delivery belongs to a world that no longer exists.
    if (rt.closing.aborted || generation !== service.generation) return;
    rt.deliveries.push(entry);
    const current = rt.store.data.run.notificationConfigurations[out.nc.id];
    if (current) {
      current.deliveryResponses = [response];
      rt.store.save();
    }
  });
  service.chains.set(out.nc.id, task);
  // Drop the chain's tail once it is done so idle configurations hold nothing.
  void task.then(() => {
    if (service.chains.get(out.nc.id) === task) service.chains.delete(out.nc.id);
  });
}
