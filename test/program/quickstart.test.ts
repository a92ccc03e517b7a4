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

const HOOK_TOKEN = "quickstart-hook-token-1a2b";
const HOOK_TOKEN2 = "quickstart-hook-token-2c3d";
const step1 = path.join(root, "dist/examples/quickstart/index.js");
const step2 = path.join(root, "dist/examples/quickstart/step2/index.js");

let emu: Emulator;
let dir: string;
let state: string;

function run(operation: "preview" | "up" | "refresh" | "destroy", program = step1): Promise<Result> {
  return runProgram({
    operation, program, state, cwd: root, stack: "dev", project: "pulumi-svc-quickstart",
    config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, "quickstart:hookUrl": `${emu.controlUrl}/sink/quickstart` },
    secretConfig: {
      "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsUser,
      "quickstart:hookToken": HOOK_TOKEN, "quickstart:hookToken2": HOOK_TOKEN2,
    },
    env: withoutSvcEnv() as Record<string, string>,
    timeoutMs: 120_000,
  });
}

const ops = (r: Result) => Object.fromEntries(r.steps.map((s) => [s.name, s.op]));

async function secretsGet(p: string): Promise<number> {
  const res = await request(`${emu.secretsUrl}${p}`, { headers: { "x-svc-token": emu.tokens.secretsRoot } });
  await res.body.dump();
  return res.statusCode;
}

async function configurations(): Promise<{ id: string; attributes: Record<string, unknown> }[]> {
  const res = await request(`${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`, { headers: { authorization: `Bearer ${emu.tokens.runAdmin}` } });
  return ((await res.body.json()) as { data: { id: string; attributes: Record<string, unknown> }[] }).data;
}

beforeAll(async () => {
  if (!fs.existsSync(step1)) throw new Error("dist/ is missing: run npm run build (npm test does)");
  emu = await startEmulator();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "quickstart-"));
  state = path.join(dir, "stack.json");
});

afterAll(async () => {
  await emu?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the quickstart program through the engine double", () => {
  it("previews three creates without a single request to either service", async () => {
    await control(emu, "DELETE", "/requests");
    const r = await run("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ digits: "create", ssn: "create", "ci-hook": "create" });
    expect((await control<{ requests: unknown[] }>(emu, "GET", "/requests")).requests).toEqual([]);
  });

  it("deploys both services, verifying the webhook with a signed request", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ digits: "create", ssn: "create", "ci-hook": "create" });
    expect(r.outputs).toMatchObject({ alphabet: "0123456789", templatePattern: "(\\d{3})-(\\d{2})-(\\d{4})", hookVerified: true });
    expect(await secretsGet("/transform/alphabet/digits")).toBe(200);
    expect(await secretsGet("/transform/template/us-ssn")).toBe(200);
    const sink = await control<{ requests: { headers: Record<string, string> }[] }>(emu, "GET", "/sinks/quickstart");
    expect(sink.requests.at(-1)!.headers["x-svc-notification-signature"]).toMatch(/^[0-9a-f]{128}$/);
  });

  it("stores no token or secret in plaintext in state", async () => {
    const text = fs.readFileSync(state, "utf8");
    for (const secret of [HOOK_TOKEN, HOOK_TOKEN2, ...Object.values(emu.tokens)]) expect(text).not.toContain(secret);
    expect(text).toContain("__provider"); // the provider text is there, and it holds no token either
  });

  it("has no perpetual diff: a second up changes nothing", async () => {
    await control(emu, "DELETE", "/requests");
    const r = await run("up");
    expect(ops(r)).toEqual({ digits: "same", ssn: "same", "ci-hook": "same" });
    const writes = (await control<{ requests: { method: string }[] }>(emu, "GET", "/requests")).requests.filter((q) => q.method !== "GET");
    expect(writes).toEqual([]);
  });

  it("step2 updates in place and replaces the renamed template, creating before deleting", async () => {
    const [before] = await configurations();
    const r = await run("up", step2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ digits: "update", ssn: "replace", "ci-hook": "update" });
    expect(r.steps.find((s) => s.name === "ssn")).toMatchObject({ replaceKeys: ["name"], deleteBeforeReplace: false });
    expect(await secretsGet("/transform/template/us-ssn-v2")).toBe(200);
    expect(await secretsGet("/transform/template/us-ssn")).toBe(404);
    const [after, ...more] = await configurations();
    expect(more).toEqual([]);
    expect(after.id).toBe(before.id);
    expect(after.attributes.triggers).toEqual(expect.arrayContaining(["run:needs_attention"]));
    expect(r.outputs).toMatchObject({ alphabet: "0123456789abcdef", templateName: "us-ssn-v2" });
    expect(fs.readFileSync(state, "utf8")).not.toContain(HOOK_TOKEN2);
  });

  it("refresh drops an object deleted out of band, and the next up recreates it", async () => {
    // The template, not the alphabet: the service refuses to delete an alphabet a template uses.
    const res = await request(`${emu.secretsUrl}/transform/template/us-ssn-v2`, { method: "DELETE", headers: { "x-svc-token": emu.tokens.secretsRoot } });
    expect(res.statusCode).toBe(204);
    await res.body.dump();
    const refreshed = await run("refresh", step2);
    expect(refreshed.steps.find((s) => s.name === "ssn")?.op).toBe("read-gone");
    const r = await run("up", step2);
    expect(ops(r).ssn).toBe("create");
    expect(await secretsGet("/transform/template/us-ssn-v2")).toBe(200);
  });

  it("destroy removes everything", async () => {
    const r = await run("destroy", step2);
    expect(r.error).toBeUndefined();
    expect(r.steps.map((s) => s.op)).toEqual(["delete", "delete", "delete"]);
    expect(await secretsGet("/transform/alphabet/digits")).toBe(404);
    expect(await secretsGet("/transform/template/us-ssn-v2")).toBe(404);
    expect(await configurations()).toEqual([]);
  });
});
