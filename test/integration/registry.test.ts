import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { redact } from "../../src/http/redact";
import * as registry from "../../src/secrets/registry";
import { checked, created, failures, type Props } from "../support/calls";
import { control, requests, secretsApi, useEmulator } from "../support/emulator";
import { rejectionOf } from "../support/errors";

const { emu } = useEmulator();
const ACCESS = "secrets:RegistryAccessConfig";
const ROLE = "secrets:RegistryRole";
const POLICY = Buffer.from('service "" { policy = "read" }').toString("base64");

const raw = (method: string, path: string, body?: unknown) => secretsApi(emu, method, path, body);
const managementToken = async () => (await control<{ token: string }>(emu, "POST", "/registry/tokens", { type: "management" })).token;

describe("registry AccessConfig", () => {
  it("creates with a management token, never reads it back, updates and deletes", async () => {
    const token = await managementToken();
    const { id, outs } = await created(ACCESS, { address: "127.0.0.1:8500", token });
    expect(id).toBe("registry/config/access");
    // The service answered its GET after the write: a later 404 proves the config gone (__readable).
    expect(outs).toEqual({ serverUrl: expect.any(String), mount: "registry", address: "127.0.0.1:8500", scheme: "http", token, tokenVersion: 1, __readable: true });
    const read = (await call(ACCESS, "read", [id, outs])) as { props: Props };
    expect(read.props).toEqual(outs);
    expect(await call(ACCESS, "diff", [id, read.props, await checked(ACCESS, { address: "127.0.0.1:8500", token })])).toMatchObject({ changes: false });
    const news = await checked(ACCESS, { address: "registry:8501", scheme: "https", token }, outs);
    const { outs: after } = (await call(ACCESS, "update", [id, outs, news])) as { outs: Props };
    expect(after).toMatchObject({ address: "registry:8501", scheme: "https" });
    await call(ACCESS, "delete", [id, after]);
    expect((await raw("GET", "/registry/config/access")).status).toBe(404);
  });

  it("a client token is refused by the service, and the message does not hold it", async () => {
    const client = (await control<{ token: string }>(emu, "POST", "/registry/tokens", { type: "client" })).token;
    const err = await rejectionOf(created(ACCESS, { address: "h:1", token: client }));
    expect(err.message).toMatch(/management-type registry ACL token/);
    expect(err.message).not.toContain(client);
  });

  it("check names bad properties; client cert and key go together", async () => {
    await control(emu, "DELETE", "/requests");
    expect(await failures(ACCESS, { address: "no-port", scheme: "ftp", token: "", clientCert: "-----BEGIN CERTIFICATE-----\nx" })).toEqual({
      address: "must be host:port", scheme: "must be http or https", token: expect.stringMatching(/must not be empty/), clientKey: "is required with clientCert",
    });
    expect(await requests(emu)).toEqual([]);
  });
});

describe("registry Role", () => {
  it("1.4+ fields: creates, reads back without a diff, updates in place; delete of a missing role succeeds", async () => {
    const { id, outs } = await created(ROLE, { name: "reader", policy: POLICY, policies: ["b", "a"], ttl: "1h", maxTtl: 7200 });
    expect(outs).toEqual({ serverUrl: expect.any(String), name: "reader", mount: "registry", tokenType: "client", policy: POLICY, policies: ["a", "b"], local: false, ttl: "1h", maxTtl: 7200 });
    const read = (await call(ROLE, "read", [id, outs])) as { props: Props };
    expect(read.props).toEqual(outs);
    const same = await checked(ROLE, { name: "reader", policy: POLICY, policies: ["a", "b"], ttl: "1h", maxTtl: 7200 }, outs);
    expect(await call(ROLE, "diff", [id, read.props, same])).toMatchObject({ changes: false });
    const news = await checked(ROLE, { name: "reader", tokenType: "management", local: true }, outs);
    const { outs: after } = (await call(ROLE, "update", [id, outs, news])) as { outs: Props };
    expect(after).toEqual({ serverUrl: expect.any(String), name: "reader", mount: "registry", tokenType: "management", local: true });
    await call(ROLE, "delete", [id, after]);
    await call(ROLE, "delete", [id, after]);
    expect((await raw("GET", "/registry/roles/reader")).status).toBe(404);
  });

  it("the older variant: lease read back as duration text is no diff", async () => {
    const { id, outs } = await created(ROLE, { name: "old", lease: 90, policies: ["p"] });
    expect((await raw("GET", "/registry/roles/old")).body.data.lease).toBe("1m30s");
    expect(outs).toMatchObject({ lease: 90, policies: ["p"] });
    const read = (await call(ROLE, "read", [id, outs])) as { props: Props };
    expect(await call(ROLE, "diff", [id, read.props, await checked(ROLE, { name: "old", lease: 90, policies: ["p"] })])).toMatchObject({ changes: false });
  });

  it("check: a client token needs a policy; policy must decode; lease excludes ttl", async () => {
    expect(await failures(ROLE, { name: "r" })).toEqual({ policies: "a client token needs policy or policies (or use tokenType management)" });
    expect(await failures(ROLE, { name: "r", policy: "%%%" })).toEqual({ policy: "must be a base64-encoded ACL policy (it does not decode)" });
    expect(await failures(ROLE, { name: "r", tokenType: "management", lease: "1h", ttl: 60 })).toEqual({ lease: expect.stringMatching(/not both/) });
  });

  it("getRegistryCredentials makes a new token per call with the role's lease; get and list", async () => {
    await created(ACCESS, { address: "127.0.0.1:8500", token: await managementToken() });
    await created(ROLE, { name: "m", tokenType: "management", ttl: "30m" });
    const a = await registry.getRegistryCredentials({ role: "m" });
    const b = await registry.getRegistryCredentials({ role: "m" });
    expect(a.token).not.toBe(b.token);
    expect(a).toMatchObject({ leaseDuration: 1800, leaseId: expect.stringMatching(/^registry\/creds\/m\//) });
    // Generated by the server and declared secret: redacted from any later message.
    for (const token of [a.token, b.token]) expect(redact(`echo ${token}`)).toBe("echo [REDACTED]");
    expect(redact(a.accessor)).toBe(a.accessor);
    expect(await registry.getRegistryRole({ role: "m" })).toMatchObject({ tokenType: "management", ttl: 1800, lease: "30m0s" });
    expect(await registry.listRegistryRoles()).toEqual({ keys: ["m"] });
    expect((await rejectionOf(registry.getRegistryCredentials({ role: "ghost" }))).message).toMatch(/role "ghost" does not exist/);
  });
});
