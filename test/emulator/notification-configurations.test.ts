import { describe, expect, test } from "vitest";
import { bearer } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";

const { emu } = useEmulator();

const listUrl = () => `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`;
const admin = () => bearer(emu.tokens.runAdmin);
const attrs = (a: Record<string, unknown>) => ({ data: { type: "notification-configurations", attributes: { name: "hook", "destination-type": "generic", url: "https://hooks.example.com/run", ...a } } });
const create = (body: unknown) => call("POST", listUrl(), { headers: admin(), body });
const patch = (id: string, body: unknown) => call("PATCH", `${emu.runUrl}/notification-configurations/${id}`, { headers: admin(), body });
const count = async () => (await call("GET", listUrl(), { headers: admin() })).json.data.length as number;

describe("create", () => {
  test("returns the full document with defaults", async () => {
    const res = await create(attrs({ triggers: ["run:completed", "run:errored", "run:completed"], token: "s3cret" }));
    expect(res.status).toBe(201);
    expect(res.headers["content-type"]).toBe("application/vnd.api+json");
    const { data } = res.json;
    expect(data.id).toMatch(/^nc-[A-Za-z0-9]{16}$/);
    expect(data.type).toBe("notification-configurations");
    expect(data.attributes).toEqual({
      enabled: false,
      name: "hook",
      url: "https://hooks.example.com/run",
      "destination-type": "generic",
      token: null,
      triggers: ["run:completed", "run:errored"],
      "delivery-responses": [],
      "created-at": expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      "updated-at": data.attributes["created-at"],
    });
    expect(data.relationships).toEqual({ subscribable: { data: { id: emu.workspaceId, type: "workspaces" } }, users: { data: [] } });
    expect(data.links).toEqual({ self: `/api/v2/notification-configurations/${data.id}` });
    const shown = await call("GET", `${emu.runUrl}/notification-configurations/${data.id}`, { headers: admin() });
    expect(shown.status).toBe(200);
    expect(shown.json).toEqual(res.json);
  });

  test("accepts the singular document type and triggers default to empty", async () => {
    const res = await create({ data: { type: "notification-configuration", attributes: { name: "x", "destination-type": "chat-a", url: "http://chat.example.com/" } } });
    expect(res.status).toBe(201);
    expect(res.json.data.attributes.triggers).toEqual([]);
  });

  test("email takes users and no url", async () => {
    const res = await create({
      data: {
        type: "notification-configurations",
        attributes: { name: "mail", "destination-type": "email", triggers: ["run:errored"] },
        relationships: { users: { data: [{ id: "usr-admin000000001", type: "users" }] } },
      },
    });
    expect(res.status).toBe(201);
    expect(res.json.data.attributes.url).toBeNull();
    expect(res.json.data.relationships.users.data).toEqual([{ id: "usr-admin000000001", type: "users" }]);
  });

  const invalid: [string, unknown, string][] = [
    ["no data", {}, "/data"],
    ["missing type", { data: { attributes: attrs({}).data.attributes } }, "/data/type"],
    ["wrong type", { data: { ...attrs({}).data, type: "workspaces" } }, "/data/type"],
    ["missing destination-type", attrs({ "destination-type": undefined }), "/data/attributes/destination-type"],
    ["unknown destination-type", attrs({ "destination-type": "slack" }), "/data/attributes/destination-type"],
    ["missing name", attrs({ name: undefined }), "/data/attributes/name"],
    ["empty name", attrs({ name: "" }), "/data/attributes/name"],
    ["numeric name", attrs({ name: 5 }), "/data/attributes/name"],
    ["missing url for generic", attrs({ url: undefined }), "/data/attributes/url"],
    ["null url for chat-b", attrs({ url: null, "destination-type": "chat-b" }), "/data/attributes/url"],
    ["ftp url", attrs({ url: "ftp://example.com/x" }), "/data/attributes/url"],
    ["relative url", attrs({ url: "/hook" }), "/data/attributes/url"],
    ["url for email", attrs({ "destination-type": "email", url: "https://example.com" }), "/data/attributes/url"],
    ["unknown trigger", attrs({ triggers: ["run:created", "run:exploded"] }), "/data/attributes/triggers/1"],
    ["triggers not an array", attrs({ triggers: "run:created" }), "/data/attributes/triggers"],
    ["enabled not a boolean", attrs({ enabled: "yes" }), "/data/attributes/enabled"],
    ["token not a string", attrs({ token: 42 }), "/data/attributes/token"],
    [
      "users for generic",
      { data: { ...attrs({}).data, relationships: { users: { data: [{ id: "usr-admin000000001", type: "users" }] } } } },
      "/data/relationships/users",
    ],
    [
      "unknown user",
      { data: { type: "notification-configurations", attributes: { name: "m", "destination-type": "email" }, relationships: { users: { data: [{ id: "usr-nobody", type: "users" }] } } } },
      "/data/relationships/users/data/0/id",
    ],
  ];

  test.each(invalid)("%s → 422 pointing at the attribute, nothing saved", async (_name, body, pointer) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.headers["content-type"]).toBe("application/vnd.api+json");
    const error = res.json.errors.find((e: { source?: { pointer?: string } }) => e.source?.pointer === pointer);
    expect(error, JSON.stringify(res.json)).toBeDefined();
    expect(error.status).toBe("422");
    expect(error.detail).toEqual(expect.any(String));
    expect(await count()).toBe(0);
  });

  test("malformed JSON → 422", async () => {
    const res = await call("POST", listUrl(), { headers: admin(), raw: "{not json" });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].status).toBe("422");
  });

  test("at most 20 per workspace: the 21st is 422 and names the limit", async () => {
    for (let i = 0; i < 20; i++) expect((await create(attrs({ name: `n${i}` }))).status).toBe(201);
    const res = await create(attrs({ name: "n20" }));
    expect(res.status).toBe(422);
    expect(res.json.errors[0].detail).toContain("20");
    expect(await count()).toBe(20);
    // The limit is per workspace.
    await call("POST", `${emu.controlUrl}/seed`, { body: { workspaces: [{ id: "ws-second", name: "second" }] } });
    const other = await call("POST", `${emu.runUrl}/workspaces/ws-second/notification-configurations`, { headers: admin(), body: attrs({}) });
    expect(other.status).toBe(201);
  });
});

describe("update", () => {
  test("absent attributes keep their values; given ones change", async () => {
    const id = (await create(attrs({ triggers: ["run:created"] }))).json.data.id;
    const before = await call("GET", `${emu.runUrl}/notification-configurations/${id}`, { headers: admin() });
    await new Promise((r) => setTimeout(r, 5));
    const res = await patch(id, { data: { type: "notification-configurations", attributes: { name: "renamed" } } });
    expect(res.status).toBe(200);
    const a = res.json.data.attributes;
    expect(a.name).toBe("renamed");
    expect(a.url).toBe("https://hooks.example.com/run");
    expect(a.triggers).toEqual(["run:created"]);
    expect(a["created-at"]).toBe(before.json.data.attributes["created-at"]);
    expect(a["updated-at"] > a["created-at"]).toBe(true);
  });

  test("data.type may be omitted but must be valid when given", async () => {
    const id = (await create(attrs({}))).json.data.id;
    expect((await patch(id, { data: { attributes: { triggers: ["run:applying"] } } })).status).toBe(200);
    const bad = await patch(id, { data: { type: "runs", attributes: {} } });
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0].source.pointer).toBe("/data/type");
  });

  test("destination-type cannot change", async () => {
    const id = (await create(attrs({}))).json.data.id;
    const res = await patch(id, { data: { attributes: { "destination-type": "chat-a" } } });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].detail).toBe("destination-type cannot be changed");
    expect(res.json.errors[0].source.pointer).toBe("/data/attributes/destination-type");
  });

  test("the merged result is validated like a create", async () => {
    const id = (await create(attrs({}))).json.data.id;
    const res = await patch(id, { data: { attributes: { url: null } } });
    expect(res.status).toBe(422);
    expect(res.json.errors[0].source.pointer).toBe("/data/attributes/url");
    const shown = await call("GET", `${emu.runUrl}/notification-configurations/${id}`, { headers: admin() });
    expect(shown.json.data.attributes.url).toBe("https://hooks.example.com/run");
  });

  test("email users can be replaced; url stays forbidden", async () => {
    const body = {
      data: { type: "notification-configurations", attributes: { name: "m", "destination-type": "email" }, relationships: { users: { data: [{ id: "usr-admin000000001", type: "users" }] } } },
    };
    const id = (await create(body)).json.data.id;
    const renamed = await patch(id, { data: { attributes: { name: "m2" } } });
    expect(renamed.json.data.relationships.users.data).toEqual([{ id: "usr-admin000000001", type: "users" }]);
    const res = await patch(id, { data: { relationships: { users: { data: [{ id: "usr-member00000001", type: "users" }] } } } });
    expect(res.status).toBe(200);
    expect(res.json.data.relationships.users.data).toEqual([{ id: "usr-member00000001", type: "users" }]);
    expect((await patch(id, { data: { attributes: { url: "https://x.example.com" } } })).status).toBe(422);
  });

  test("unknown id → 404", async () => {
    expect((await patch("nc-doesnotexist0000", { data: { attributes: {} } })).status).toBe(404);
    expect((await call("GET", `${emu.runUrl}/notification-configurations/nc-doesnotexist0000`, { headers: admin() })).status).toBe(404);
  });
});

describe("delete", () => {
  test("204 then 404", async () => {
    const id = (await create(attrs({}))).json.data.id;
    const res = await call("DELETE", `${emu.runUrl}/notification-configurations/${id}`, { headers: admin() });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await call("GET", `${emu.runUrl}/notification-configurations/${id}`, { headers: admin() })).status).toBe(404);
    expect((await call("DELETE", `${emu.runUrl}/notification-configurations/${id}`, { headers: admin() })).status).toBe(404);
    expect(await count()).toBe(0);
  });
});
