import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Log } from "../../src/emulator/control/logs";
import { bearer, secretsApi } from "./helpers";
import { call } from "../support/http";
import { controlResponse, useEmulator } from "../support/emulator";
import { runsApi } from "./runs-helpers";

const { emu } = useEmulator();
const admin = () => bearer(emu.tokens.runAdmin);
const ncList = () => `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`;
const ncBody = (a: Record<string, unknown>) => ({ data: { type: "notification-configurations", attributes: { name: "hook", "destination-type": "generic", url: slow.url, ...a } } });

/** A receiver that answers every verification after `delayMs`. */
const slow = { url: "", delayMs: 0 };
const slowServer = http.createServer((req, res) => {
  req.resume();
  setTimeout(() => res.end("ok"), slow.delayMs);
});
beforeAll(async () => {
  await new Promise<void>((resolve) => slowServer.listen(0, "127.0.0.1", resolve));
  slow.url = `http://127.0.0.1:${(slowServer.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => slowServer.close(() => resolve())));

describe("no lost update on notification configurations", () => {
  test("a PATCH with a slow verification racing a PATCH of triggers: both apply", async () => {
    const created = await call("POST", ncList(), { headers: admin(), body: ncBody({ enabled: false }) });
    expect(created.status).toBe(201);
    const id = created.json.data.id;
    const patch = (a: Record<string, unknown>) => call("PATCH", `${emu.runUrl}/notification-configurations/${id}`, { headers: admin(), body: { data: { attributes: a } } });
    slow.delayMs = 300;
    const enabling = patch({ enabled: true });
    await new Promise((r) => setTimeout(r, 50));
    const triggers = patch({ triggers: ["run:errored"] });
    const [a, b] = await Promise.all([enabling, triggers]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const shown = await call("GET", `${emu.runUrl}/notification-configurations/${id}`, { headers: admin() });
    expect(shown.json.data.attributes.enabled).toBe(true);
    expect(shown.json.data.attributes.triggers).toEqual(["run:errored"]);
    // The later PATCH answered with the version that includes the earlier one.
    expect(b.json.data.attributes.enabled).toBe(true);
  });
});

describe("force-execute (seed 000)", () => {
  test("every prior incomplete run is canceled, not discarded", async () => {
    const api = runsApi(emu);
    const holder = await api.createId();
    const middle = await api.createId();
    const target = await api.createId();
    expect((await api.action(target, "force-execute")).status).toBe(202);
    expect(await api.status(holder)).toBe("canceled");
    expect(await api.status(middle)).toBe("canceled");
    expect(await api.status(target)).toBe("pending");
  });
});

describe("?list= accepts the boolean spellings", () => {
  test.each(["1", "t", "T", "true", "TRUE", "True"])("list=%s lists", async (value) => {
    const api = secretsApi(emu);
    expect((await api.post("transform/alphabet/one", { alphabet: "ab" })).status).toBe(204);
    const res = await call("GET", `${api.url("transform/alphabet")}?list=${value}`, { headers: api.root() });
    expect(res.status).toBe(200);
    expect(res.json.data.keys).toEqual(["one"]);
  });

  test.each(["0", "f", "false", "FALSE"])("list=%s reads instead", async (value) => {
    const api = secretsApi(emu);
    expect((await api.post("transform/alphabet/one", { alphabet: "ab" })).status).toBe(204);
    expect((await call("GET", `${api.url("transform/alphabet/one")}?list=${value}`, { headers: api.root() })).json.data).toEqual({ alphabet: "ab" });
  });

  test("a value that is not a boolean is 400", async () => {
    const api = secretsApi(emu);
    const res = await call("GET", `${api.url("transform/alphabet")}?list=yes`, { headers: api.root() });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain("list must be a boolean");
  });
});

describe("JSON:API rules of the run service", () => {
  const attributes = { name: "n", "destination-type": "generic", url: "https://h.example.com/" };
  const body = { data: { type: "notification-configurations", attributes } };

  test("415 for a Content-Type with media type parameters; nothing is created", async () => {
    const res = await call("POST", ncList(), { headers: { ...admin(), "content-type": "application/vnd.api+json; charset=utf-8" }, body });
    expect(res.status).toBe(415);
    expect(res.headers["content-type"]).toBe("application/vnd.api+json");
    expect((await call("GET", ncList(), { headers: admin() })).json.data).toEqual([]);
  });

  test("406 when Accept holds the JSON:API type only with parameters", async () => {
    const only = await call("GET", ncList(), { headers: { ...admin(), accept: 'application/vnd.api+json; ext="x", application/vnd.api+json; profile="y"' } });
    expect(only.status).toBe(406);
    const mixed = await call("GET", ncList(), { headers: { ...admin(), accept: 'application/vnd.api+json; ext="x", application/vnd.api+json' } });
    expect(mixed.status).toBe(200);
    const weighted = await call("GET", ncList(), { headers: { ...admin(), accept: "application/vnd.api+json;q=0.9, */*;q=0.1" } });
    expect(weighted.status).toBe(200);
  });

  test("409 when a PATCH body's data.id differs from the URL; nothing changes", async () => {
    const created = await call("POST", ncList(), { headers: admin(), body });
    const id = created.json.data.id;
    const url = `${emu.runUrl}/notification-configurations/${id}`;
    const res = await call("PATCH", url, { headers: admin(), body: { data: { id: "nc-someoneelse0000", type: "notification-configurations", attributes: { name: "renamed" } } } });
    expect(res.status).toBe(409);
    expect((await call("GET", url, { headers: admin() })).json.data.attributes.name).toBe("n");
    const same = await call("PATCH", url, { headers: admin(), body: { data: { id, type: "notification-configurations", attributes: { name: "renamed" } } } });
    expect(same.status).toBe(200);
  });

  test("400 for an unsupported sort", async () => {
    const res = await call("GET", `${ncList()}?sort=-created-at`, { headers: admin() });
    expect(res.status).toBe(400);
    expect(res.json.errors[0].source).toEqual({ parameter: "sort" });
    expect((await call("GET", `${emu.runUrl}/runs?filter[workspace][id]=${emu.workspaceId}&sort=id`, { headers: admin() })).status).toBe(400);
  });

  test("201 carries Location, the created resource's self link", async () => {
    const nc = await call("POST", ncList(), { headers: admin(), body });
    expect(nc.status).toBe(201);
    expect(nc.headers.location).toBe(nc.json.data.links.self);
    expect((await call("GET", `${emu.url}${nc.headers.location}`, { headers: admin() })).status).toBe(200);
    const api = runsApi(emu);
    const run = await api.create();
    expect(run.status).toBe(201);
    expect(run.headers.location).toBe(`/api/v2/runs/${run.json.data.id}`);
  });
});

describe("request log", () => {
  test("a full log drops the oldest entries and keeps order", () => {
    const log = new Log<number>(3);
    for (let i = 1; i <= 7; i++) log.push(i);
    expect(log.all()).toEqual([5, 6, 7]);
    log.clear();
    log.push(9);
    expect(log.all()).toEqual([9]);
  });

  test("entries are formatted when read: ISO timestamp and query object", async () => {
    await controlResponse(emu, "DELETE", "/requests");
    await call("GET", `${emu.secretsUrl}/transform/alphabet/x?a=1&b=two`, { headers: secretsApi(emu).root() });
    const [entry] = (await controlResponse(emu, "GET", "/requests")).json.requests;
    expect(entry).toMatchObject({ method: "GET", path: "/v1/transform/alphabet/x", query: { a: "1", b: "two" }, status: 404 });
    expect(entry.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});
