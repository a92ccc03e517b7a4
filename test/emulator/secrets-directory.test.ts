import { readStateFile } from "../../src/emulator";
import { readFileSync } from "node:fs";
import * as net from "node:net";
import { describe, expect, test } from "vitest";
import { secretsApi, useStateFile } from "./helpers";
import { call } from "../support/http";
import { controlResponse, useEmulator } from "../support/emulator";

const { emu } = useEmulator();
const api = secretsApi(emu, "directory/");
const { post, get, list, del } = api;

const CONFIG = { binddn: "cn=admin,dc=example,dc=org", bindpass: "initial-bind-pass", url: "ldap://127.0.0.1:1" };

async function seedAccounts(...names: string[]) {
  expect((await controlResponse(emu, "POST", "/directory/accounts", { accounts: names })).status).toBe(200);
}
async function binds(name: string, password: string): Promise<boolean> {
  const res = await controlResponse(emu, "POST", "/directory/bind", { name, password });
  expect(res.status).toBe(200);
  return res.json.ok;
}
async function configured(extra: Record<string, unknown> = {}) {
  expect((await post("config", { ...CONFIG, ...extra })).status).toBe(204);
}
/** Passes time on the emulator's clock, which the engine's lifetimes and timestamps read. */
async function advance(ms: number) {
  expect((await controlResponse(emu, "POST", "/clock/advance", { ms })).status).toBe(200);
}
async function librarySet(name: string, accounts: string[], extra: Record<string, unknown> = {}) {
  const res = await post(`library/${name}`, { name, service_account_names: accounts, ...extra });
  expect(res.status, res.text).toBe(204);
}

describe("config", () => {
  test("defaults, every parameter read back, never the bind password; built-in backend when url does not answer", async () => {
    await configured({ ttl: "1h", max_ttl: 86400, connection_timeout: "2s", last_rotation_tolerance: "10s", userdn: "ou=users,dc=example,dc=org" });
    const read = await get("config");
    expect(read.status).toBe(200);
    expect(read.json.data).toEqual({
      binddn: CONFIG.binddn, url: CONFIG.url, userdn: "ou=users,dc=example,dc=org", upndomain: "", certificate: "", insecure_tls: false, starttls: false,
      tls_min_version: "tls12", tls_max_version: "tls13", ttl: 3600, max_ttl: 86400, password_policy: "", length: 64, formatter: "",
      connection_timeout: 2, request_timeout: 90, last_rotation_tolerance: 10,
    });
    expect(read.text).not.toContain(CONFIG.bindpass);
    expect((await controlResponse(emu, "GET", "/directory")).json.backend).toBe("builtin");
    expect((await del("config")).status).toBe(204);
    expect((await get("config")).status).toBe(404);
  });

  test("bad parameters are all reported at once and change nothing", async () => {
    const res = await post("config", { url: "http://x", length: 10, ttl: "soon", password_policy: "p", formatter: "x" });
    expect(res.status).toBe(400);
    expect(res.json.errors.join("\n")).toMatch(/ttl must be/);
    const res2 = await post("config", { url: "http://x", password_policy: "p", formatter: "no-placeholder" });
    expect(res2.json.errors).toEqual(expect.arrayContaining([
      "missing binddn", "missing bindpass", "password_policy is mutually exclusive with length and formatter",
      "formatter must contain {{PASSWORD}} exactly once", 'url "http://x" must be ldap://host[:port] or ldaps://host[:port]',
    ]));
    expect((await post("config", { ...CONFIG, length: 13 })).json.errors).toEqual(["length must be at least 14"]);
    expect((await post("config", { ...CONFIG, ttl: 7200, max_ttl: 3600 })).json.errors).toEqual(["ttl (7200s) must not exceed max_ttl (3600s)"]);
    expect((await get("config")).status).toBe(404);
  });

  test("an update keeps the bind password it was not given", async () => {
    await configured();
    await post("config", { binddn: CONFIG.binddn, ttl: 60 });
    expect(await binds(CONFIG.binddn, CONFIG.bindpass)).toBe(true);
  });
});

describe("password generation", () => {
  test("default: 64 characters starting with ?@09AZ; length; formatter with the placeholder once; policy", async () => {
    await seedAccounts("svc");
    await configured();
    await post("roles/r", { service_account_name: "svc" });
    let pw = (await get("creds/r")).json.data.current_password as string;
    expect(pw).toHaveLength(64);
    expect(pw.startsWith("?@09AZ")).toBe(true);

    await configured({ length: 20 });
    await post("rotate-role/r");
    pw = (await get("creds/r")).json.data.current_password;
    expect(pw).toMatch(/^\?@09AZ[A-Za-z0-9]{14}$/);

    await configured({ length: 30, formatter: "pre-{{PASSWORD}}-post" });
    await post("rotate-role/r");
    pw = (await get("creds/r")).json.data.current_password;
    expect(pw).toMatch(/^pre-[A-Za-z0-9]{21}-post$/);

    await configured({ password_policy: "corp" });
    expect((await get("config")).json.data).toMatchObject({ password_policy: "corp", length: 0, formatter: "" });
    await post("rotate-role/r");
    expect((await get("creds/r")).json.data.current_password).toMatch(/^[A-Za-z0-9]{20}$/);
  });
});

describe("roles and credentials", () => {
  test("a role needs an existing account; creds bind, rotation invalidates the previous password", async () => {
    await seedAccounts("svc", "other");
    await configured({ ttl: 3600 });
    expect((await post("roles/r", { service_account_name: "ghost" })).json.errors).toEqual(['service account "ghost" does not exist in the directory']);
    expect((await post("roles/r", {})).json.errors).toEqual(["missing service_account_name"]);
    expect((await post("roles/r", { service_account_name: "svc", ttl: "30m" })).status).toBe(204);
    const role = (await get("roles/r")).json.data;
    expect(role).toEqual({ service_account_name: "svc", ttl: 1800, last_service_rotation: expect.any(String), password_last_set: expect.any(String) });
    expect((await list("roles")).json.data.keys).toEqual(["r"]);
    expect((await get("roles")).json.data.keys).toEqual(["r"]);

    const first = (await get("creds/r")).json.data;
    expect(first.username).toBe("svc");
    expect(await binds("svc", first.current_password)).toBe(true);
    expect((await get("creds/r")).json.data.current_password).toBe(first.current_password);

    expect((await post("rotate-role/r")).status).toBe(204);
    const second = (await get("creds/r")).json.data;
    expect(second.current_password).not.toBe(first.current_password);
    expect(second.last_password).toBe(first.current_password);
    expect(await binds("svc", second.current_password)).toBe(true);
    expect(await binds("svc", first.current_password)).toBe(false);

    expect((await post("roles/r2", { service_account_name: "svc" })).json.errors).toEqual(['service account "svc" is already managed by role "r"']);
    expect((await del("roles/r")).status).toBe(204);
    expect((await get("roles/r")).status).toBe(404);
    expect((await del("roles/r")).status).toBe(204);
  });

  test("a role ttl above the config max_ttl is refused; a password past its ttl is rotated on the next creds read", async () => {
    await seedAccounts("svc");
    await configured({ ttl: 3600, max_ttl: 7200 });
    expect((await post("roles/r", { service_account_name: "svc", ttl: 7201 })).json.errors).toEqual(["ttl (7201s) must not exceed the configured max_ttl (7200s)"]);
    await post("roles/r", { service_account_name: "svc" });
    const before = (await get("creds/r")).json.data.current_password;
    await advance(3_540_000);
    expect((await get("creds/r")).json.data.current_password, "within its ttl the password stays").toBe(before);
    await advance(120_000);
    const after = (await get("creds/r")).json.data;
    expect(after.current_password).not.toBe(before);
    expect(after.last_password).toBe(before);
  });

  test("a password changed in the directory behind the service's back is rotated on the next creds read", async () => {
    await seedAccounts("svc");
    await configured({ ttl: 3600, last_rotation_tolerance: "0s" });
    await post("roles/r", { service_account_name: "svc" });
    // Set later than the service set it: the directory's time stamp is on the emulator's clock.
    await advance(1_000);
    await controlResponse(emu, "POST", "/directory/accounts", { accounts: [{ name: "svc", password: "changed-by-hand" }] });
    const creds = (await get("creds/r")).json.data;
    expect(creds.current_password).not.toBe("changed-by-hand");
    expect(await binds("svc", creds.current_password)).toBe(true);
  });

  test("without a config, role and library calls say so", async () => {
    expect((await post("roles/r", { service_account_name: "svc" })).json.errors[0]).toMatch(/not configured/);
    expect((await post("rotate-root")).json.errors[0]).toMatch(/not configured/);
  });
});

describe("rotate-root", () => {
  test("204; the service still binds with the new password and the old one stops working; concurrent calls each rotate", async () => {
    await configured();
    expect((await post("rotate-root")).status).toBe(204);
    expect(await binds(CONFIG.binddn, CONFIG.bindpass)).toBe(false);
    expect((await get("rotate-root")).status).toBe(204);
    // The built-in directory does its work without waiting on anything, so one rotation ends
    // before the next request is read: none finds another in progress.
    const results = await Promise.all([post("rotate-root"), post("rotate-root"), post("rotate-root")]);
    expect(results.map((r) => r.status)).toEqual([204, 204, 204]);
    expect((await get("config")).text).not.toMatch(/bindpass/);
  });

  test("while a rotation waits on the directory, another answers 200 with the warning and starts none", async () => {
    // A server that accepts connections and never answers: the engine picks LDAP (config only
    // opens a connection), and the first rotation waits at its bind until the connection is cut.
    const held: net.Socket[] = [];
    const server = net.createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      await configured({ url: `ldap://127.0.0.1:${(server.address() as net.AddressInfo).port}` });
      const probes = held.length;
      const first = post("rotate-root");
      while (held.length === probes) await new Promise((r) => setImmediate(r));
      const second = await post("rotate-root");
      expect([second.status, second.json.warnings]).toEqual([200, ["Root password rotation is already in progress."]]);
      expect(held.length - probes, "connections of the rotations: the first only").toBe(1);
      for (const socket of held) socket.destroy();
      expect((await first).status).toBe(500);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("library", () => {
  test("create checks in (rotates) every account; read; status; list", async () => {
    await seedAccounts("a", "b");
    await configured();
    const before = (await controlResponse(emu, "GET", "/directory")).json.accounts;
    await advance(1_000);
    await librarySet("s", ["a", "b"], { ttl: "1h", max_ttl: "2h" });
    const after = (await controlResponse(emu, "GET", "/directory")).json.accounts;
    for (let i = 0; i < 2; i++) expect(after[i].password_last_set > before[i].password_last_set).toBe(true);
    expect((await get("library/s")).json.data).toEqual({ service_account_names: ["a", "b"], ttl: 3600, max_ttl: 7200, disable_check_in_enforcement: false });
    expect((await get("library/s/status")).json.data).toEqual({ a: { available: true }, b: { available: true } });
    expect((await list("library")).json.data.keys).toEqual(["s"]);
  });

  test("defaults 24h; max_ttl below ttl, missing and shared accounts are refused", async () => {
    await seedAccounts("a", "b", "c");
    await configured();
    await librarySet("s", ["a"]);
    expect((await get("library/s")).json.data).toMatchObject({ ttl: 86400, max_ttl: 86400 });
    const res = await post("library/t", { service_account_names: ["a", "ghost"], ttl: "2h", max_ttl: "1h" });
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual(expect.arrayContaining(["max_ttl (3600s) must not be less than ttl (7200s)", 'service account "a" is already managed by another set ("s")']));
    expect((await post("library/t", { service_account_names: "ghost" })).json.errors).toEqual(['service account "ghost" does not exist in the directory']);
    expect((await get("library/t")).status).toBe(404);
    expect((await post("library/u", { service_account_names: [] })).json.errors[0]).toMatch(/missing service_account_names/);
  });

  test("check-out takes the first available account in set order; the password binds; none left is 400", async () => {
    await seedAccounts("a", "b");
    await configured();
    await librarySet("s", ["b", "a"], { ttl: "1h" });
    const first = await post("library/s/check-out", { name: "s" });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ renewable: true, lease_duration: 3600, data: { service_account_name: "b" } });
    expect(first.json.lease_id).toMatch(/^directory\/library\/s\/check-out\/.+/);
    expect(await binds("b", first.json.data.password)).toBe(true);
    const second = await post("library/s/check-out", { ttl: "10m" });
    expect(second.json).toMatchObject({ lease_duration: 600, data: { service_account_name: "a" } });
    const none = await post("library/s/check-out", {});
    expect(none.status).toBe(400);
    expect(none.json.errors).toEqual(["No service accounts available for check-out."]);
    const status = (await get("library/s/status")).json.data;
    expect(status.a).toEqual({ available: false, borrower_client_token: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/), borrower_entity_id: "" });
    expect(JSON.stringify(status)).not.toContain(emu.tokens.secretsRoot);
  });

  test("a requested ttl above the set's is capped at the set's", async () => {
    await seedAccounts("a");
    await configured();
    await librarySet("s", ["a"], { ttl: "1h" });
    expect((await post("library/s/check-out", { ttl: "5h" })).json.lease_duration).toBe(3600);
  });

  test("check-in rotates the password; only the borrowing token may check in unless enforcement is off; manage forces", async () => {
    await seedAccounts("a");
    await configured();
    await librarySet("s", ["a"]);
    const out = await call("POST", api.url("library/s/check-out"), { headers: api.user(), body: {} });
    const password = out.json.data.password;
    const refused = await post("library/s/check-in", { service_account_names: ["a"] });
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0]).toMatch(/"a" cannot be checked in: it was checked out by another token/);
    expect(await binds("a", password)).toBe(true);
    const mine = await call("POST", api.url("library/s/check-in"), { headers: api.user(), body: {} });
    expect(mine.json.data).toEqual({ check_ins: ["a"] });
    expect(await binds("a", password)).toBe(false);
    // Already available: success, not listed.
    expect((await post("library/s/check-in", { service_account_names: "a" })).json.data).toEqual({ check_ins: [] });

    await call("POST", api.url("library/s/check-out"), { headers: api.user(), body: {} });
    const userManage = await call("POST", api.url("library/manage/s/check-in"), { headers: api.user(), body: {} });
    expect(userManage.status).toBe(403);
    expect((await post("library/manage/s/check-in", { service_account_names: ["a"] })).json.data).toEqual({ check_ins: ["a"] });

    await librarySet("s", ["a"], { disable_check_in_enforcement: true });
    await call("POST", api.url("library/s/check-out"), { headers: api.user(), body: {} });
    expect((await post("library/s/check-in", {})).json.data).toEqual({ check_ins: ["a"] });
    expect((await post("library/s/check-in", { service_account_names: ["zed"] })).json.errors).toEqual(['service account "zed" is not a member of library set "s"']);
  });

  test("lease expiry checks the account in and rotates it", async () => {
    await seedAccounts("a");
    await configured();
    await librarySet("s", ["a"], { ttl: "1h" });
    const out = (await post("library/s/check-out", {})).json;
    expect(out.lease_duration).toBe(3600);
    await advance(3_540_000);
    expect((await get("library/s/status")).json.data, "within its lease the account stays out").toEqual({ a: { available: false, borrower_client_token: expect.any(String), borrower_entity_id: "" } });
    await advance(120_000);
    expect((await get("library/s/status")).json.data).toEqual({ a: { available: true } });
    expect(await binds("a", out.data.password)).toBe(false);
  });

  test("sets update in place; a checked-out account cannot leave; a set with loans cannot be deleted", async () => {
    await seedAccounts("a", "b");
    await configured();
    await librarySet("s", ["a"]);
    await post("library/s/check-out", {});
    await librarySet("s", ["a", "b"]);
    expect((await post("library/s/check-out", {})).json.data.service_account_name).toBe("b");
    expect((await post("library/s", { service_account_names: ["b"] })).json.errors).toEqual(['service account "a" is checked out; check it in before removing it from the set']);
    const refused = await del("library/s");
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0]).toMatch(/has checked-out accounts \(a, b\)/);
    await post("library/manage/s/check-in", { service_account_names: ["a", "b"] });
    expect((await del("library/s")).status).toBe(204);
    expect((await get("library/s")).status).toBe(404);
    expect((await list("library")).status).toBe(404);
  });

  test("names such as __proto__ and toString are ordinary set, role and account names", async () => {
    await seedAccounts("__proto__", "toString");
    await configured();
    await librarySet("__proto__", ["toString"]);
    expect((await post("roles/constructor", { service_account_name: "__proto__" })).status).toBe(204);
    expect((await get("library/__proto__")).json.data.service_account_names).toEqual(["toString"]);
    expect((await get("library/toString")).status).toBe(404);
    expect((await get("roles/toString")).status).toBe(404);
    expect((await get("creds/constructor")).json.data.username).toBe("__proto__");
    expect((await post("roles/x", { service_account_name: "hasOwnProperty" })).json.errors).toEqual(['service account "hasOwnProperty" does not exist in the directory']);
  });
});

describe("control and persistence", () => {
  const files = useStateFile("svc-dir-");
  test("accounts, config and loans survive a restart; the state file holds no account password of the built-in directory", async () => {
    const a = await files.start();
        const api2 = secretsApi(a, "directory/");
    await controlResponse(a, "POST", "/directory/accounts", { accounts: [{ name: "a", password: "seeded-password-4f1e" }] });
    await api2.post("config", CONFIG);
    await api2.post("library/s", { service_account_names: ["a"] });
    const out = (await api2.post("library/s/check-out", {})).json.data;
    await a.close();
    // The built-in directory keeps salted hashes, like a real one.
    expect(readFileSync(files.path, "utf8")).not.toContain("seeded-password-4f1e");
    const b = await files.start();
    const api3 = secretsApi(b, "directory/");
    expect((await api3.get("library/s/status")).json.data.a.available).toBe(false);
    const bind = await call("POST", `${b.controlUrl}/directory/bind`, { body: { name: "a", password: out.password } });
    expect(bind.json.ok).toBe(true);
    expect((await call("POST", `${b.controlUrl}/directory/accounts`, { body: { mount: "transform", accounts: ["x"] } })).status).toBe(400);
  });
});

describe("persistence of rotations made by reads", () => {
  const files = useStateFile("svc-dir-get-");
  test("a password rotated by GET creds (ttl passed) is in the state file", async () => {
    const a = await files.start();
    const api2 = secretsApi(a, "directory/");
    await call("POST", `${a.controlUrl}/directory/accounts`, { body: { accounts: ["svc"] } });
    await api2.post("config", { ...CONFIG, ttl: 1 });
    await api2.post("roles/r", { service_account_name: "svc" });
    expect((await call("POST", `${a.controlUrl}/clock/advance`, { body: { ms: 2_000 } })).status).toBe(200);
    const rotated = (await api2.get("creds/r")).json.data.current_password;
    // Written within the durability window; close() flushes it.
    await a.close();
    const saved = readStateFile(files.path) as any;
    expect(saved.data.secrets.mounts.directory.objects.managed.svc.password).toBe(rotated);
  });
});

describe("concurrent check-ins", () => {
  test("two check-ins of one loan: exactly one lists the account", async () => {
    await seedAccounts("a");
    await configured();
    await librarySet("s", ["a"], { disable_check_in_enforcement: true });
    await post("library/s/check-out", {});
    const [x, y] = await Promise.all([post("library/s/check-in", { service_account_names: ["a"] }), post("library/s/check-in", { service_account_names: ["a"] })]);
    expect([...x.json.data.check_ins, ...y.json.data.check_ins]).toEqual(["a"]);
  });
});
