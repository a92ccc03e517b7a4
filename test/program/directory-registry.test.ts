import { describe, expect, it } from "vitest";
import { useProgram } from "../support/program";

const BINDPASS = "De3Lq1Zd9Wm7Tx5K";

describe("the directory example through the engine double", () => {
  const { run, ops, get, secretsApi, requests: logged, control, clearRequests, stateText } = useProgram({
    example: "directory", project: "pulumi-svc-directory",
    config: () => ({ "directory:url": "ldap://127.0.0.1:1" }),
    secretConfig: () => ({ "directory:bindpass": BINDPASS }),
    setup: (p) => p.control("POST", "/directory/accounts", { accounts: ["svc-app", "pool-1", "pool-2"] }),
  });
  const binds = async (name: string, password: string) => (await control<{ ok: boolean }>("POST", "/directory/bind", { name, password })).ok;
  let borrowedPassword = "";

  it("previews four creates without a request", async () => {
    await clearRequests();
    const r = await run("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ ldap: "create", app: "create", pool: "create", deployer: "create" });
    expect(await logged()).toEqual([]);
  });

  it("up: config, role, set and a borrowed account whose password binds; secrets only encrypted in state", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(r.outputs).toMatchObject({ appUser: "[secret]", appPassword: "[secret]", borrowedAccount: "pool-1", borrowedPassword: "[secret]", leaseSeconds: 3600, poolAccounts: ["pool-1"] });
    const text = stateText();
    expect(text).not.toContain(BINDPASS);
    const disk = JSON.parse(text) as { resources: { name: string; outputs: Record<string, any> }[] };
    const deployer = disk.resources.find((x) => x.name === "deployer")!;
    expect(deployer.outputs.password).toEqual({ secure: expect.any(String) });
    const status = (await get("/directory/library/deployers/status")).body.data;
    expect(status["pool-1"].available).toBe(false);
    // The password only exists encrypted; prove the loan through the service instead.
    const creds = (await get("/directory/creds/app")).body.data;
    expect(await binds("svc-app", creds.current_password)).toBe(true);
    borrowedPassword = creds.current_password;
  });

  it("a second up changes nothing and writes nothing", async () => {
    await clearRequests();
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ ldap: "same", app: "same", pool: "same", deployer: "same" });
    expect((await logged()).filter((q) => q.method !== "GET" && q.method !== "LIST")).toEqual([]);
  });

  it("step2 adds an account in place (the loan stays) and rotates the role", async () => {
    const r = await run("up", 2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ ldap: "same", app: "same", pool: "update", deployer: "same" });
    expect(r.outputs).toMatchObject({ poolAccounts: ["pool-1", "pool-2"], rotation: { rotated: true, warnings: [] } });
    expect(await binds("svc-app", borrowedPassword)).toBe(false);
    expect((await get("/directory/library/deployers/status")).body.data["pool-1"].available).toBe(false);
  });

  it("refresh drops a loan that was checked in elsewhere; the next up borrows again", async () => {
    await secretsApi("POST", "/directory/library/manage/deployers/check-in", { service_account_names: ["pool-1"] });
    const refreshed = await run("refresh", 2);
    expect(refreshed.error).toBeUndefined();
    expect(refreshed.steps.find((s) => s.name === "deployer")?.op).toBe("read-gone");
    const r = await run("up", 2);
    expect(ops(r).deployer).toBe("create");
  });

  it("destroy checks the account in before the set goes", async () => {
    const r = await run("destroy", 2);
    expect(r.error).toBeUndefined();
    expect(r.steps[0].name).toBe("deployer");
    expect((await get("/directory/library/deployers")).status).toBe(404);
    expect((await get("/directory/config")).status).toBe(404);
  });
});

describe("the registry example through the engine double", () => {
  let managementToken = "";
  const { run, ops, get, requests: logged, clearRequests, stateText } = useProgram({
    example: "registry", project: "pulumi-svc-registry",
    secretConfig: () => ({ "registry:managementToken": managementToken }),
    setup: async (p) => {
      managementToken = (await p.control<{ token: string }>("POST", "/registry/tokens", { type: "management" })).token;
    },
  });

  it("preview makes no request (no token is generated)", async () => {
    await clearRequests();
    const r = await run("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ registry: "create", reader: "create", legacy: "create" });
    expect(await logged()).toEqual([]);
  });

  it("up configures access and roles; the token output is secret; no perpetual diff", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(r.outputs).toMatchObject({ readerToken: "[secret]", readerLeaseSeconds: "[secret]", legacyName: "legacy", legacyLease: "30m" });
    expect(stateText()).not.toContain(managementToken);
    expect((await get("/registry/roles/legacy")).body.data.lease).toBe("30m0s");
    const again = await run("up");
    expect(ops(again)).toEqual({ registry: "same", reader: "same", legacy: "same" });
  });

  it("step2 rewrites the reader in place and replaces the renamed legacy role, creating before deleting", async () => {
    const plan = await run("preview", 2);
    expect(plan.error).toBeUndefined();
    expect(ops(plan)).toEqual({ registry: "same", reader: "update", legacy: "replace" });
    expect(plan.steps.find((s) => s.name === "reader")?.changedKeys?.sort()).toEqual(["policies", "ttl"]);
    await clearRequests();
    const r = await run("up", 2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ registry: "same", reader: "update", legacy: "replace" });
    expect(r.steps.find((s) => s.name === "legacy")?.deleteBeforeReplace).toBe(false);
    expect(r.outputs).toMatchObject({ legacyName: "legacy-v2", legacyLease: "30m" });
    const writes = (await logged()).filter((q) => q.method === "POST" || q.method === "DELETE").map((q) => `${q.method} ${q.path}`);
    expect(writes.indexOf("POST /v1/registry/roles/legacy-v2")).toBeLessThan(writes.indexOf("DELETE /v1/registry/roles/legacy"));
    const reader = (await get("/registry/roles/reader")).body.data;
    expect({ ttl: reader.ttl, policies: [...reader.policies].sort() }).toEqual({ ttl: 7200, policies: ["kv-read", "kv-write", "service-read"] });
    expect((await get("/registry/roles/legacy")).status).toBe(404);
    expect((await get("/registry/roles/legacy-v2")).body.data.lease).toBe("30m0s");
    expect(ops(await run("up", 2))).toEqual({ registry: "same", reader: "same", legacy: "same" });
  });

  it("destroy removes the roles and the access config", async () => {
    const d = await run("destroy", 2);
    expect(d.error).toBeUndefined();
    expect((await get("/registry/roles/reader")).status).toBe(404);
    expect((await get("/registry/roles/legacy-v2")).status).toBe(404);
  });
});
