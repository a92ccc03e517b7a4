import type { DeliveryEntry } from "../logs";
import type { Runtime } from "../runtime";
import type { DeliveryResponse, NotificationConfiguration } from "./state";
import { now } from "../util";
import { postJson } from "./notificationDelivery";
import { SIGNATURE_HEADER, sign } from "./verifyNotificationConfiguration";

/** A run or assessment notification entry of GET /_emulator/deliveries. */
export type NotificationDelivery = DeliveryEntry & {
  /** Event order across all notifications (deliveries may complete out of order across configurations). */
  sequence: number;
  /** 1 for run events, 2 for assessment events, whatever the destination type. */
  payloadVersion: 1 | 2;
  runId?: string;
};

export interface Outgoing {
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
export function deliver(rt: Runtime, out: Outgoing): void {
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
