import { describe, expect, test } from "vitest";
import { secretsApi, svcToken } from "./helpers";
import { call } from "../support/http";
import { controlResponse, useEmulator } from "../support/emulator";

/** What real clients call before anything else: go-tfe's ping, health probes, token self-lookup. */
const { emu } = useEmulator();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("run service ping", () => {
  test("GET /api/v2/ping answers 204 with TFP-API-Version, with or without a token", async () => {
    for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${emu.tokens.runAdmin}`, accept: "application/vnd.api+json" }]) {
      const res = await call("GET", `${emu.runUrl}/ping`, { headers });
      expect(res.status).toBe(204);
      expect(res.headers["tfp-api-version"]).toMatch(/^\d+\.\d+$/);
    }
    // Everything else still needs a token.
    expect((await call("GET", `${emu.runUrl}/runs/run-x`)).status).toBe(401);
  });
});

describe("secrets service health", () => {
  test("sys/health answers without a token: initialized, unsealed, active, a version", async () => {
    const res = await call("GET", `${emu.secretsUrl}/sys/health`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ initialized: true, sealed: false, standby: false, performance_standby: false, replication_performance_mode: "disabled" });
    expect(res.json.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Number.isInteger(res.json.server_time_utc)).toBe(true);
    expect((await call("HEAD", `${emu.secretsUrl}/sys/health`)).status).toBe(200);
    expect((await call("GET", `${emu.secretsUrl}/sys/health`, { headers: svcToken(emu.tokens.secretsUser) })).status).toBe(200);
  });
});

describe("token self-lookup", () => {
  test("describes the calling token: root has the root policy (sudo), user only default; ttl 0", async () => {
    const root = await call("GET", `${emu.secretsUrl}/auth/token/lookup-self`, { headers: svcToken(emu.tokens.secretsRoot) });
    expect(root.status).toBe(200);
    expect(root.json.request_id).toMatch(UUID);
    expect(root.json.data).toMatchObject({ id: emu.tokens.secretsRoot, policies: ["root"], ttl: 0, expire_time: null, type: "service", display_name: "root" });
    const user = await call("GET", `${emu.secretsUrl}/auth/token/lookup-self`, { headers: svcToken(emu.tokens.secretsUser) });
    expect(user.json.data).toMatchObject({ id: emu.tokens.secretsUser, policies: ["default"], ttl: 0 });
    expect(user.json.data.accessor).not.toBe(root.json.data.accessor);
    // The accessor stays the same from call to call.
    const again = await call("GET", `${emu.secretsUrl}/auth/token/lookup-self`, { headers: svcToken(emu.tokens.secretsUser) });
    expect(again.json.data.accessor).toBe(user.json.data.accessor);
    expect((await call("GET", `${emu.secretsUrl}/auth/token/lookup-self`)).status).toBe(403);
    expect((await call("GET", `${emu.secretsUrl}/auth/token/lookup-self`, { headers: svcToken("emu-sec-wrong") })).status).toBe(403);
    // auth/ is a fixed path: nothing can be mounted there.
    expect((await controlResponse(emu, "POST", "/mounts", { path: "auth/x", type: "transform" })).status).toBe(400);
  });
});

describe("request_id", () => {
  test("a fresh UUID on every secrets answer, the leased ones (check-out, registry creds) included", async () => {
    const dir = secretsApi(emu, "directory/");
    expect((await controlResponse(emu, "POST", "/directory/accounts", { accounts: ["a"] })).status).toBe(200);
    expect((await dir.post("config", { binddn: "cn=admin,dc=example,dc=org", bindpass: "bind-pass-probe", url: "ldap://127.0.0.1:1" })).status).toBe(204);
    expect((await dir.post("library/s", { service_account_names: ["a"], ttl: "1h" })).status).toBe(204);
    const checkOut = await dir.post("library/s/check-out", {});
    expect(checkOut.status).toBe(200);

    const reg = secretsApi(emu, "registry/");
    const management = (await controlResponse(emu, "POST", "/registry/tokens", { type: "management" })).json.token;
    expect((await reg.post("config/access", { address: "registry:8500", token: management })).status).toBe(204);
    expect((await reg.post("roles/m", { token_type: "management" })).status).toBe(204);
    const creds = await reg.get("creds/m");
    expect(creds.status).toBe(200);

    const reads = [checkOut, creds, await dir.get("library/s"), await reg.get("roles/m"), await call("GET", `${emu.secretsUrl}/sys/replication/performance/status`)];
    const ids = reads.map((r) => r.json.request_id as string);
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
    expect(creds.json.request_id).not.toBe(creds.json.data.accessor);
  });
});
