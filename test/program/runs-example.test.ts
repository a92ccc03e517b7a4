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

const step1 = path.join(root, "dist/examples/runs/index.js");
const step2 = path.join(root, "dist/examples/runs/step2/index.js");

let emu: Emulator;
let dir: string;
let state: string;

function run(operation: "preview" | "up" | "refresh" | "destroy", program = step1): Promise<Result> {
  return runProgram({
    operation, program, state, cwd: root, stack: "dev", project: "pulumi-svc-runs",
    config: { "svc:runUrl": emu.runUrl, "runs:pollIntervalSeconds": "0.05", "runs:timeoutSeconds": "60" },
    secretConfig: { "svc:runToken": emu.tokens.runAdmin },
    env: withoutSvcEnv() as Record<string, string>,
    timeoutMs: 120_000,
  });
}

const ops = (r: Result) => Object.fromEntries(r.steps.map((s) => [s.name, s.op]));

async function runs(): Promise<{ id: string; attributes: Record<string, any> }[]> {
  const res = await request(`${emu.runUrl}/workspaces/${emu.workspaceId}/runs`, { headers: { authorization: `Bearer ${emu.tokens.runAdmin}` } });
  return ((await res.body.json()) as { data: { id: string; attributes: Record<string, any> }[] }).data;
}

beforeAll(async () => {
  if (!fs.existsSync(step1)) throw new Error("dist/ is missing: run npm run build (npm test does)");
  emu = await startEmulator();
  // The emulator's timer moves runs on by themselves, as a real service would.
  await control(emu, "PUT", "/clock", { autoAdvanceMs: 20 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "runs-example-"));
  state = path.join(dir, "stack.json");
});

afterAll(async () => {
  await emu?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the runs example through the engine double", () => {
  it("previews a create without queueing anything", async () => {
    await control(emu, "DELETE", "/requests");
    const r = await run("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ deploy: "create" });
    expect((await control<{ requests: unknown[] }>(emu, "GET", "/requests")).requests).toEqual([]);
  });

  it("up queues the run, applies it when confirmable and waits until it is applied", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ deploy: "create" });
    const [only, ...more] = await runs();
    expect(more).toEqual([]);
    expect(only.attributes).toMatchObject({ status: "applied", message: "Deploy from the runs example", variables: [{ key: "environment", value: "\"staging\"" }] });
    expect(r.outputs).toMatchObject({ runId: only.id, status: "applied", hasChanges: true, appliedAt: expect.any(String) });
  });

  it("stores no token in state", () => {
    const text = fs.readFileSync(state, "utf8");
    for (const t of Object.values(emu.tokens)) expect(text).not.toContain(t);
    expect(text).toContain("__provider");
  });

  it("a second up queues nothing", async () => {
    await control(emu, "DELETE", "/requests");
    const r = await run("up");
    expect(ops(r)).toEqual({ deploy: "same" });
    const writes = (await control<{ requests: { method: string }[] }>(emu, "GET", "/requests")).requests.filter((q) => q.method !== "GET");
    expect(writes).toEqual([]);
  });

  it("step2 changes triggers: a replacement queues a new run (the old one is stopped first if active)", async () => {
    const [before] = await runs();
    const r = await run("up", step2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ deploy: "replace" });
    expect(r.steps[0]).toMatchObject({ replaceKeys: ["triggers"], deleteBeforeReplace: true });
    const all = await runs();
    expect(all).toHaveLength(2);
    const fresh = all.find((x) => x.id !== before.id)!;
    expect(fresh.attributes.status).toBe("applied");
    expect(all.find((x) => x.id === before.id)!.attributes.status).toBe("applied"); // ended runs are left alone
    expect(r.outputs).toMatchObject({ runId: fresh.id, status: "applied" });
  });

  it("refresh reads the run's status", async () => {
    const r = await run("refresh", step2);
    expect(r.error).toBeUndefined();
    expect(r.steps.map((s) => s.op)).toEqual(["refresh"]);
  });

  it("destroy removes the run from the stack without acting on an ended run", async () => {
    await control(emu, "DELETE", "/requests");
    const r = await run("destroy", step2);
    expect(r.error).toBeUndefined();
    expect(r.steps.map((s) => s.op)).toEqual(["delete"]);
    const writes = (await control<{ requests: { method: string }[] }>(emu, "GET", "/requests")).requests.filter((q) => q.method !== "GET");
    expect(writes).toEqual([]);
    expect(fs.readFileSync(state, "utf8")).not.toContain(emu.tokens.runAdmin);
  });
});
