import { createHmac } from "node:crypto";
import { describe, expect, test } from "vitest";
import { bearer } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";
import { useReceiver } from "../support/receiver";
import { freePort } from "../support/ports";

const { emu } = useEmulator({ deliveryTimeoutMs: 300 });
const receiver = useReceiver();

const listUrl = () => `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`;
const admin = () => bearer(emu.tokens.runAdmin);
const body = (a: Record<string, unknown>) => ({ data: { type: "notification-configurations", attributes: { name: "hook", "destination-type": "generic", url: receiver.url, ...a } } });
const create = (a: Record<string, unknown>) => call("POST", listUrl(), { headers: admin(), body: body(a) });
const patch = (id: string, a: Record<string, unknown>) => call("PATCH", `${emu.runUrl}/notification-configurations/${id}`, { headers: admin(), body: { data: { attributes: a } } });
const show = (id: string) => call("GET", `${emu.runUrl}/notification-configurations/${id}`, { headers: admin() });
const hmac = (key: string, text: string) => createHmac("sha512", key).update(text).digest("hex");

describe("verification on create", () => {
  test("enabled generic with a token: signed POST, response stored", async () => {
    const res = await create({ enabled: true, token: "hook-secret" });
    expect(res.status).toBe(201);
    expect(receiver.received).toHaveLength(1);
    const sent = receiver.received[0];
    expect(sent.method).toBe("POST");
    expect(sent.headers["content-type"]).toBe("application/json");
    expect(sent.headers["x-svc-notification-signature"]).toBe(hmac("hook-secret", sent.body));
    const payload = JSON.parse(sent.body);
    expect(payload.payload_version).toBe(1);
    expect(payload.notification_configuration_id).toBe(res.json.data.id);
    expect(payload.notifications).toHaveLength(1);
    expect(payload.notifications[0].trigger).toBe("verification");
    for (const field of ["run_url", "run_id", "run_message", "run_created_at", "run_created_by"]) expect(payload[field]).toBeNull();
    expect(payload.workspace_id).toBe(emu.workspaceId);

    const responses = res.json.data.attributes["delivery-responses"];
    expect(responses).toEqual([
      {
        url: receiver.url,
        body: "received 200",
        code: "200",
        headers: expect.objectContaining({ "x-receiver": ["yes"], "content-type": ["text/plain"] }),
        "sent-at": expect.stringMatching(/Z$/),
        successful: true,
      },
    ]);
    expect(res.json.data.attributes.token).toBeNull();
  });

  test("no token → no signature header; chat-a is never signed", async () => {
    expect((await create({ enabled: true })).status).toBe(201);
    expect((await create({ enabled: true, "destination-type": "chat-a", token: "t" })).status).toBe(201);
    expect(receiver.received).toHaveLength(2);
    for (const r of receiver.received) expect(r.headers["x-svc-notification-signature"]).toBeUndefined();
  });

  test("disabled → no request", async () => {
    expect((await create({ enabled: false })).status).toBe(201);
    expect(receiver.received).toHaveLength(0);
  });

  test.each([
    ["a non-2xx answer", async () => { receiver.status = 500; return receiver.url; }],
    ["connection refused", async () => `http://127.0.0.1:${await freePort()}/hook`],
    ["a timeout", async () => { receiver.hang = true; return receiver.url; }],
  ])("%s → 400 and nothing saved", async (_name, setup) => {
    const url = await setup();
    const res = await create({ enabled: true, url });
    expect(res.status).toBe(400);
    expect(res.json.errors[0].status).toBe("400");
    expect(res.json.errors[0].detail).toEqual(expect.any(String));
    const list = await call("GET", listUrl(), { headers: admin() });
    expect(list.json.data).toEqual([]);
  });

  test("email needs no HTTP request; the delivery is logged with recipients", async () => {
    const res = await call("POST", listUrl(), {
      headers: admin(),
      body: {
        data: {
          type: "notification-configurations",
          attributes: { name: "mail", "destination-type": "email", enabled: true },
          relationships: { users: { data: [{ id: "usr-member00000001", type: "users" }] } },
        },
      },
    });
    expect(res.status).toBe(201);
    expect(res.json.data.attributes["delivery-responses"]).toEqual([]);
    const log = await call("GET", `${emu.controlUrl}/deliveries`);
    expect(log.json.deliveries).toEqual([
      expect.objectContaining({ configurationId: res.json.data.id, destinationType: "email", trigger: "verification", recipients: ["member@example.com"], response: null }),
    ]);
  });
});

describe("verification on update", () => {
  test("a failed verification leaves the stored configuration unchanged", async () => {
    const created = await create({ enabled: true, token: "old" });
    const id = created.json.data.id;
    receiver.status = 503;
    const res = await patch(id, { name: "changed", triggers: ["run:errored"] });
    expect(res.status).toBe(400);
    const after = await show(id);
    expect(after.json.data.attributes).toEqual(created.json.data.attributes);
  });

  test("enabling sends a signed request with the new token and stores the response", async () => {
    const id = (await create({})).json.data.id;
    const res = await patch(id, { enabled: true, token: "new-token" });
    expect(res.status).toBe(200);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].headers["x-svc-notification-signature"]).toBe(hmac("new-token", receiver.received[0].body));
    expect(res.json.data.attributes["delivery-responses"][0].code).toBe("200");
  });

  test("token absent keeps it, null clears it", async () => {
    const id = (await create({ enabled: true, token: "keep-me" })).json.data.id;
    await patch(id, { name: "second" });
    expect(receiver.received[1].headers["x-svc-notification-signature"]).toBe(hmac("keep-me", receiver.received[1].body));
    await patch(id, { token: null });
    expect(receiver.received).toHaveLength(3);
    expect(receiver.received[2].headers["x-svc-notification-signature"]).toBeUndefined();
  });

  test("update with enabled false sends nothing", async () => {
    const id = (await create({ enabled: true })).json.data.id;
    const res = await patch(id, { enabled: false });
    expect(res.status).toBe(200);
    expect(receiver.received).toHaveLength(1);
    expect(res.json.data.attributes["delivery-responses"]).toHaveLength(1);
  });
});

describe("verify action", () => {
  test("success → 200 with the newest response only", async () => {
    const id = (await create({ enabled: true })).json.data.id;
    receiver.status = 202;
    const res = await call("POST", `${emu.runUrl}/notification-configurations/${id}/actions/verify`, { headers: admin() });
    expect(res.status).toBe(200);
    expect(res.json.data.attributes["delivery-responses"]).toEqual([expect.objectContaining({ code: "202", successful: true })]);
  });

  test("failure → 400 and the failed response is still stored", async () => {
    const id = (await create({})).json.data.id;
    receiver.status = 418;
    const res = await call("POST", `${emu.runUrl}/notification-configurations/${id}/actions/verify`, { headers: admin() });
    expect(res.status).toBe(400);
    const stored = (await show(id)).json.data.attributes["delivery-responses"];
    expect(stored).toEqual([expect.objectContaining({ code: "418", successful: false, body: "received 418", url: receiver.url })]);
  });

  test("response bodies are stored truncated to 4096 characters", async () => {
    const sink = `${emu.controlUrl}/sink/long`;
    await call("PUT", `${emu.controlUrl}/sinks/long`, { body: { status: 200, body: "x".repeat(10_000) } });
    const id = (await create({ url: sink })).json.data.id;
    const res = await call("POST", `${emu.runUrl}/notification-configurations/${id}/actions/verify`, { headers: admin() });
    expect(res.json.data.attributes["delivery-responses"][0].body).toHaveLength(4096);
  });

  test("deliveries log records request headers, body and response", async () => {
    const id = (await create({ enabled: true, token: "k" })).json.data.id;
    const log = await call("GET", `${emu.controlUrl}/deliveries`);
    const [entry] = log.json.deliveries;
    expect(entry).toEqual(
      expect.objectContaining({
        configurationId: id,
        destinationType: "generic",
        url: receiver.url,
        trigger: "verification",
        body: receiver.received[0].body,
        response: expect.objectContaining({ code: "200", body: "received 200" }),
        sentAt: expect.any(String),
      }),
    );
    expect(entry.headers["X-Svc-Notification-Signature"]).toBe(hmac("k", entry.body));
  });
});

describe("verifyDestinations off (PUT /_emulator/settings)", () => {
  test("a verification is recorded but not sent, and succeeds: a destination out of reach does not refuse the write; reset turns it back on", async () => {
    expect((await call("PUT", `${emu.controlUrl}/settings`, { body: { verifyDestinations: false } })).json.verifyDestinations).toBe(false);
    const res = await call("POST", listUrl(), { headers: admin(), body: body({ enabled: true, url: `http://127.0.0.1:${await freePort()}/hook` }) });
    expect(res.status).toBe(201);
    expect((await patch(res.json.data.id, { name: "renamed" })).status).toBe(200);
    expect(receiver.received).toHaveLength(0);
    const deliveries = (await call("GET", `${emu.controlUrl}/deliveries`)).json.deliveries;
    expect(deliveries.map((d: { trigger: string; notSent?: boolean }) => [d.trigger, d.notSent])).toEqual([["verification", true], ["verification", true]]);
    expect((await call("PUT", `${emu.controlUrl}/settings`, { body: { verifyDestinations: "no" } })).json).toEqual({ error: "verifyDestinations must be a boolean" });
    await call("POST", `${emu.controlUrl}/reset`);
    expect((await call("GET", `${emu.controlUrl}/settings`)).json.verifyDestinations).toBe(true);
  });
});
