import type { Runtime } from "../clusterRuntime";
import { now } from "../util";
import { postJson } from "../transport/outbound";
import { sign, SIGNATURE_HEADER } from "./notificationDelivery";
import type { DeliveryResponse, NotificationConfiguration } from "./state";

const STORED_BODY_LIMIT = 4096;

export interface VerificationResult {
  ok: boolean;
  /** Undefined for email: nothing is sent over HTTP, so there is no response to store. */
  response?: DeliveryResponse;
  error?: string;
}

/** Generic payload version 1 with run fields null: the seed does not show a verification body. */
export function verificationPayload(rt: Runtime, nc: NotificationConfiguration): string {
  const workspace = rt.store.data.run.workspaces[nc.workspaceId];
  return JSON.stringify({
    payload_version: 1,
    notification_configuration_id: nc.id,
    run_url: null,
    run_id: null,
    run_message: null,
    run_created_at: null,
    run_created_by: null,
    workspace_id: nc.workspaceId,
    workspace_name: workspace?.name ?? null,
    organization_name: workspace?.organization ?? null,
    notifications: [
      {
        message: `Verification of ${nc.name}`,
        trigger: "verification",
        run_status: null,
        run_updated_at: null,
        run_updated_by: null,
      },
    ],
  });
}

/** Sends the verification request for `nc` (not yet saved) and logs it in the deliveries log. */
export async function verify(rt: Runtime, nc: NotificationConfiguration): Promise<VerificationResult> {
  const sentAt = now();
  const body = verificationPayload(rt, nc);
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "pulumi-svc-emulator" };
  if (nc.destinationType === "email" || nc.url === null) {
    const users = rt.store.data.run.users;
    const recipients = nc.userIds.map((id) => users[id]?.email).filter((e): e is string => typeof e === "string");
    rt.deliveries.push({ configurationId: nc.id, destinationType: nc.destinationType, url: null, trigger: "verification", headers: {}, body, response: null, sentAt, recipients });
    return { ok: true };
  }
  if (nc.token !== null && nc.destinationType === "generic") headers[SIGNATURE_HEADER] = sign(nc.token, body);
  const entry = { configurationId: nc.id, destinationType: nc.destinationType, url: nc.url, trigger: "verification", headers, body, sentAt };
  if (!rt.runService.verifyDestinations) {
    rt.deliveries.push({ ...entry, response: null, notSent: true });
    return { ok: true };
  }
  try {
    const res = await postJson(nc.url, body, headers, rt.deliveryTimeoutMs, rt.closing);
    const successful = res.status >= 200 && res.status < 300;
    rt.deliveries.push({ ...entry, response: { code: String(res.status), body: res.body, headers: res.headers } });
    const response: DeliveryResponse = {
      url: nc.url,
      body: res.body.slice(0, STORED_BODY_LIMIT),
      code: String(res.status),
      headers: res.headers,
      "sent-at": sentAt,
      successful,
    };
    return successful ? { ok: true, response } : { ok: false, response, error: `verification request to ${nc.url} got HTTP ${res.status}` };
  } catch (err) {
    const error = (err as Error).message;
    rt.deliveries.push({ ...entry, response: null, error });
    // No response exists; the stored element keeps the shape with an empty code and body.
    return { ok: false, error, response: { url: nc.url, body: "", code: "", headers: {}, "sent-at": sentAt, successful: false } };
  }
}
