import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { redact } from "../../src/http";
import * as directory from "../../src/secrets/directory";
import { checked, created, failures, type Props, type Res } from "../support/calls";
import { control, requests, secretsApi, useEmulator } from "../support/emulator";
import { rejectionOf } from "../support/errors";

const { emu } = useEmulator();
const CONFIG = "secrets:DirectoryConfig";
const ROLE = "secrets:DirectoryRole";
const SET = "secrets:DirectoryLibrarySet";
const OUT = "secrets:DirectoryCheckOut";
const BINDDN = "cn=admin,dc=example,dc=org";
const BINDPASS = "Ib7Cq1Zd4Wm8Tx3K";

const raw = (method: string, path: string, body?: unknown) => secretsApi(emu, method, path, body);
const binds = async (name: string, password: string) => (await control<{ ok: boolean }>(emu, "POST", "/directory/bind", { name, password })).ok;
const seed = (...accounts: string[]) => control(emu, "POST", "/directory/accounts", { accounts });

async function config(extra: Props = {}): Promise<Res> {
  return created(CONFIG, { binddn: BINDDN, bindpass: BINDPASS, url: "ldap://127.0.0.1:1", ...extra });
}

describe("directory Config", () => {
  it("creates with defaults, reads without the bind password, keeps duration forms, and deletes", async () => {
    const { id, outs } = await config({ ttl: "24h", maxTtl: 172800 });
    expect(id).toBe("directory/config");
    expect(outs).toMatchObject({ mount: "directory", binddn: BINDDN, bindpass: BINDPASS, url: "ldap://127.0.0.1:1", ttl: "24h", maxTtl: 172800, connectionTimeout: 30, requestTimeout: 90, lastRotationTolerance: 5, tlsMinVersion: "tls12" });
    expect(outs).not.toHaveProperty("length");
    expect((await raw("GET", "/directory/config")).body.data.ttl).toBe(86400);
    const read = (await call(CONFIG, "read", [id, outs])) as { props: Props };
    expect(read.props).toEqual(outs);
    expect(await call(CONFIG, "diff", [id, read.props, await checked(CONFIG, { binddn: BINDDN, bindpass: BINDPASS, url: "ldap://127.0.0.1:1", ttl: "24h", maxTtl: 172800 })])).toMatchObject({ changes: false });
    // Another form of the same seconds is one in-place update, after which the new form is kept.
    const reformed = await checked(CONFIG, { binddn: BINDDN, bindpass: BINDPASS, url: "ldap://127.0.0.1:1", ttl: 86400, maxTtl: "48h" });
    const { outs: updated } = (await call(CONFIG, "update", [id, read.props, reformed])) as { outs: Props };
    expect(updated).toMatchObject({ ttl: 86400, maxTtl: "48h" });
    const again = (await call(CONFIG, "read", [id, updated])) as { props: Props };
    expect(await call(CONFIG, "diff", [id, again.props, reformed])).toMatchObject({ changes: false });
    await call(CONFIG, "delete", [id, outs]);
    expect((await raw("GET", "/directory/config")).status).toBe(404);
    expect(await call(CONFIG, "read", [id, outs])).toEqual({ id: "", props: {} });
  });

  it("sends the bind password only when it changed in the program (rotate-root keeps working)", async () => {
    const { id, outs } = await config();
    await directory.rotateRoot();
    expect(await binds(BINDDN, BINDPASS)).toBe(false);
    const args = { binddn: BINDDN, bindpass: BINDPASS, url: "ldap://127.0.0.1:1", ttl: "1h" };
    const news = await checked(CONFIG, args, outs);
    const { outs: after } = (await call(CONFIG, "update", [id, outs, news])) as { outs: Props };
    expect(after.ttl).toBe("1h");
    expect(after.bindpass).toBe(BINDPASS);
    // Had the old password been re-sent, it would bind again.
    expect(await binds(BINDDN, BINDPASS)).toBe(false);
    const changed = await checked(CONFIG, { ...args, bindpass: "a-new-bind-password" }, after);
    expect([news.bindpassVersion, changed.bindpassVersion]).toEqual([1, 2]);
    await call(CONFIG, "update", [id, after, changed]);
    expect(await binds(BINDDN, "a-new-bind-password")).toBe(true);
  });

  it("check names each bad property and makes no request; unknown values are skipped", async () => {
    await control(emu, "DELETE", "/requests");
    expect(await failures(CONFIG, { binddn: "", bindpass: "x", url: "http://h", length: 10, formatter: "no placeholder", ttl: "soon", tlsMinVersion: "ssl3" })).toEqual({
      binddn: expect.stringMatching(/must not be empty/), url: expect.stringMatching(/ldap:\/\//), length: "must be at least 14",
      formatter: "must contain {{PASSWORD}} exactly once", ttl: expect.stringMatching(/duration/), tlsMinVersion: expect.stringMatching(/one of/),
    });
    expect(await failures(CONFIG, { binddn: "x", bindpass: "y", passwordPolicy: "corp", length: 20 })).toEqual({ length: "is mutually exclusive with passwordPolicy" });
    const U = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
    expect(await failures(CONFIG, { binddn: U, bindpass: U, ttl: U, length: U, insecureTls: U })).toEqual({});
    expect(await requests(emu)).toEqual([]);
  });

  it("refuses to take over an existing config unless adopt is set", async () => {
    await config();
    const err = await rejectionOf(config());
    expect(err.message).toMatch(/directory\/config already exists\. If a pulumi up that was stopped .*npx pulumi-svc-recover.*--cleared.*If you renamed this resource in your program, give it aliases: .*deleteBeforeReplace: false.*to manage the existing .* set adopt: true/);
    expect(err.message).not.toContain(BINDPASS);
    const adopted = await config({ adopt: true });
    expect(adopted.id).toBe("directory/config");
  });
});

describe("directory Role and credentials", () => {
  it("creates a role, returns credentials that bind, rotates, and deletes", async () => {
    await seed("svc-app");
    await config();
    const { id, outs } = await created(ROLE, { name: "app", serviceAccountName: "svc-app", ttl: "12h" });
    expect(id).toBe("directory/roles/app");
    expect(outs).toMatchObject({ name: "app", serviceAccountName: "svc-app", ttl: "12h", lastServiceRotation: expect.any(String), passwordLastSet: expect.any(String) });
    const creds = await directory.getCredentials({ role: "app" });
    expect(creds.username).toBe("svc-app");
    expect(await binds("svc-app", creds.currentPassword)).toBe(true);
    expect(await directory.rotateRole({ name: "app" })).toEqual({ rotated: true, warnings: [] });
    const after = await directory.getCredentials({ role: "app" });
    expect(after.lastPassword).toBe(creds.currentPassword);
    expect(await binds("svc-app", creds.currentPassword)).toBe(false);
    expect(await directory.listRoles()).toEqual({ keys: ["app"] });
    // A role without a ttl of its own follows the config: no diff from the config's value.
    const plain = await created(ROLE, { name: "plain", serviceAccountName: (await seed("svc-plain"), "svc-plain") });
    expect(plain.outs).not.toHaveProperty("ttl");
    await call(ROLE, "delete", [id, outs]);
    expect(await directory.listRoles()).toEqual({ keys: ["plain"] });
  });

  it("a missing service account fails the create with the service's message", async () => {
    await config();
    const err = await rejectionOf(created(ROLE, { name: "ghost", serviceAccountName: "nobody" }));
    expect(err.message).toMatch(/service account "nobody" does not exist in the directory/);
  });
});

describe("directory LibrarySet and CheckOut", () => {
  it("updates the accounts in place, keeps the program's order, and normalises durations", async () => {
    await seed("a", "b", "c");
    await config();
    const { id, outs } = await created(SET, { name: "pool", serviceAccountNames: ["b", "a"], ttl: "1h", maxTtl: 7200 });
    expect(outs).toMatchObject({ serviceAccountNames: ["b", "a"], ttl: "1h", maxTtl: 7200, disableCheckInEnforcement: false });
    const news = await checked(SET, { name: "pool", serviceAccountNames: ["b", "a", "c"], ttl: 3600, maxTtl: "2h" }, outs);
    const d = (await call(SET, "diff", [id, outs, news])) as { changes: boolean; replaces: string[] };
    expect(d).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs: after } = (await call(SET, "update", [id, outs, news])) as { outs: Props };
    expect(after).toMatchObject({ serviceAccountNames: ["b", "a", "c"], ttl: 3600, maxTtl: "2h" });
    expect(await directory.listLibrarySets()).toEqual({ keys: ["pool"] });
    expect(await failures(SET, { name: "x", serviceAccountNames: [], ttl: "2h", maxTtl: "1h" })).toEqual({
      serviceAccountNames: "must name at least one service account", maxTtl: "must not be less than ttl (7200s); 0 means unlimited",
    });
    expect(await failures(SET, { name: "x", serviceAccountNames: ["a", "a"] })).toEqual({ serviceAccountNames: "must not name an account twice" });
  });

  it("CheckOut borrows on create, the password binds and is rotated on delete; refresh drops an ended lease", async () => {
    await seed("a", "b");
    await config();
    await created(SET, { name: "pool", serviceAccountNames: ["a", "b"], ttl: "1h" });
    const first = await created(OUT, { setName: "pool", ttl: "30m" });
    expect(first.outs).toMatchObject({ serviceAccountName: "a", leaseDuration: 1800, leaseId: first.id, checkedOutAt: expect.any(String) });
    const password = first.outs.password as string;
    expect(await binds("a", password)).toBe(true);
    expect((await directory.getLibraryStatus({ setName: "pool" })).a.available).toBe(false);
    expect(await call(OUT, "read", [first.id, first.outs])).toEqual({ id: first.id, props: first.outs, inputs: expect.any(Object) });

    // Deleting the set while an account is out is refused by the service.
    const setErr = await rejectionOf(call(SET, "delete", ["directory/library/pool", { name: "pool", mount: "directory" }]));
    expect(setErr.message).toMatch(/checked-out accounts \(a\)/);

    await call(OUT, "delete", [first.id, first.outs]);
    expect(await binds("a", password)).toBe(false);
    expect((await directory.getLibraryStatus({ setName: "pool" })).a).toEqual({ available: true });

    // A lease that ended is gone on refresh, and delete then leaves the account alone.
    const ended = { ...first.outs, checkedOutAt: new Date(Date.now() - 3600_000).toISOString() };
    expect(await call(OUT, "read", [first.id, ended])).toEqual({ id: "", props: {} });
  });

  it("a set with no free account fails the create with a clear message", async () => {
    await seed("only");
    await config();
    await created(SET, { name: "one", serviceAccountNames: ["only"] });
    await created(OUT, { setName: "one" });
    const err = await rejectionOf(created(OUT, { setName: "one" }));
    expect(err.message).toMatch(/No service accounts available for check-out\. Every account of library set one is checked out/);
  });

  it("functions: checkOut, checkIn (only the borrower), manageCheckIn", async () => {
    await seed("a");
    await config();
    await created(SET, { name: "s", serviceAccountNames: ["a"] });
    const out = await directory.checkOut({ setName: "s", ttl: 60 });
    expect(out).toMatchObject({ serviceAccountName: "a", leaseDuration: 60 });
    expect(await binds("a", out.password)).toBe(true);
    expect(await directory.checkIn({ setName: "s" })).toEqual({ checkIns: ["a"] });
    expect(await binds("a", out.password)).toBe(false);
    expect(await directory.checkIn({ setName: "s", serviceAccountNames: ["a"] })).toEqual({ checkIns: [] });
    // Checked out by the root token: this (user) token may not check it in, nor use the manage path.
    await raw("POST", "/directory/library/s/check-out", {});
    expect((await rejectionOf(directory.checkIn({ setName: "s", serviceAccountNames: ["a"] }))).message).toMatch(/checked out by another token/);
    expect((await rejectionOf(directory.manageCheckIn({ setName: "s", serviceAccountNames: ["a"] }))).message).toMatch(/403|permission denied/);
    expect((await rejectionOf(directory.checkOut({ setName: "s", ttl: "later" }))).message).toMatch(/ttl/);
  });

  it("getLibraryStatus: the borrower's client token is redacted from messages and the Output form is secret", async () => {
    await seed("a", "b");
    await config();
    await created(SET, { name: "s", serviceAccountNames: ["a", "b"] });
    await directory.checkOut({ setName: "s" });
    const status = await directory.getLibraryStatus({ setName: "s" });
    expect(status.b).toEqual({ available: true });
    const token = status.a.borrowerClientToken!;
    expect(status.a).toMatchObject({ available: false, borrowerClientToken: expect.any(String) });
    expect(token.length).toBeGreaterThan(16);
    expect(redact(`a server echoed ${token} back`)).not.toContain(token);

    await pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: (a) => a.inputs }, "proj", "stack", false);
    const out = directory.getLibraryStatusOutput({ setName: "s" });
    expect(await (out as unknown as { isSecret: Promise<boolean> }).isSecret).toBe(true);
    expect(await new Promise((resolve) => out.apply(resolve))).toEqual(status);
  });
});
