// The directory engine's objects on field records (issue 23): a misspelt property is refused at
// check, or by a function before any request, with the nearest known name; the secrets the records
// declare (bind password, role credentials, check-out password, a borrower's client token) are
// redacted without a registration of their own; the derived lists are the ones written by hand before.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { redact } from "../../src/http/redact";
import {
  checkIn, checkOut, getConfig, getCredentials, getLibraryStatus, listLibrarySets, listRoles, manageCheckIn, rotateRole, rotateRoot,
} from "../../src/secrets/directory";
import { checkOutDefinition as out } from "../../src/secrets/directory/checkOut";
import { directoryConfigDefinition as config } from "../../src/secrets/directory/config";
import { librarySetDefinition as set } from "../../src/secrets/directory/librarySet";
import { directoryRoleDefinition as role } from "../../src/secrets/directory/role";

type Props = Record<string, unknown>;
type Failure = { property: string; reason: string };
const check = async (kind: string, news: Props) => ((await call(kind, "check", [{}, news])) as { failures: Failure[] }).failures;

// Answers the reads the functions below make; counts every request.
const SECRET = { current: "current-pw-4f1c2a9e", last: "last-pw-77d0b3c1", loan: "loan-pw-91ab3ce0", borrower: "borrower-token-5e6f7a8b" };
let server: http.Server;
let requests = 0;
const saved = { url: process.env.SVC_SECRETS_URL, token: process.env.SVC_SECRETS_TOKEN, retries: process.env.SVC_MAX_RETRIES };
let lent = false;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests++;
    const path = (req.url ?? "").replace(/^\/v1\//, "");
    const reply = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    req.resume();
    req.on("end", () => {
      if (path === "directory/creds/app") return reply(200, { data: { username: "svc-app", current_password: SECRET.current, last_password: SECRET.last } });
      if (path === "directory/library/pool/status") {
        return reply(200, { data: { a: lent ? { available: false, borrower_client_token: SECRET.borrower, borrower_entity_id: "" } : { available: true } } });
      }
      if (path === "directory/library/pool/check-out") {
        lent = true;
        return reply(200, { lease_id: "lease-1", lease_duration: 60, data: { service_account_name: "a", password: SECRET.loan } });
      }
      return reply(404, { errors: [] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.SVC_SECRETS_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  // No run of it spells a part of the secrets below (a check of a create reads the server, which registers it).
  process.env.SVC_SECRETS_TOKEN = "fixture-access-1";
  process.env.SVC_MAX_RETRIES = "0";
});

afterAll(async () => {
  for (const [k, v] of [["SVC_SECRETS_URL", saved.url], ["SVC_SECRETS_TOKEN", saved.token], ["SVC_MAX_RETRIES", saved.retries]] as const) {
    if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const binding = { binddn: "cn=admin,dc=example,dc=org", bindpass: "bind-pw-0c9d8e7f" };

describe("a misspelt property is refused at check, naming the nearest known one", () => {
  it("Config", async () => {
    expect(await check("secrets:DirectoryConfig", { ...binding, bindpas: "x" })).toContainEqual({ property: "bindpas", reason: "unknown property; did you mean bindpass?" });
    expect(await check("secrets:DirectoryConfig", { ...binding, maxTTL: 60 })).toContainEqual({ property: "maxTTL", reason: "unknown property; did you mean maxTtl?" });
  });

  it("Role", async () => {
    expect(await check("secrets:DirectoryRole", { name: "app", serviceAccountNam: "svc-app" }))
      .toContainEqual({ property: "serviceAccountNam", reason: "unknown property; did you mean serviceAccountName?" });
  });

  it("LibrarySet", async () => {
    expect(await check("secrets:DirectoryLibrarySet", { name: "pool", serviceAccountNames: ["a"], disableCheckinEnforcement: true }))
      .toContainEqual({ property: "disableCheckinEnforcement", reason: "unknown property; did you mean disableCheckInEnforcement?" });
  });

  it("CheckOut", async () => {
    expect(await check("secrets:DirectoryCheckOut", { setName: "pool", soleBorower: true }))
      .toContainEqual({ property: "soleBorower", reason: "unknown property; did you mean soleBorrower?" });
    expect(await check("secrets:DirectoryCheckOut", { setname: "pool" })).toContainEqual({ property: "setname", reason: "unknown property; did you mean setName?" });
  });

  it("the directory functions, before any request", async () => {
    const before = requests;
    await expect(getConfig({ mnt: "directory" } as never)).rejects.toThrow(/getConfig: invalid input: mnt: unknown property; did you mean mount\?/);
    await expect(getCredentials({ roles: "app" } as never)).rejects.toThrow(/roles: unknown property; did you mean role\?/);
    await expect(listRoles({ mounts: "directory" } as never)).rejects.toThrow(/mounts: unknown property; did you mean mount\?/);
    await expect(listLibrarySets({ mounts: "directory" } as never)).rejects.toThrow(/mounts: unknown property; did you mean mount\?/);
    await expect(getLibraryStatus({ setname: "pool" } as never)).rejects.toThrow(/setname: unknown property; did you mean setName\?/);
    await expect(checkOut({ setName: "pool", tll: 60 } as never)).rejects.toThrow(/checkOut: invalid input: tll: unknown property; did you mean ttl\?/);
    await expect(checkIn({ setName: "pool", serviceAccountName: ["a"] } as never)).rejects.toThrow(/serviceAccountName: unknown property; did you mean serviceAccountNames\?/);
    await expect(manageCheckIn({ setName: "pool", serviceAccountName: ["a"] } as never)).rejects.toThrow(/serviceAccountName: unknown property; did you mean serviceAccountNames\?/);
    await expect(rotateRoot({ mont: "directory" } as never)).rejects.toThrow(/mont: unknown property; did you mean mount\?/);
    await expect(rotateRole({ nam: "app" } as never)).rejects.toThrow(/nam: unknown property; did you mean name\?/);
    expect(requests - before).toBe(0);
  });
});

describe("the records give the lists the definitions had by hand", () => {
  const sorted = (l: readonly string[] | undefined) => [...(l ?? [])].sort();

  it("Config", () => {
    expect(config.defaults).toEqual({
      mount: "directory", url: "ldap://127.0.0.1", userdn: "", upndomain: "", certificate: "", insecureTls: false, starttls: false,
      tlsMinVersion: "tls12", tlsMaxVersion: "tls13", ttl: 0, maxTtl: 0, passwordPolicy: "", formatter: "", connectionTimeout: 30,
      requestTimeout: 90, lastRotationTolerance: 5,
    });
    expect([config.immutable, config.identity, config.secrets, config.writeOnly, config.local, config.outputs])
      .toEqual([["mount"], ["mount"], ["bindpass"], ["bindpass"], ["adopt"], []]);
  });

  it("Role", () => {
    expect(role.defaults).toEqual({ mount: "directory" });
    expect([sorted(role.immutable), sorted(role.identity), role.secrets, role.writeOnly, role.local, role.outputs])
      .toEqual([["mount", "name"], ["mount", "name"], [], [], ["adopt"], ["lastServiceRotation", "passwordLastSet"]]);
    expect(role.exclusive).toEqual({ keys: ["serviceAccountName"], scope: ["mount"] });
  });

  it("LibrarySet", () => {
    expect(set.defaults).toEqual({ mount: "directory", ttl: "24h", maxTtl: "24h", disableCheckInEnforcement: false });
    expect([sorted(set.immutable), sorted(set.identity), set.secrets, set.writeOnly, set.local, set.outputs])
      .toEqual([["mount", "name"], ["mount", "name"], [], [], ["adopt"], []]);
    expect(set.exclusive).toEqual({ keys: ["serviceAccountNames"], scope: ["mount"] });
  });

  it("CheckOut", () => {
    expect(out.defaults).toEqual({ mount: "directory" });
    expect([sorted(out.immutable), sorted(out.identity), out.secrets, out.writeOnly ?? [], out.local ?? []])
      .toEqual([["mount", "setName", "triggers", "ttl"], ["mount", "setName"], ["password"], [], []]);
    expect(sorted(out.outputs)).toEqual(["borrowerDigest", "checkedOutAt", "leaseDuration", "leaseId", "lostCheckOuts", "password", "serviceAccountName"]);
  });
});

describe("secrets are registered for redaction by their fields", () => {
  it("the bind password, from the inputs of any operation", async () => {
    const bindpass = "Kx8Tq2Zm5Wr9Lv4N";
    expect(redact(`bound with ${bindpass}`)).toContain(bindpass);
    await check("secrets:DirectoryConfig", { ...binding, bindpass });
    expect(redact(`bound with ${bindpass}`)).not.toContain(bindpass);
  });

  it("a role's passwords, a check-out's password and a borrower's client token, as soon as they arrive", async () => {
    const all = Object.values(SECRET);
    expect(all.filter((s) => redact(s).includes(s))).toEqual(all);
    expect(await getCredentials({ role: "app" })).toEqual({ username: "svc-app", currentPassword: SECRET.current, lastPassword: SECRET.last });
    expect(await checkOut({ setName: "pool" })).toEqual({ serviceAccountName: "a", password: SECRET.loan, leaseId: "lease-1", leaseDuration: 60 });
    expect((await getLibraryStatus({ setName: "pool" })).a).toEqual({ available: false, borrowerClientToken: SECRET.borrower, borrowerEntityId: "" });
    expect(all.filter((s) => redact(s).includes(s))).toEqual([]);
  });
});
