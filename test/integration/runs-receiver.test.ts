// Real deliveries from the emulator, received by the example receiver (examples/receiver, compiled:
// run `npm run build` first) and checked with the receiver helpers.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { request } from "undici";
import { call } from "../../src/runtime";
import { applyRun, createRun, parseNotification, verifyNotificationSignature } from "../../src/runs";
import { fromDist } from "../support/dist";
import { control, useEmulator } from "../support/emulator";
import { advance, advanceUntil, confirmable, outcome, seedWorkspace, until } from "./runs-support";

type ReceiverModule = typeof import("../../examples/receiver/server");
const { startReceiver } = fromDist<ReceiverModule>("examples/receiver/server.js");

const { emu } = useEmulator();
const TOKEN = "receiver-hook-token-9d1e";
const RUN_TRIGGERS = ["run:created", "run:planning", "run:needs_attention", "run:applying", "run:completed", "run:errored"];
const ASSESSMENT_TRIGGERS = ["assessment:drifted", "assessment:check_failure", "assessment:failed"];

type Accepted = Parameters<Parameters<ReceiverModule["startReceiver"]>[0]["onNotification"]>[0];
let receiver: Awaited<ReturnType<ReceiverModule["startReceiver"]>>;
let accepted: Accepted[];
let refused: { reason: string; status: number }[];

beforeEach(async () => {
  accepted = [];
  refused = [];
  receiver = await startReceiver({ token: TOKEN, onNotification: (n) => void accepted.push(n), onRefused: (reason, status) => void refused.push({ reason, status }) });
});
afterEach(async () => { await receiver.close(); });

async function hook(workspaceId: string, triggers: string[], token: string | null = TOKEN): Promise<string> {
  const { inputs } = (await call("runs:NotificationConfiguration", "check", [{}, {
    workspaceId, name: `hook-${triggers.length}`, destinationType: "generic", url: receiver.url, enabled: true, triggers, ...(token ? { token } : {}),
  }])) as { inputs: Record<string, unknown> };
  return ((await call("runs:NotificationConfiguration", "create", [inputs])) as { id: string }).id;
}

const runNotes = () => accepted.filter((n) => n.kind === "run") as Extract<Accepted, { kind: "run" }>[];
const got = (trigger: string) => until(`a ${trigger} notification`, () => runNotes().find((n) => n.payload.notifications[0].trigger === trigger));

interface Delivery { trigger: string; payloadVersion?: number; headers: Record<string, string>; body: string; url: string | null }
const deliveries = async () => (await control<{ deliveries: Delivery[] }>(emu, "GET", "/deliveries")).deliveries;
const header = (h: Record<string, string>, name: string) => Object.entries(h).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

describe("notifications received from the emulator", () => {
  it("delivers every run trigger signed; the example receiver verifies and parses each", async () => {
    const nc = await hook(emu.workspaceId, RUN_TRIGGERS);
    // Enabling it sent a verification request, signed too.
    await until("the verification request", () => accepted.find((n) => n.kind === "verification"));

    const run = await createRun({ workspaceId: emu.workspaceId, message: "notify me" });
    expect((await got("run:created")).payload.notifications[0].run_status).toBe("pending");
    await advance(emu, run.id, "planning");
    expect((await got("run:planning")).payload.notifications[0].run_status).toBe("planning");
    await advanceUntil(emu, run.id, confirmable);
    await got("run:needs_attention");
    await applyRun({ runId: run.id, comment: "ship it" });
    await advanceUntil(emu, run.id, (d) => d.attributes.status === "applying");
    expect((await got("run:applying")).payload.notifications[0].run_status).toBe("applying");
    await advance(emu, run.id);
    expect((await got("run:completed")).payload.notifications[0].run_status).toBe("applied");

    const failing = await createRun({ workspaceId: emu.workspaceId, message: "will fail" });
    await outcome(emu, failing.id, { error: "plan" });
    await advanceUntil(emu, failing.id, (d) => d.attributes.status === "errored");
    const errored = await got("run:errored");
    expect(errored.payload).toMatchObject({
      payload_version: 1, notification_configuration_id: nc, run_id: failing.id, run_message: "will fail",
      workspace_id: emu.workspaceId, workspace_name: "example", organization_name: "example-org",
      run_url: expect.stringContaining(`/runs/${failing.id}`), notifications: [{ trigger: "run:errored", run_status: "errored" }],
    });
    expect(refused).toEqual([]);

    // Independently of the example: every delivery the emulator logged verifies and parses.
    const sent = (await deliveries()).filter((d) => d.trigger.startsWith("run:"));
    expect(new Set(sent.map((d) => d.trigger))).toEqual(new Set(RUN_TRIGGERS));
    for (const d of sent) {
      expect(verifyNotificationSignature(d.body, header(d.headers, "X-Svc-Notification-Signature"), TOKEN)).toBe(true);
      expect(verifyNotificationSignature(d.body, header(d.headers, "X-Svc-Notification-Signature"), "another-token")).toBe(false);
      expect(parseNotification(d.body)).toMatchObject({ ok: true, kind: "run", payload: { notifications: [{ trigger: d.trigger }] } });
    }
  });

  it("delivers every assessment trigger as a version 2 payload", async () => {
    const ws = await seedWorkspace(emu, { id: "ws-assessed000001", driftDetection: true, healthAssessments: true });
    await hook(ws, ASSESSMENT_TRIGGERS);
    for (const trigger of ASSESSMENT_TRIGGERS) await control(emu, "POST", "/assessments", { workspaceId: ws, trigger });
    const notes = await until("three assessment notifications", () => {
      const a = accepted.filter((n) => n.kind === "assessment") as Extract<Accepted, { kind: "assessment" }>[];
      return a.length >= 3 ? a : undefined;
    });
    expect(notes.map((n) => n.payload.trigger).sort()).toEqual([...ASSESSMENT_TRIGGERS].sort());
    for (const n of notes) {
      expect(n.payload).toMatchObject({ payload_version: 2, trigger_scope: "assessment", details: { workspace_id: ws, new_assessment_result: { id: expect.any(String) } } });
    }
    expect(refused).toEqual([]);
  });

  it("refuses a configuration without a token: its unsigned verification fails, so it cannot be enabled", async () => {
    const err = await hook(emu.workspaceId, ["run:created"], null).catch((e) => e);
    expect(err).toMatchObject({ code: "invalid_input", status: 400 });
    expect(refused).toEqual([{ reason: "bad or missing signature", status: 401 }]);
    const [verification] = (await deliveries()).filter((d) => d.trigger === "verification");
    expect(header(verification.headers, "X-Svc-Notification-Signature")).toBeUndefined();
  });

  it("accepts a signed body as sent and refuses it once tampered with", async () => {
    await hook(emu.workspaceId, ["run:created"]);
    const [signed] = (await deliveries()).filter((d) => d.trigger === "verification");
    const signature = header(signed.headers, "X-Svc-Notification-Signature")!;
    const send = async (body: string) => {
      const res = await request(receiver.url, { method: "POST", body, headers: { "content-type": "application/json", "x-svc-notification-signature": signature } });
      await res.body.dump();
      return res.statusCode;
    };
    expect(await send(signed.body)).toBe(204);
    expect(await send(signed.body.replace("Verification of", "Verification for"))).toBe(401);
    expect(refused.at(-1)).toEqual({ reason: "bad or missing signature", status: 401 });
  });
});
