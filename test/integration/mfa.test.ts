import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import * as mfa from "../../src/secrets/mfa";
import { checked, created, type Props } from "../support/calls";
import { control, requests, secretsApi, useEmulator } from "../support/emulator";
import { rejectionOf } from "../support/errors";

const { emu } = useEmulator();
const MFA = "secrets:MfaDualFactorMethod";
const SECRET_KEY = "duo-secret-key-0a1b2c3d4e5f";
const INTEGRATION_KEY = "DIXXXXXXXXXXXXXXXXXX";
const base = { secretKey: SECRET_KEY, integrationKey: INTEGRATION_KEY, apiHostname: "api-1234abcd.example.com" };

const raw = (method: string, path: string, body?: unknown) => secretsApi(emu, method, path, body);

const methodIds = async (): Promise<string[]> => {
  const r = await raw("LIST", "/identity/mfa/method/dualfactor");
  return r.status === 404 ? [] : r.body.data.keys;
};

describe("mfa DualFactorMethod", () => {
  it("creates (server-assigned UUID), reads pushinfo back as pushInfo without a diff, updates in place and deletes", async () => {
    const { id, outs } = await created(MFA, { ...base, pushInfo: "from=pulumi", usernameFormat: "{{identity.entity.name}}@example.com" });
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(outs).toEqual({ ...base, type: "dualfactor", pushInfo: "from=pulumi", usernameFormat: "{{identity.entity.name}}@example.com", usePasscode: false, serverUrl: emu.secretsUrl, secretKeyVersion: 1, integrationKeyVersion: 1 });
    expect((await raw("GET", `/identity/mfa/method/dualfactor/${id}`)).body.data.pushinfo).toBe("from=pulumi");

    const read = (await call(MFA, "read", [id, outs])) as { props: Props };
    expect(read).toEqual({ id, props: outs, inputs: expect.any(Object) });
    const same = await checked(MFA, { ...base, pushInfo: "from=pulumi", usernameFormat: "{{identity.entity.name}}@example.com" }, read.props);
    expect(await call(MFA, "diff", [id, read.props, same])).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });

    const news = await checked(MFA, { ...base, secretKey: "duo-secret-key-rotated-99", usePasscode: true }, outs);
    expect(await call(MFA, "diff", [id, outs, news])).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs: after } = (await call(MFA, "update", [id, outs, news])) as { outs: Props };
    expect(after).toMatchObject({ secretKey: "duo-secret-key-rotated-99", usePasscode: true, secretKeyVersion: 2, integrationKeyVersion: 1 });
    expect(after).not.toHaveProperty("pushInfo");
    expect((await raw("GET", `/identity/mfa/method/dualfactor/${id}`)).body.data).toMatchObject({ pushinfo: "", use_passcode: true, username_format: "" });
    expect(await methodIds()).toEqual([id]);

    await call(MFA, "delete", [id, after]);
    expect((await raw("GET", `/identity/mfa/method/dualfactor/${id}`)).status).toBe(404);
  });

  it("refuses to delete a method a login enforcement uses, saying what to do, and deletes once it is free", async () => {
    const { id, outs } = await created(MFA, base);
    await control(emu, "POST", "/login-enforcements", { name: "admins", methodIds: [id] });
    const err = await rejectionOf(call(MFA, "delete", [id, outs]));
    expect(err.code).toBe("invalid_input");
    expect(err.message).toMatch(new RegExp(`^DELETE /identity/mfa/method/dualfactor/${id}: 400 Bad Request: .*admins.*; dual-factor method ${id} cannot be deleted while a login enforcement uses it: remove the method from the enforcement`));
    expect(err.message).not.toContain(SECRET_KEY);
    expect((await raw("GET", `/identity/mfa/method/dualfactor/${id}`)).status).toBe(200);

    await control(emu, "DELETE", "/login-enforcements/admins");
    await call(MFA, "delete", [id, outs]);
    expect((await raw("GET", `/identity/mfa/method/dualfactor/${id}`)).status).toBe(404);
  });

  it("does not create a duplicate when the create response is lost, and never adopts an older method", async () => {
    const older = await created(MFA, base);
    await control(emu, "POST", "/faults", { method: "POST", path: "/v1/identity/mfa/method/dualfactor", when: "after", drop: true, count: 1 });
    const { id } = await created(MFA, base);
    expect(id).not.toBe(older.id);
    expect((await methodIds()).sort()).toEqual([older.id, id].sort());
    const posts = (await requests(emu)).filter((r) => r.method === "POST" && r.path === "/v1/identity/mfa/method/dualfactor");
    expect(posts).toHaveLength(2);
  });

  it("tries again when the create failed before the service acted", async () => {
    await control(emu, "POST", "/faults", { method: "POST", path: "/v1/identity/mfa/method/dualfactor", status: 503, count: 1 });
    const { id } = await created(MFA, base);
    expect(await methodIds()).toEqual([id]);
  });

  it("drops a method deleted out of band on refresh; delete of a gone method succeeds", async () => {
    const { id, outs } = await created(MFA, base);
    await raw("DELETE", `/identity/mfa/method/dualfactor/${id}`);
    expect(await call(MFA, "read", [id, outs])).toEqual({ id: "", props: {} });
    await expect(call(MFA, "delete", [id, outs])).resolves.toBeUndefined();
  });

  it("rejects bad inputs in check, naming the property, without a request", async () => {
    await control(emu, "DELETE", "/requests");
    const r = (await call(MFA, "check", [{}, { secretKey: "", integrationKey: "ik", apiHostname: "https://x/y", usernameFormat: "{{x" }])) as { failures: { property: string }[] };
    expect(r.failures.map((f) => f.property).sort()).toEqual(["apiHostname", "secretKey", "usernameFormat"]);
    expect(await requests(emu)).toEqual([]);
  });

  it("surfaces the service's refusal of an unknown username template value, without the keys", async () => {
    const err = await rejectionOf(created(MFA, { ...base, usernameFormat: "{{identity.entity.nickname}}" }));
    expect(err.code).toBe("invalid_input");
    expect(err.message).toMatch(/username_format/);
    expect(err.message).not.toContain(SECRET_KEY);
    expect(await methodIds()).toEqual([]);
  });

  it("lists ids (404 is an empty list) and reads a method; the Output form is secret", async () => {
    expect(await mfa.listDualFactorMethods()).toEqual({ keys: [] });
    const { id } = await created(MFA, { ...base, pushInfo: "p" });
    expect(await mfa.listDualFactorMethods()).toEqual({ keys: [id] });
    expect(await mfa.getDualFactorMethod({ id })).toEqual({ id, type: "dualfactor", usernameFormat: "", ...base, pushInfo: "p", usePasscode: false });

    await pulumi.runtime.setMocks({ newResource: (a) => ({ id: a.name, state: a.inputs }), call: (a) => a.inputs }, "proj", "stack", true);
    const out = mfa.getDualFactorMethodOutput({ id: pulumi.output(id) });
    expect(await (out as unknown as { isSecret: Promise<boolean> }).isSecret).toBe(true);
    const value = await new Promise<mfa.DualFactorMethodInfo>((resolve) => out.apply(resolve));
    expect(value.secretKey).toBe(SECRET_KEY);
    const listed = await new Promise((resolve) => mfa.listDualFactorMethodsOutput().apply(resolve));
    expect(listed).toEqual({ keys: [id] });
  });
});
