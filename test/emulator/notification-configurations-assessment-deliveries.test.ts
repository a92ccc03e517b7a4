import { createHmac } from "node:crypto";
import { beforeEach, describe, expect, test } from "vitest";
import { bearer } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";
import { useReceiver } from "../support/receiver";

const { emu } = useEmulator({ deliveryTimeoutMs: 300 });
const receiver = useReceiver();

beforeEach(async () => {
  await call("POST", `${emu.controlUrl}/seed`, {
    body: {
      workspaces: [
        { id: "ws-drift", name: "drift", driftDetection: true },
        { id: "ws-health", name: "health", healthAssessments: true },
      ],
    },
  });
});

const ASSESSMENT_TRIGGERS = ["assessment:drifted", "assessment:check_failure", "assessment:failed"];
const hmac = (key: string, text: string) => createHmac("sha512", key).update(text).digest("hex");

async function hook(workspaceId: string, attributes: Record<string, unknown> = {}): Promise<string> {
  const res = await call("POST", `${emu.runUrl}/workspaces/${workspaceId}/notification-configurations`, {
    headers: bearer(emu.tokens.runAdmin),
    body: { data: { type: "notification-configurations", attributes: { name: "a", "destination-type": "generic", url: receiver.url, enabled: true, triggers: ASSESSMENT_TRIGGERS, token: "tok", ...attributes } } },
  });
  expect(res.status).toBe(201);
  await call("DELETE", `${emu.controlUrl}/deliveries`);
  receiver.received.length = 0;
  return res.json.data.id;
}

const assess = (workspaceId: string, trigger: string) => call("POST", `${emu.controlUrl}/assessments`, { body: { workspaceId, trigger } });

async function waitFor(n: number) {
  const res = await call("GET", `${emu.controlUrl}/deliveries?wait=${n}&timeoutMs=3000`);
  expect(res.json.timedOut).toBe(false);
  return res.json.deliveries;
}

describe("assessment notifications (payload version 2)", () => {
  test("drift: every field of the seed, signed; the prior result is the one before", async () => {
    const nc = await hook("ws-drift");
    const first = await assess("ws-drift", "assessment:drifted");
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ prior: null, notified: 1 });
    await waitFor(1);
    const second = await assess("ws-drift", "assessment:check_failure");
    await waitFor(2);
    expect(receiver.received).toHaveLength(2);
    for (const r of receiver.received) expect(r.headers["x-svc-notification-signature"]).toBe(hmac("tok", r.body));
    const [a, b] = receiver.received.map((r) => JSON.parse(r.body));
    expect(a).toEqual({
      payload_version: 2,
      notification_configuration_id: nc,
      notification_configuration_url: `${emu.runUrl}/notification-configurations/${nc}`,
      trigger_scope: "assessment",
      trigger: "assessment:drifted",
      message: expect.any(String),
      details: {
        new_assessment_result: {
          id: first.json.result.id,
          url: expect.stringContaining(first.json.result.id),
          succeeded: true,
          all_checks_succeeded: true,
          checks_passed: 1,
          checks_failed: 0,
          checks_errored: 0,
          checks_unknown: 0,
          drifted: true,
          resources_drifted: 1,
          resources_undrifted: 2,
          created_at: expect.stringMatching(/Z$/),
        },
        prior_assessment_result: null,
        workspace_id: "ws-drift",
        workspace_name: "drift",
        organization_name: "example-org",
      },
    });
    expect(b.trigger).toBe("assessment:check_failure");
    expect(b.details.new_assessment_result).toMatchObject({ id: second.json.result.id, all_checks_succeeded: false, checks_failed: 1 });
    expect(b.details.prior_assessment_result.id).toBe(first.json.result.id);
  });

  test("the deliveries log marks them payload version 2", async () => {
    const nc = await hook("ws-health");
    await assess("ws-health", "assessment:failed");
    const [entry] = await waitFor(1);
    expect(entry).toMatchObject({ configurationId: nc, trigger: "assessment:failed", payloadVersion: 2 });
    expect(JSON.parse(receiver.received[0].body).details.new_assessment_result.succeeded).toBe(false);
  });

  test("only configurations subscribed to the trigger receive it", async () => {
    await hook("ws-drift", { triggers: ["assessment:check_failure"] });
    expect((await assess("ws-drift", "assessment:drifted")).json.notified).toBe(0);
    await assess("ws-drift", "assessment:check_failure");
    await waitFor(1);
    expect(receiver.received.map((r) => JSON.parse(r.body).trigger)).toEqual(["assessment:check_failure"]);
  });

  test("chat-a receives a chat body for an assessment", async () => {
    await hook("ws-drift", { "destination-type": "chat-a" });
    await assess("ws-drift", "assessment:drifted");
    await waitFor(1);
    expect(receiver.received[0].headers["x-svc-notification-signature"]).toBeUndefined();
    expect(JSON.parse(receiver.received[0].body).text).toContain("Drift detected");
  });

  test.each([
    ["ws-health", "assessment:drifted"],
    ["ws-health", "assessment:check_failure"],
    ["ws-drift", "assessment:failed"],
    ["ws-example00000001", "assessment:drifted"],
  ])("%s without the matching setting refuses %s with 409", async (ws, trigger) => {
    const res = await assess(ws, trigger);
    expect(res.status).toBe(409);
    expect(res.json.error).toContain(ws);
  });

  test("an unknown workspace → 404; an unknown trigger → 400", async () => {
    expect((await assess("ws-missing", "assessment:drifted")).status).toBe(404);
    expect((await assess("ws-drift", "run:created")).status).toBe(400);
  });
});
