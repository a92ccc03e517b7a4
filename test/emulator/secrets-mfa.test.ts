import { describe, expect, test } from "vitest";
import { secretsApi, svcToken, useStateFile } from "./helpers";
import { call } from "../support/http";
import { controlResponse, useEmulator } from "../support/emulator";

const { emu } = useEmulator();
const { root, url, post, get, del, list } = secretsApi(emu, "identity/mfa/method/dualfactor");

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const KEYS = { secret_key: "sk-123", integration_key: "ik-456", api_hostname: "api-1234abcd.example.com" };

async function method(body: Record<string, unknown> = {}): Promise<string> {
  const res = await post("", { ...KEYS, ...body });
  expect(res.status).toBe(200);
  return res.json.data.id;
}

describe("dual-factor methods", () => {
  test("create returns a server-assigned UUID; read returns every field, keys included", async () => {
    const res = await post("", { ...KEYS, username_format: "{{identity.entity.name}}@example.com", push_info: "from=ci" });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ method_id: expect.stringMatching(UUID), id: res.json.data.method_id });
    const read = await get(`/${res.json.data.id}`);
    expect(read.status).toBe(200);
    expect(read.json.data).toEqual({
      id: res.json.data.id,
      type: "dualfactor",
      username_format: "{{identity.entity.name}}@example.com",
      secret_key: "sk-123",
      integration_key: "ik-456",
      api_hostname: "api-1234abcd.example.com",
      pushinfo: "from=ci",
      use_passcode: false,
    });
  });

  test("POST with id updates; optional fields left out return to their defaults", async () => {
    const id = await method({ push_info: "p", use_passcode: true, username_format: "{{ identity.entity.id }}" });
    const res = await post("", { ...KEYS, id, secret_key: "sk-new" });
    expect(res.status).toBe(200);
    expect(res.json.data.id).toBe(id);
    expect((await get(`/${id}`)).json.data).toMatchObject({ secret_key: "sk-new", pushinfo: "", use_passcode: false, username_format: "" });
    expect((await list()).json.data.keys).toEqual([id]);
  });

  test("POST /:id updates; unknown → 404; a different id in the body → 400", async () => {
    const id = await method();
    const res = await post(`/${id}`, { ...KEYS, use_passcode: "true", username_format: "{{identity.entity.aliases.auth_userpass_1234abcd.name}}" });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ method_id: id, id });
    expect((await get(`/${id}`)).json.data).toMatchObject({ use_passcode: true, username_format: "{{identity.entity.aliases.auth_userpass_1234abcd.name}}" });
    const unknown = await post("/00000000-0000-4000-8000-000000000000", KEYS);
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ errors: [] });
    const mismatch = await post(`/${id}`, { ...KEYS, id: "00000000-0000-4000-8000-000000000000" });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.errors[0]).toContain("differs from the path");
  });

  test("POST to the collection with an unknown id is refused, not created", async () => {
    const res = await post("", { ...KEYS, id: "00000000-0000-4000-8000-000000000000" });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain("id: no dualfactor method");
    expect((await list()).status).toBe(404);
  });

  test.each([
    [{ integration_key: "i", api_hostname: "h.example.com" }, "missing secret_key"],
    [{ secret_key: "s", api_hostname: "h.example.com" }, "missing integration_key"],
    [{ secret_key: "s", integration_key: "i" }, "missing api_hostname"],
    [{ ...KEYS, api_hostname: "https://h.example.com" }, "api_hostname must be a host name"],
    [{ ...KEYS, api_hostname: "h.example.com/path" }, "api_hostname must be a host name"],
    [{ ...KEYS, use_passcode: "maybe" }, "use_passcode must be a boolean"],
    [{ ...KEYS, push_info: 3 }, "push_info must be a string"],
    [{ ...KEYS, username_format: "{{identity.user.name}}" }, "username_format: unknown value"],
    [{ ...KEYS, username_format: "{{identity.entity.name}" }, "username_format: unbalanced"],
  ])("invalid %j → 400 naming %s", async (body, message) => {
    const res = await post("", body);
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([expect.stringContaining(message)]);
    expect((await list()).status).toBe(404);
  });

  test("LIST; none → 404 with no messages; GET of the collection → 405", async () => {
    expect((await list()).json).toEqual({ errors: [] });
    const a = await method();
    const b = await method();
    expect((await list()).json.data.keys).toEqual([a, b].sort());
    expect((await call("GET", url("?list=true"), { headers: root() })).json.data.keys).toEqual([a, b].sort());
    expect((await get("")).status).toBe(405);
  });

  test("delete → 204 and gone; absent → 204", async () => {
    const id = await method();
    expect((await del(`/${id}`)).status).toBe(204);
    expect((await get(`/${id}`)).status).toBe(404);
    expect((await get(`/${id}`)).json).toEqual({ errors: [] });
    expect((await del(`/${id}`)).status).toBe(204);
  });
});

describe("login enforcements", () => {
  // Only the restart test starts emulators on it; the rest of this block uses the shared one.
  const state = useStateFile("emu-mfa-");

  test("a method used by a login enforcement cannot be deleted until the enforcement goes", async () => {
    const id = await method();
    const other = await method();
    expect((await controlResponse(emu, "POST", "/login-enforcements", { name: "corp", methodIds: [id, other] })).status).toBe(204);
    expect((await controlResponse(emu, "POST", "/login-enforcements", { name: "ops", methodIds: [id] })).status).toBe(204);
    expect((await controlResponse(emu, "GET", "/login-enforcements")).json.loginEnforcements).toEqual([
      { name: "corp", methodIds: [id, other] },
      { name: "ops", methodIds: [id] },
    ]);
    const refused = await del(`/${id}`);
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0]).toContain('login enforcement "corp", "ops"');
    expect((await get(`/${id}`)).status).toBe(200);

    expect((await controlResponse(emu, "DELETE", "/login-enforcements/corp")).status).toBe(204);
    expect((await del(`/${other}`)).status).toBe(204);
    expect((await del(`/${id}`)).status).toBe(400);
    // An enforcement may be replaced by writing its name again.
    expect((await controlResponse(emu, "POST", "/login-enforcements", { name: "ops", methodIds: [await method()] })).status).toBe(204);
    expect((await del(`/${id}`)).status).toBe(204);
  });

  test.each([
    [{ methodIds: ["x"] }, "name is required"],
    [{ name: "e" }, "methodIds must be a non-empty array"],
    [{ name: "e", methodIds: [] }, "methodIds must be a non-empty array"],
    [{ name: "e", methodIds: ["00000000-0000-4000-8000-000000000000"] }, "methodIds[0]: no MFA method"],
  ])("invalid %j → 400 naming %s", async (body, message) => {
    const res = await controlResponse(emu, "POST", "/login-enforcements", body);
    expect(res.status).toBe(400);
    expect(res.json.error).toContain(message);
  });

  test("reset drops methods and enforcements", async () => {
    const id = await method();
    await controlResponse(emu, "POST", "/login-enforcements", { name: "corp", methodIds: [id] });
    await controlResponse(emu, "POST", "/reset");
    expect((await get(`/${id}`)).status).toBe(404);
    expect((await controlResponse(emu, "GET", "/login-enforcements")).json.loginEnforcements).toEqual([]);
  });

  test("methods and enforcements survive a restart", async () => {
    const first = await state.start();
    const created = await call("POST", `${first.secretsUrl}/identity/mfa/method/dualfactor`, { headers: svcToken(first.tokens.secretsRoot), body: KEYS });
    const id = created.json.data.id;
    await call("POST", `${first.controlUrl}/login-enforcements`, { body: { name: "corp", methodIds: [id] } });
    await first.close();
    const second = await state.start();
    const headers = svcToken(second.tokens.secretsRoot);
    expect((await call("GET", `${second.secretsUrl}/identity/mfa/method/dualfactor/${id}`, { headers })).json.data.secret_key).toBe("sk-123");
    expect((await call("DELETE", `${second.secretsUrl}/identity/mfa/method/dualfactor/${id}`, { headers })).status).toBe(400);
  });
});
