import { createHmac } from "node:crypto";
import { describe, expect, test } from "vitest";
import { startEmulator } from "../../src/emulator";
import { bearer } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";
import { useReceiver, type Received } from "../support/receiver";
import { runsApi } from "./runs-helpers";

// The default delivery timeout (10 s): a receiver slowed by a busy machine still answers in time.
const { emu } = useEmulator();
const receiver = useReceiver();
const api = runsApi(emu);

const RUN_TRIGGERS = ["run:created", "run:planning", "run:needs_attention", "run:applying", "run:completed", "run:errored"];
const hmac = (key: string, text: string) => createHmac("sha512", key).update(text).digest("hex");

/** Creates an enabled configuration, then forgets its verification so only notifications are counted. */
async function hook(attributes: Record<string, unknown>, workspaceId = emu.workspaceId, relationships?: unknown): Promise<string> {
  const res = await call("POST", `${emu.runUrl}/workspaces/${workspaceId}/notification-configurations`, {
    headers: api.headers(),
    body: { data: { type: "notification-configurations", attributes: { name: "hook", "destination-type": "generic", url: receiver.url, enabled: true, triggers: RUN_TRIGGERS, ...attributes }, ...(relationships ? { relationships } : {}) } },
  });
  expect(res.status).toBe(201);
  await call("DELETE", `${emu.controlUrl}/deliveries`);
  receiver.received.length = 0;
  return res.json.data.id;
}

/**
 * The log once it has `wait` entries, or (`settled`) once no notification is still on its way, so
 * "nothing more came" is known, not guessed from a quiet spell. The 60 s only guards against a hang.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function deliveries(wait: number | "settled"): Promise<any[]> {
  const res = await call("GET", `${emu.controlUrl}/deliveries?${wait === "settled" ? "settled=1" : `wait=${wait}`}&timeoutMs=60000`);
  expect(res.status).toBe(200);
  expect(res.json.timedOut).toBe(false);
  return [...res.json.deliveries].sort((a, b) => a.sequence - b.sequence);
}

const triggersOf = (received: Received[]) => received.map((r) => JSON.parse(r.body).notifications[0].trigger);

describe("generic notifications (payload version 1)", () => {
  test("an auto-applied run sends created, planning, applying, completed, each signed; other workspaces hear nothing", async () => {
    await hook({ token: "elsewhere" });
    const nc = await hook({ token: "s3cret" }, "ws-autoapply000001");
    const id = await api.createId({}, { workspaceId: "ws-autoapply000001" });
    await api.advanceTo(id, "applied");
    const log = await deliveries(4);
    expect(log.map((d) => d.trigger)).toEqual(["run:created", "run:planning", "run:applying", "run:completed"]);
    expect(log.every((d) => d.configurationId === nc && d.runId === id)).toBe(true);
    expect(triggersOf(receiver.received)).toEqual(["run:created", "run:planning", "run:applying", "run:completed"]);
    for (const r of receiver.received) expect(r.headers["x-svc-notification-signature"]).toBe(hmac("s3cret", r.body));
    expect(await deliveries("settled")).toHaveLength(4);
  });

  test("every field of the seed's table, and the signature over the exact body", async () => {
    const nc = await hook({ token: "s3cret" });
    const id = await api.createId({ message: "release 7" });
    const [entry] = await deliveries(1);
    expect(entry).toMatchObject({ configurationId: nc, trigger: "run:created", payloadVersion: 1, runId: id, destinationType: "generic", sequence: expect.any(Number) });
    expect(receiver.received).toHaveLength(1);
    const sent = receiver.received[0];
    expect(sent.headers["x-svc-notification-signature"]).toBe(hmac("s3cret", sent.body));
    expect(sent.headers["content-type"]).toBe("application/json");
    const run = (await api.get(id)).json.data.attributes;
    expect(JSON.parse(sent.body)).toEqual({
      payload_version: 1,
      notification_configuration_id: nc,
      run_url: `${emu.runUrl}/runs/${id}`,
      run_id: id,
      run_message: "release 7",
      run_created_at: run["created-at"],
      run_created_by: "admin",
      workspace_id: emu.workspaceId,
      workspace_name: "example",
      organization_name: "example-org",
      notifications: [{ message: "Run created", trigger: "run:created", run_status: "pending", run_updated_at: expect.any(String), run_updated_by: "admin" }],
    });
  });

  test("no token → no signature header", async () => {
    await hook({});
    await api.createId();
    await deliveries(1);
    expect(receiver.received[0].headers["x-svc-notification-signature"]).toBeUndefined();
  });

  test("a run that applies after confirmation: created, planning, needs_attention, applying, completed in order", async () => {
    await hook({ token: "k" });
    const id = await api.createId({}, { who: "runTeam" });
    await api.advanceTo(id, "planned");
    expect((await api.action(id, "apply", "runAdmin")).status).toBe(202);
    await api.advanceTo(id, "applied");
    await deliveries(5);
    expect(triggersOf(receiver.received)).toEqual(["run:created", "run:planning", "run:needs_attention", "run:applying", "run:completed"]);
    const bodies = receiver.received.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.notifications[0].run_status)).toEqual(["pending", "planning", "planned", "applying", "applied"]);
    expect(bodies[0].run_created_by).toBe("api-team_deployers");
    expect(bodies[3].notifications[0].run_updated_by).toBe("admin");
    for (const r of receiver.received) expect(r.headers["x-svc-notification-signature"]).toBe(hmac("k", r.body));
  });

  test("plan-only → run:completed at planned_and_finished", async () => {
    await hook({ triggers: ["run:completed"] });
    const id = await api.createId({ "plan-only": true });
    await api.advanceTo(id, "planned_and_finished");
    await deliveries(1);
    expect(JSON.parse(receiver.received[0].body).notifications[0]).toMatchObject({ trigger: "run:completed", run_status: "planned_and_finished" });
  });

  test("a soft-failed policy needs attention", async () => {
    await api.seed({ workspaces: [{ id: "ws-pol", name: "pol", policy: "soft-failed" }], configurationVersions: [{ workspaceId: "ws-pol" }] });
    await hook({ triggers: ["run:needs_attention"] }, "ws-pol");
    const id = await api.createId({}, { workspaceId: "ws-pol" });
    await api.advanceTo(id, "policy_override");
    await deliveries(1);
    expect(JSON.parse(receiver.received[0].body).notifications[0]).toMatchObject({ trigger: "run:needs_attention", run_status: "policy_override" });
  });

  test.each([
    ["errored", async (id: string) => { await api.outcome(id, { error: "plan" }); await api.advanceTo(id, "errored"); }],
    ["canceled", async (id: string) => { await api.advanceTo(id, "planning"); await api.action(id, "cancel"); await api.advance(id); }],
    ["discarded", async (id: string) => { await api.action(id, "discard"); }],
    ["force_canceled", async (id: string) => { await api.settings({ forceCancelCooloffMs: 0 }); await api.advanceTo(id, "planning"); await api.action(id, "cancel"); await api.action(id, "force-cancel"); }],
  ])("run:errored when a run ends %s", async (status, end) => {
    await hook({ triggers: ["run:errored"] });
    const id = await api.createId();
    await end(id);
    await deliveries(1);
    expect(receiver.received).toHaveLength(1);
    expect(JSON.parse(receiver.received[0].body).notifications[0]).toMatchObject({ trigger: "run:errored", run_status: status });
  });

  test("only matching triggers of enabled configurations are sent", async () => {
    await hook({ triggers: ["run:planning"] });
    await call("POST", `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`, {
      headers: api.headers(),
      body: { data: { type: "notification-configurations", attributes: { name: "off", "destination-type": "generic", url: receiver.url, enabled: false, triggers: RUN_TRIGGERS } } },
    });
    const id = await api.createId();
    await api.advanceTo(id, "planned");
    const log = await deliveries("settled");
    expect(log.map((d) => d.trigger)).toEqual(["run:planning"]);
    expect(triggersOf(receiver.received)).toEqual(["run:planning"]);
  });

  test("the latest delivery response is stored on the configuration", async () => {
    const nc = await hook({});
    receiver.status = 500;
    await api.createId();
    await deliveries(1);
    const shown = await call("GET", `${emu.runUrl}/notification-configurations/${nc}`, { headers: api.headers() });
    expect(shown.json.data.attributes["delivery-responses"]).toEqual([
      { url: receiver.url, body: "received 500", code: "500", headers: expect.objectContaining({ "x-receiver": ["yes"] }), "sent-at": expect.any(String), successful: false },
    ]);
  });

  test("the API does not wait for deliveries; wait=N and settled report a timeout", async () => {
    await hook({});
    receiver.hang = true;
    const id = await api.createId();
    // The receiver holds the notification until released: a create that waited for it could not have answered.
    expect((await call("GET", `${emu.controlUrl}/deliveries`)).json.deliveries).toEqual([]);
    expect((await call("GET", `${emu.controlUrl}/deliveries?wait=1&timeoutMs=50`)).json).toEqual({ deliveries: [], timedOut: true });
    expect((await call("GET", `${emu.controlUrl}/deliveries?settled=1&timeoutMs=50`)).json).toEqual({ deliveries: [], timedOut: true });
    expect(receiver.release()).toBe(1);
    const [entry] = await deliveries(1);
    expect(entry).toMatchObject({ runId: id, response: { code: "200" } });
  });

  test("a receiver that does not answer within deliveryTimeoutMs is logged with no response", async () => {
    // An emulator of its own with a short timeout: the receiver never answers, so the timeout fires however slow the machine.
    const quick = await startEmulator({ deliveryTimeoutMs: 50 });
    try {
      const created = await call("POST", `${quick.runUrl}/workspaces/${quick.workspaceId}/notification-configurations`, {
        headers: bearer(quick.tokens.runAdmin),
        body: { data: { type: "notification-configurations", attributes: { name: "slow", "destination-type": "generic", url: receiver.url, enabled: true, triggers: ["run:created"] } } },
      });
      expect(created.status, created.text).toBe(201);
      receiver.hang = true; // after the configuration's verification, which it answered
      const run = await call("POST", `${quick.runUrl}/runs`, {
        headers: bearer(quick.tokens.runAdmin),
        body: { data: { type: "runs", attributes: {}, relationships: { workspace: { data: { type: "workspaces", id: quick.workspaceId } } } } },
      });
      expect(run.status).toBe(201);
      const log = await call("GET", `${quick.controlUrl}/deliveries?settled=1&timeoutMs=60000`);
      const entry = log.json.deliveries.find((d: { trigger?: string }) => d.trigger === "run:created");
      expect(entry).toMatchObject({ runId: run.json.data.id, response: null, error: `request to ${receiver.url} failed: no response within 50 ms` });
    } finally {
      receiver.release();
      await quick.close();
    }
  });

  test("wait and timeoutMs are validated", async () => {
    expect((await call("GET", `${emu.controlUrl}/deliveries?wait=-1`)).status).toBe(400);
    expect((await call("GET", `${emu.controlUrl}/deliveries?wait=1&timeoutMs=999999`)).status).toBe(400);
    expect((await call("GET", `${emu.controlUrl}/deliveries?settled=yes`)).status).toBe(400);
  });
});

describe("chat and email notifications", () => {
  test("chat-a gets a chat-webhook body, unsigned even with a token", async () => {
    await hook({ "destination-type": "chat-a", token: "t" });
    const id = await api.createId({ message: "hello chat" });
    await deliveries(1);
    const sent = receiver.received[0];
    expect(sent.headers["x-svc-notification-signature"]).toBeUndefined();
    const body = JSON.parse(sent.body);
    expect(body.text).toContain("Run created");
    expect(body.attachments[0]).toMatchObject({ title_link: `${emu.runUrl}/runs/${id}`, text: "hello chat" });
    expect(body.attachments[0].fields).toContainEqual({ title: "Status", value: "pending", short: true });
  });

  test("chat-b gets a message card, unsigned", async () => {
    await hook({ "destination-type": "chat-b", token: "t" });
    const id = await api.createId();
    await deliveries(1);
    const sent = receiver.received[0];
    expect(sent.headers["x-svc-notification-signature"]).toBeUndefined();
    const body = JSON.parse(sent.body);
    expect(body).toMatchObject({ "@type": "MessageCard", title: expect.stringContaining("Run created") });
    expect(body.sections[0].facts).toContainEqual({ name: "Run", value: id });
    expect(body.potentialAction[0].targets[0].uri).toBe(`${emu.runUrl}/runs/${id}`);
  });

  test("email is recorded with its recipients and not sent", async () => {
    await hook({ "destination-type": "email", url: null }, emu.workspaceId, { users: { data: [{ id: "usr-member00000001", type: "users" }] } });
    const id = await api.createId();
    const [entry] = await deliveries(1);
    expect(entry).toMatchObject({ destinationType: "email", trigger: "run:created", url: null, recipients: ["member@example.com"], runId: id, response: null });
    expect(JSON.parse(entry.body).subject).toContain("Run created");
    expect(receiver.received).toHaveLength(0);
  });
});
