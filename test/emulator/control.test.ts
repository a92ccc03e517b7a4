import { describe, expect, test } from "vitest";
import { bearer, svcToken } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";
import { AREAS } from "../../src/emulator/areas";

const { emu } = useEmulator();

const fault = (body: unknown) => call("POST", `${emu.controlUrl}/faults`, { body });
const ncPath = () => `/api/v2/workspaces/${emu.workspaceId}/notification-configurations`;
const ncBody = (name = "n") => ({ data: { type: "notification-configurations", attributes: { name, "destination-type": "generic", url: "https://h.example.com/" } } });
const createNc = (name?: string) => call("POST", `${emu.url}${ncPath()}`, { headers: bearer(emu.tokens.runAdmin), body: ncBody(name) });
const countNc = async () => (await call("GET", `${emu.url}${ncPath()}`, { headers: bearer(emu.tokens.runAdmin) })).json.data.length as number;
const putAlphabet = (name: string) => call("POST", `${emu.secretsUrl}/transform/alphabet/${name}`, { headers: svcToken(emu.tokens.secretsRoot), body: { alphabet: "ab" } });

describe("faults", () => {
  test("before: answers with the status in the run service's shape, without handling", async () => {
    const res = await fault({ method: "POST", path: ncPath(), status: 503 });
    expect(res.status).toBe(201);
    expect(res.json.id).toEqual(expect.any(String));
    const faulted = await createNc();
    expect(faulted.status).toBe(503);
    expect(faulted.headers["content-type"]).toBe("application/vnd.api+json");
    expect(faulted.json.errors[0].status).toBe("503");
    expect(await countNc()).toBe(0);
    expect((await createNc()).status).toBe(201);
  });

  test("Retry-After alone means 429 with the header; secrets errors use the secrets shape", async () => {
    await fault({ path: "/v1/transform/*", retryAfter: 7 });
    const res = await putAlphabet("a");
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("7");
    expect(res.json.errors).toEqual([expect.any(String)]);
    expect((await call("GET", `${emu.secretsUrl}/transform/alphabet/a`, { headers: svcToken(emu.tokens.secretsRoot) })).status).toBe(404);
  });

  test("after: the request is handled, then the answer is replaced", async () => {
    await fault({ method: "POST", path: ncPath(), status: 500, when: "after" });
    const res = await createNc();
    expect(res.status).toBe(500);
    expect(await countNc()).toBe(1);
  });

  test("drop before: the socket closes and nothing happens", async () => {
    await fault({ path: ncPath(), method: "POST", drop: true });
    await expect(createNc()).rejects.toThrow();
    expect(await countNc()).toBe(0);
  });

  test("drop after: the socket closes but the object exists", async () => {
    await fault({ path: ncPath(), method: "POST", drop: true, when: "after" });
    await expect(createNc()).rejects.toThrow();
    expect(await countNc()).toBe(1);
  });

  test("count, method filter and exact path", async () => {
    await fault({ method: "POST", path: ncPath(), status: 502, count: 2 });
    expect((await call("GET", `${emu.url}${ncPath()}`, { headers: bearer(emu.tokens.runAdmin) })).status).toBe(200);
    expect((await call("POST", `${emu.url}${ncPath()}/x`, { headers: bearer(emu.tokens.runAdmin), body: {} })).status).toBe(404);
    expect((await createNc()).status).toBe(502);
    expect((await createNc()).status).toBe(502);
    expect((await createNc()).status).toBe(201);
  });

  test("every: one matching request in N gets the fault, a share of the writes; the others act", async () => {
    await fault({ method: "POST", path: "/v1/transform/alphabet/*", retryAfter: 2, every: 3, count: 2 });
    const answers: (string | number)[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await putAlphabet(`e${i}`);
      answers.push(r.status === 429 ? `429 after ${r.headers["retry-after"]}` : r.status);
    }
    // The 3rd and 6th act as faults; after count uses the fault is gone.
    expect(answers).toEqual([204, 204, "429 after 2", 204, 204, "429 after 2", 204, 204]);
    const keys = (await call("LIST", `${emu.secretsUrl}/transform/alphabet`, { headers: svcToken(emu.tokens.secretsRoot) })).json.data.keys;
    expect(keys).toEqual(["e0", "e1", "e3", "e4", "e6", "e7"]);
  });

  test("a LIST fault matches LIST requests", async () => {
    await putAlphabet("a");
    await fault({ method: "LIST", path: "/v1/transform/alphabet", status: 500 });
    expect((await call("GET", `${emu.secretsUrl}/transform/alphabet/a`, { headers: svcToken(emu.tokens.secretsRoot) })).status).toBe(200);
    expect((await call("LIST", `${emu.secretsUrl}/transform/alphabet`, { headers: svcToken(emu.tokens.secretsRoot) })).status).toBe(500);
  });

  test("delayMs alone delays and then handles normally", async () => {
    await fault({ method: "POST", path: ncPath(), delayMs: 150 });
    const started = Date.now();
    const res = await createNc();
    expect(res.status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  test("hold: the request waits at its fault until released, then the fault acts; clearing the faults releases too", async () => {
    await fault({ method: "POST", path: ncPath(), status: 503, hold: true, when: "after" });
    const pending = createNc();
    const held = await call("GET", `${emu.controlUrl}/faults/held?wait=1&timeoutMs=60000`);
    expect(held.json).toEqual({ held: [{ method: "POST", path: ncPath(), when: "after" }], timedOut: false });
    expect(await countNc()).toBe(1); // after: it acted, and its answer waits
    expect((await call("POST", `${emu.controlUrl}/faults/release`)).json).toEqual({ released: 1 });
    expect((await pending).status).toBe(503);
    expect((await call("GET", `${emu.controlUrl}/faults/held?wait=1&timeoutMs=0`)).json).toEqual({ held: [], timedOut: true });
    await fault({ method: "POST", path: ncPath(), hold: true });
    const served = createNc("m");
    await call("GET", `${emu.controlUrl}/faults/held?wait=1&timeoutMs=60000`);
    expect(await countNc()).toBe(1); // before: nothing acted yet
    await call("DELETE", `${emu.controlUrl}/faults`);
    expect((await served).status).toBe(201); // a hold alone is "slow but correct"
  });

  test("list and clear faults", async () => {
    await fault({ path: "/v1/*", status: 500, count: 3 });
    const listed = await call("GET", `${emu.controlUrl}/faults`);
    expect(listed.json.faults).toEqual([expect.objectContaining({ path: "/v1/*", remaining: 3, status: 500, when: "before" })]);
    expect((await call("DELETE", `${emu.controlUrl}/faults`)).status).toBe(204);
    expect((await putAlphabet("a")).status).toBe(204);
  });

  test.each([{}, { path: "no-slash" }, { path: "/x", count: 0 }, { path: "/x", every: 0 }, { path: "/x", status: 42 }, { path: "/x", when: "during" }, { path: "/x", drop: "yes" }, { path: "/x", hold: 1 }])(
    "invalid fault %j → 400",
    async (body) => {
      expect((await fault(body)).status).toBe(400);
    },
  );

  test("faults never apply to control endpoints", async () => {
    await fault({ path: "/_emulator/*", status: 500 });
    expect((await call("GET", `${emu.controlUrl}/requests`)).status).toBe(200);
  });
});

describe("reset, seed and logs", () => {
  test("reset clears objects, faults, logs, deliveries and keeps tokens", async () => {
    await createNc();
    await putAlphabet("a");
    await fault({ path: "/v1/*", status: 500 });
    await call("POST", `${emu.controlUrl}/sink/s`, { body: { hello: 1 } });
    expect((await call("POST", `${emu.controlUrl}/reset`)).status).toBe(204);
    expect(await countNc()).toBe(0);
    expect((await call("LIST", `${emu.secretsUrl}/transform/alphabet`, { headers: svcToken(emu.tokens.secretsRoot) })).status).toBe(404);
    expect((await call("GET", `${emu.controlUrl}/faults`)).json.faults).toEqual([]);
    expect((await call("GET", `${emu.controlUrl}/sinks/s`)).json.requests).toEqual([]);
    const log = (await call("GET", `${emu.controlUrl}/requests`)).json.requests;
    expect(log.map((r: { path: string }) => r.path)).toEqual([ncPath(), "/v1/transform/alphabet"]);
  });

  test("seed creates workspaces and users; defaults come back after reset", async () => {
    const res = await call("POST", `${emu.controlUrl}/seed`, {
      body: { organizations: [{ name: "acme" }], workspaces: [{ name: "prod", organization: "acme" }, { id: "ws-fixed", name: "fixed" }], users: [{ username: "carol" }] },
    });
    expect(res.status).toBe(200);
    expect(res.json.organizations).toEqual([{ name: "acme" }]);
    expect(res.json.workspaces[0]).toEqual({ id: expect.stringMatching(/^ws-[A-Za-z0-9]{16}$/), name: "prod", organization: "acme" });
    expect(res.json.workspaces[1]).toEqual({ id: "ws-fixed", name: "fixed", organization: "example-org" });
    expect(res.json.users[0]).toEqual({ id: expect.stringMatching(/^usr-/), username: "carol", email: "carol@example.com" });
    const wsId = res.json.workspaces[0].id;
    const created = await call("POST", `${emu.runUrl}/workspaces/${wsId}/notification-configurations`, {
      headers: bearer(emu.tokens.runAdmin),
      body: { data: { type: "notification-configurations", attributes: { name: "m", "destination-type": "email" }, relationships: { users: { data: [{ id: res.json.users[0].id, type: "users" }] } } } },
    });
    expect(created.status).toBe(201);
    await call("POST", `${emu.controlUrl}/reset`);
    expect((await call("GET", `${emu.runUrl}/workspaces/${wsId}/notification-configurations`, { headers: bearer(emu.tokens.runAdmin) })).status).toBe(404);
    expect(await countNc()).toBe(0);
  });

  test.each([{ workspaces: [{}] }, { users: [{ username: "admin", id: "usr-other" }] }, { workspaces: "x" }])("invalid seed %j → 400", async (body) => {
    expect((await call("POST", `${emu.controlUrl}/seed`, { body })).status).toBe(400);
  });

  test("the request log has method, path, query, status and time, never tokens or bodies", async () => {
    await call("DELETE", `${emu.controlUrl}/requests`);
    await call("GET", `${emu.url}${ncPath()}?page%5Bsize%5D=5`, { headers: bearer(emu.tokens.runAdmin) });
    await call("GET", `${emu.url}${ncPath()}`, { headers: bearer("wrong") });
    await call("POST", `${emu.secretsUrl}/transform/alphabet/s`, { headers: svcToken(emu.tokens.secretsRoot), body: { alphabet: "QWERTYUIOP" } });
    const res = await call("GET", `${emu.controlUrl}/requests`);
    expect(res.json.requests).toEqual([
      { method: "GET", path: ncPath(), query: { "page[size]": "5" }, status: 200, at: expect.stringMatching(/Z$/) },
      { method: "GET", path: ncPath(), query: {}, status: 401, at: expect.any(String) },
      { method: "POST", path: "/v1/transform/alphabet/s", query: {}, status: 204, at: expect.any(String) },
    ]);
    expect(res.text).not.toContain(emu.tokens.runAdmin);
    expect(res.text).not.toContain("QWERTYUIOP");
    expect((await call("DELETE", `${emu.controlUrl}/requests`)).status).toBe(204);
    expect((await call("GET", `${emu.controlUrl}/requests`)).json.requests).toEqual([]);
  });

  test("a dropped request is logged with status 0", async () => {
    await call("DELETE", `${emu.controlUrl}/requests`);
    await fault({ path: "/v1/*", drop: true });
    await expect(putAlphabet("x")).rejects.toThrow();
    expect((await call("GET", `${emu.controlUrl}/requests`)).json.requests).toEqual([expect.objectContaining({ status: 0, method: "POST" })]);
  });
});

describe("sinks", () => {
  test("record requests and answer with the configured status", async () => {
    const first = await call("POST", `${emu.controlUrl}/sink/hook`, { body: { a: 1 }, headers: { "x-test": "1" } });
    expect(first.status).toBe(200);
    expect(first.text).toBe("ok");
    expect((await call("PUT", `${emu.controlUrl}/sinks/hook`, { body: { status: 500 } })).status).toBe(204);
    expect((await call("PUT", `${emu.controlUrl}/sink/hook`, { raw: "plain" })).status).toBe(500);
    const seen = await call("GET", `${emu.controlUrl}/sinks/hook`);
    expect(seen.json.requests).toEqual([
      { method: "POST", headers: expect.objectContaining({ "x-test": "1" }), body: '{"a":1}' },
      { method: "PUT", headers: expect.any(Object), body: "plain" },
    ]);
    expect((await call("PUT", `${emu.controlUrl}/sinks/hook`, { body: { status: 99 } })).status).toBe(400);
  });

  test("a notification configuration verifies against a sink, signature included", async () => {
    const res = await call("POST", `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`, {
      headers: bearer(emu.tokens.runAdmin),
      body: { data: { type: "notification-configurations", attributes: { name: "s", "destination-type": "generic", url: `${emu.controlUrl}/sink/ci`, enabled: true, token: "tok" } } },
    });
    expect(res.status).toBe(201);
    const seen = await call("GET", `${emu.controlUrl}/sinks/ci`);
    expect(seen.json.requests).toHaveLength(1);
    expect(seen.json.requests[0].headers["x-svc-notification-signature"]).toMatch(/^[0-9a-f]{128}$/);
  });

  test("unknown control endpoints → 404", async () => {
    expect((await call("GET", `${emu.controlUrl}/nothing`)).status).toBe(404);
    expect((await call("GET", `${emu.url}/elsewhere`)).status).toBe(404);
  });
});

describe("next ids", () => {
  const put = (body: unknown) => call("PUT", `${emu.controlUrl}/next-ids`, { body });
  const root = () => svcToken(emu.tokens.secretsRoot);
  const alias = (name: string) => call("POST", `${emu.secretsUrl}/identity/entity-alias`, { headers: root(), body: { name, canonical_id: "ent-alice0000000001", mount_accessor: "auth_userpass_1234abcd" } });
  const method = (body: Record<string, unknown> = {}) => call("POST", `${emu.secretsUrl}/identity/mfa/method/dualfactor`, {
    headers: root(), body: { secret_key: "s", integration_key: "i", api_hostname: "api-1.example.com", ...body },
  });

  test("the next objects of a kind whose id the service assigns take the ids given, in order, then made-up ones again", async () => {
    expect((await put({ notificationConfigurations: ["nc-given0000000001", "nc-given0000000002"], entityAliases: ["alias-given-1"], dualFactorMethods: ["method-given-1"] })).status).toBe(200);
    expect((await createNc("a")).json.data.id).toBe("nc-given0000000001");
    expect((await createNc("b")).json.data.id).toBe("nc-given0000000002");
    expect((await createNc("c")).json.data.id).toMatch(/^nc-/);
    expect((await alias("dave")).json.data.id).toBe("alias-given-1");
    expect((await alias("erin")).json.data.id).not.toBe("alias-given-1");
    // A refused write takes no id: the next valid one gets it.
    expect((await method({ api_hostname: "https://not-a-host/" })).status).toBe(400);
    expect((await method()).json.data.id).toBe("method-given-1");
    // Every kind whose ids the service assigns is listed, each with nothing left to give.
    const kinds = AREAS.flatMap((a) => a.assignedIds ?? []);
    expect(kinds).toEqual(expect.arrayContaining(["notificationConfigurations", "entityAliases", "dualFactorMethods"]));
    expect((await call("GET", `${emu.controlUrl}/next-ids`)).json).toEqual(Object.fromEntries(kinds.map((k) => [k, []])));
  });

  test("an id in use is passed over; a bad body is refused naming the entry; reset and DELETE clear them", async () => {
    const first = (await createNc("a")).json.data.id as string;
    await put({ notificationConfigurations: [first, "nc-given0000000003"] });
    expect((await createNc("b")).json.data.id).toBe("nc-given0000000003");
    expect((await put({ notificationConfigurations: ["nc ok?"] })).json).toEqual({ error: "notificationConfigurations[0] must be an id of letters, digits, - and _" });
    expect((await put({ runs: ["run-1"] })).status).toBe(400);
    await put({ entityAliases: ["alias-given-2"] });
    expect((await call("POST", `${emu.controlUrl}/reset`)).status).toBe(204);
    expect((await call("GET", `${emu.controlUrl}/next-ids`)).json.entityAliases).toEqual([]);
    await put({ entityAliases: ["alias-given-2"] });
    expect((await call("DELETE", `${emu.controlUrl}/next-ids`)).status).toBe(204);
    expect((await alias("dave")).json.data.id).not.toBe("alias-given-2");
  });
});
