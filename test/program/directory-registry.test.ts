import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { startEmulator, type Emulator } from "../../src/emulator";
import { runProgram } from "../../src/engine/program";
import type { Result } from "../../src/engine/types";
import { control } from "../support/emulator";
import { root, withoutSvcEnv } from "../support/dist";

const BINDPASS = "directory-example-bind-password-31d";
const dirStep1 = path.join(root, "dist/examples/directory/index.js");
const dirStep2 = path.join(root, "dist/examples/directory/step2/index.js");
const registryProgram = path.join(root, "dist/examples/registry/index.js");
const registryStep2 = path.join(root, "dist/examples/registry/step2/index.js");

let emu: Emulator;
let dir: string;
let managementToken: string;

function run(operation: "preview" | "up" | "refresh" | "destroy", program: string, state: string, project: string): Promise<Result> {
  return runProgram({
    operation, program, state, cwd: root, stack: "dev", project,
    config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, "directory:url": "ldap://127.0.0.1:1" },
    secretConfig: {
      "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsUser,
      "directory:bindpass": BINDPASS, "registry:managementToken": managementToken,
    },
    env: withoutSvcEnv() as Record<string, string>,
    timeoutMs: 120_000,
  });
}

const ops = (r: Result) => Object.fromEntries(r.steps.map((s) => [s.name, s.op]));
const logged = async () => (await control<{ requests: { method: string; path: string }[] }>(emu, "GET", "/requests")).requests;
const binds = async (name: string, password: string) => (await control<{ ok: boolean }>(emu, "POST", "/directory/bind", { name, password })).ok;

async function get(p: string): Promise<{ status: number; body: any }> {
  const res = await request(`${emu.secretsUrl}${p}`, { headers: { "x-svc-token": emu.tokens.secretsRoot } });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  if (!fs.existsSync(dirStep1)) throw new Error("dist/ is missing: run npm run build (npm test does)");
  emu = await startEmulator();
  await control(emu, "POST", "/directory/accounts", { accounts: ["svc-app", "pool-1", "pool-2"] });
  managementToken = (await control<{ token: string }>(emu, "POST", "/registry/tokens", { type: "management" })).token;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "directory-"));
});

afterAll(async () => {
  await emu?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the directory example through the engine double", () => {
  const state = () => path.join(dir, "directory.json");
  const go = (op: "preview" | "up" | "refresh" | "destroy", program = dirStep1) => run(op, program, state(), "pulumi-svc-directory");
  let borrowedPassword = "";

  it("previews four creates without a request", async () => {
    await control(emu, "DELETE", "/requests");
    const r = await go("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ ldap: "create", app: "create", pool: "create", deployer: "create" });
    expect(await logged()).toEqual([]);
  });

  it("up: config, role, set and a borrowed account whose password binds; secrets only encrypted in state", async () => {
    const r = await go("up");
    expect(r.error).toBeUndefined();
    expect(r.outputs).toMatchObject({ appUser: "[secret]", appPassword: "[secret]", borrowedAccount: "pool-1", borrowedPassword: "[secret]", leaseSeconds: 3600, poolAccounts: ["pool-1"] });
    const text = fs.readFileSync(state(), "utf8");
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
    await control(emu, "DELETE", "/requests");
    const r = await go("up");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ ldap: "same", app: "same", pool: "same", deployer: "same" });
    expect((await logged()).filter((q) => q.method !== "GET" && q.method !== "LIST")).toEqual([]);
  });

  it("step2 adds an account in place (the loan stays) and rotates the role", async () => {
    const r = await go("up", dirStep2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ ldap: "same", app: "same", pool: "update", deployer: "same" });
    expect(r.outputs).toMatchObject({ poolAccounts: ["pool-1", "pool-2"], rotation: { rotated: true, warnings: [] } });
    expect(await binds("svc-app", borrowedPassword)).toBe(false);
    expect((await get("/directory/library/deployers/status")).body.data["pool-1"].available).toBe(false);
  });

  it("refresh drops a loan that was checked in elsewhere; the next up borrows again", async () => {
    await request(`${emu.secretsUrl}/directory/library/manage/deployers/check-in`, {
      method: "POST", headers: { "x-svc-token": emu.tokens.secretsRoot, "content-type": "application/json" }, body: JSON.stringify({ service_account_names: ["pool-1"] }),
    }).then((res) => res.body.dump());
    const refreshed = await go("refresh", dirStep2);
    expect(refreshed.error).toBeUndefined();
    expect(refreshed.steps.find((s) => s.name === "deployer")?.op).toBe("read-gone");
    const r = await go("up", dirStep2);
    expect(ops(r).deployer).toBe("create");
  });

  it("destroy checks the account in before the set goes", async () => {
    const r = await go("destroy", dirStep2);
    expect(r.error).toBeUndefined();
    expect(r.steps[0].name).toBe("deployer");
    expect((await get("/directory/library/deployers")).status).toBe(404);
    expect((await get("/directory/config")).status).toBe(404);
  });
});

describe("the registry example through the engine double", () => {
  const state = () => path.join(dir, "registry.json");
  const go = (op: "preview" | "up" | "destroy", program = registryProgram) => run(op, program, state(), "pulumi-svc-registry");

  it("preview makes no request (no token is generated)", async () => {
    await control(emu, "DELETE", "/requests");
    const r = await go("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ registry: "create", reader: "create", legacy: "create" });
    expect(await logged()).toEqual([]);
  });

  it("up configures access and roles; the token output is secret; no perpetual diff", async () => {
    const r = await go("up");
    expect(r.error).toBeUndefined();
    expect(r.outputs).toMatchObject({ readerToken: "[secret]", readerLeaseSeconds: "[secret]", legacyName: "legacy", legacyLease: "30m" });
    expect(fs.readFileSync(state(), "utf8")).not.toContain(managementToken);
    expect((await get("/registry/roles/legacy")).body.data.lease).toBe("30m0s");
    const again = await go("up");
    expect(ops(again)).toEqual({ registry: "same", reader: "same", legacy: "same" });
  });

  it("step2 rewrites the reader in place and replaces the renamed legacy role, creating before deleting", async () => {
    const plan = await go("preview", registryStep2);
    expect(plan.error).toBeUndefined();
    expect(ops(plan)).toEqual({ registry: "same", reader: "update", legacy: "replace" });
    expect(plan.steps.find((s) => s.name === "reader")?.changedKeys?.sort()).toEqual(["policies", "ttl"]);
    await control(emu, "DELETE", "/requests");
    const r = await go("up", registryStep2);
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
    expect(ops(await go("up", registryStep2))).toEqual({ registry: "same", reader: "same", legacy: "same" });
  });

  it("destroy removes the roles and the access config", async () => {
    const d = await go("destroy", registryStep2);
    expect(d.error).toBeUndefined();
    expect((await get("/registry/roles/reader")).status).toBe(404);
    expect((await get("/registry/roles/legacy-v2")).status).toBe(404);
  });
});
