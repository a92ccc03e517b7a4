import { describe, expect, test } from "vitest";
import { useSlapd, setPassword } from "../support/slapd";
import { secretsApi } from "./helpers";
import { controlResponse, useEmulator } from "../support/emulator";

/** The directory engine against a real OpenLDAP server: every password is proven by binding to it. */
const { slapd } = useSlapd();
const { emu } = useEmulator();
const { post, get, del } = secretsApi(emu, "directory/");

async function configure(extra: Record<string, unknown> = {}) {
  const s = slapd();
  const res = await post("config", { url: s.url, binddn: s.adminDn, bindpass: s.adminPassword, userdn: s.usersDn, length: 24, ...extra });
  expect(res.status, res.text).toBe(204);
  expect((await controlResponse(emu, "GET", "/directory")).json.backend).toBe("ldap");
}

let n = 0;
/** Fresh user names per test: the directory lives for the whole file while the emulator is reset. */
const names = (...base: string[]) => {
  n += 1;
  return base.map((b) => `${b}${n}`);
};

describe("directory engine on a real OpenLDAP server", () => {
  test("role credentials bind; rotate-role makes the previous password stop working", async () => {
    const [svc] = names("svc");
    await slapd().addUsers([svc]);
    await configure();
    expect((await post("roles/r", { service_account_name: "nobody-here" })).json.errors).toEqual(['service account "nobody-here" does not exist in the directory']);
    expect((await post("roles/r", { service_account_name: svc })).status).toBe(204);
    expect(await slapd().binds(slapd().userDn(svc), "initial-user-password")).toBe(false);
    const first = (await get("creds/r")).json.data;
    expect(first.current_password).toMatch(/^\?@09AZ[A-Za-z0-9]{18}$/);
    expect(await slapd().binds(slapd().userDn(svc), first.current_password)).toBe(true);
    expect((await post("rotate-role/r")).status).toBe(204);
    const second = (await get("creds/r")).json.data;
    expect(await slapd().binds(slapd().userDn(svc), second.current_password)).toBe(true);
    expect(await slapd().binds(slapd().userDn(svc), first.current_password)).toBe(false);
  });

  test("an account given as a DN works too; check-out binds, check-in rotates it away", async () => {
    const [a, b] = names("lib-a", "lib-b");
    await slapd().addUsers([a, b]);
    await configure();
    const res = await post("library/s", { service_account_names: [a, slapd().userDn(b)], ttl: "1h" });
    expect(res.status, res.text).toBe(204);
    expect(await slapd().binds(slapd().userDn(a), "initial-user-password")).toBe(false);
    const out = (await post("library/s/check-out", {})).json;
    expect(out.data.service_account_name).toBe(a);
    expect(await slapd().binds(slapd().userDn(a), out.data.password)).toBe(true);
    expect((await post("library/s/check-in", { service_account_names: [a] })).json.data).toEqual({ check_ins: [a] });
    expect(await slapd().binds(slapd().userDn(a), out.data.password)).toBe(false);
    const second = (await post("library/s/check-out", {})).json;
    expect(second.data.service_account_name).toBe(a);
    expect(await slapd().binds(slapd().userDn(a), second.data.password)).toBe(true);
    const third = (await post("library/s/check-out", {})).json;
    expect(await slapd().binds(slapd().userDn(b), third.data.password)).toBe(true);
  });

  test("rotate-root: the service still binds with its new password, the old bind password no longer works", async () => {
    const [svc] = names("root-svc");
    await slapd().addUsers([svc]);
    await configure();
    expect((await post("rotate-root")).status).toBe(204);
    expect(await slapd().binds(slapd().adminDn, slapd().adminPassword)).toBe(false);
    // Everything below needs the service to bind with the password only it knows.
    expect((await post("roles/after-root", { service_account_name: svc })).status).toBe(204);
    const creds = (await get("creds/after-root")).json.data;
    expect(await slapd().binds(slapd().userDn(svc), creds.current_password)).toBe(true);
    // Put the known password back for the other tests of the file.
    await setPassword(slapd(), slapd().adminDn, slapd().adminPassword);
  });

  test("a wrong bind password is a 500 naming the directory's error, and nothing is recorded", async () => {
    const [svc] = names("wrong");
    await slapd().addUsers([svc]);
    await configure({ bindpass: "not-the-password" });
    const res = await post("roles/r", { service_account_name: svc });
    expect(res.status).toBe(500);
    expect(res.json.errors[0]).toMatch(/^directory error: directory ldap:\/\/127.0.0.1:\d+: Invalid Credentials \(LDAP result 49\)$/);
    expect(res.text).not.toContain("not-the-password");
    expect((await get("roles/r")).status).toBe(404);
  });

  test("a list of URLs: the unreachable first one is skipped", async () => {
    const [svc] = names("multi");
    await slapd().addUsers([svc]);
    await configure({ url: `ldap://127.0.0.1:1,${slapd().url}`, connection_timeout: 2 });
    expect((await post("roles/r", { service_account_name: svc })).status).toBe(204);
    const pw = (await get("creds/r")).json.data.current_password;
    expect(await slapd().binds(slapd().userDn(svc), pw)).toBe(true);
    const bind = await controlResponse(emu, "POST", "/directory/bind", { name: slapd().userDn(svc), password: pw });
    expect(bind.json.ok).toBe(true);
    await del("roles/r");
  });
});
