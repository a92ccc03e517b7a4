import { beforeEach, describe, expect, test } from "vitest";
import { bearer } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";
import { mustStatus } from "../support/must";

const { emu } = useEmulator();
let ncId: string;

const ncBody = { data: { type: "notification-configurations", attributes: { name: "n", "destination-type": "generic", url: "https://hooks.example.com/x" } } };

beforeEach(async () => {
  const created = await call("POST", `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`, { headers: bearer(emu.tokens.runAdmin), body: ncBody });
  mustStatus(created.status, 201, "POST notification-configurations");
  ncId = created.json.data.id;
});

describe("run service authentication", () => {
  test.each([
    ["missing", () => ({})],
    ["unknown token", () => ({ authorization: "Bearer nope" })],
    ["not a bearer", () => ({ authorization: `Basic ${emu.tokens.runAdmin}` })],
    ["a secrets token", () => ({ authorization: `Bearer ${emu.tokens.secretsRoot}` })],
  ])("%s → 401 with the JSON:API unauthorized document", async (_name, headers: () => Record<string, string>) => {
    const res = await call("GET", `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`, { headers: headers() });
    expect(res.status).toBe(401);
    expect(res.headers["content-type"]).toBe("application/vnd.api+json");
    expect(res.json).toEqual({ errors: [{ status: "401", title: "unauthorized" }] });
  });

  test("401 comes before routing: an unknown path without a token is 401", async () => {
    const res = await call("GET", `${emu.runUrl}/nowhere`);
    expect(res.status).toBe(401);
  });

  test("an unknown path with a token is a JSON:API 404", async () => {
    const res = await call("GET", `${emu.runUrl}/nowhere`, { headers: bearer(emu.tokens.runAdmin) });
    expect(res.status).toBe(404);
    expect(res.json.errors[0].status).toBe("404");
  });

  test("a known path with the wrong method is 405 with Allow", async () => {
    const res = await call("PUT", `${emu.runUrl}/notification-configurations/${ncId}`, { headers: bearer(emu.tokens.runAdmin), body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain("PATCH");
  });
});

describe("workspace admin is required for every notification-configuration operation", () => {
  const operations = (): [string, string, unknown][] => [
    ["GET", `/workspaces/${emu.workspaceId}/notification-configurations`, undefined],
    ["POST", `/workspaces/${emu.workspaceId}/notification-configurations`, ncBody],
    ["GET", `/notification-configurations/${ncId}`, undefined],
    ["PATCH", `/notification-configurations/${ncId}`, { data: { type: "notification-configurations", attributes: { name: "renamed" } } }],
    ["POST", `/notification-configurations/${ncId}/actions/verify`, undefined],
    ["DELETE", `/notification-configurations/${ncId}`, undefined],
  ];

  test.each(["runMember", "runTeam"] as const)("%s gets 404 everywhere and changes nothing", async (who) => {
    for (const [method, path, body] of operations()) {
      const res = await call(method, `${emu.runUrl}${path}`, { headers: bearer(emu.tokens[who]), body });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const after = await call("GET", `${emu.runUrl}/notification-configurations/${ncId}`, { headers: bearer(emu.tokens.runAdmin) });
    expect(after.json.data.attributes.name).toBe("n");
    const list = await call("GET", `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`, { headers: bearer(emu.tokens.runAdmin) });
    expect(list.json.data).toHaveLength(1);
  });

  test.each(["runAdmin", "runOrganization"] as const)("%s may do everything", async (who) => {
    const expected = [200, 201, 200, 200, 200, 204];
    // verify of a disabled generic config still sends a request; point it at the emulator's own sink.
    await call("PATCH", `${emu.runUrl}/notification-configurations/${ncId}`, {
      headers: bearer(emu.tokens.runAdmin),
      body: { data: { attributes: { url: `${emu.controlUrl}/sink/auth` } } },
    });
    const statuses: number[] = [];
    for (const [method, path, body] of operations()) {
      statuses.push((await call(method, `${emu.runUrl}${path}`, { headers: bearer(emu.tokens[who]), body })).status);
    }
    expect(statuses).toEqual(expected);
  });

  test("an organization token does not administer another organization's workspace", async () => {
    const seeded = await call("POST", `${emu.controlUrl}/seed`, { body: { workspaces: [{ id: "ws-other", name: "other", organization: "other-org" }] } });
    expect(seeded.status).toBe(200);
    const asOrg = await call("GET", `${emu.runUrl}/workspaces/ws-other/notification-configurations`, { headers: bearer(emu.tokens.runOrganization) });
    expect(asOrg.status).toBe(404);
    const asAdmin = await call("GET", `${emu.runUrl}/workspaces/ws-other/notification-configurations`, { headers: bearer(emu.tokens.runAdmin) });
    expect(asAdmin.status).toBe(200);
  });

  test("an unknown workspace is 404 even for the admin", async () => {
    const res = await call("POST", `${emu.runUrl}/workspaces/ws-missing/notification-configurations`, { headers: bearer(emu.tokens.runAdmin), body: ncBody });
    expect(res.status).toBe(404);
    expect(res.json.errors[0].status).toBe("404");
  });
});
