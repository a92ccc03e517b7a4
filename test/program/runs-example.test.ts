import { describe, expect, it } from "vitest";
import { useProgram } from "../support/program";

const { emu, run, ops, runApi, requests, clearRequests, stateText } = useProgram({
  example: "runs", project: "pulumi-svc-runs", services: ["run"],
  config: () => ({ "runs:pollIntervalSeconds": "0.05", "runs:timeoutSeconds": "60" }),
  // The emulator's timer moves runs on by themselves, as a real service would.
  setup: (p) => p.control("PUT", "/clock", { autoAdvanceMs: 20 }),
});

const runs = async (): Promise<{ id: string; attributes: Record<string, any> }[]> => (await runApi("GET", `/workspaces/${emu.workspaceId}/runs`)).body.data;

describe("the runs example through the engine double", () => {
  it("previews a create without queueing anything", async () => {
    await clearRequests();
    const r = await run("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ deploy: "create" });
    expect(await requests()).toEqual([]);
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
    const text = stateText();
    for (const t of Object.values(emu.tokens)) expect(text).not.toContain(t);
    expect(text).toContain("__provider");
  });

  it("a second up queues nothing", async () => {
    await clearRequests();
    const r = await run("up");
    expect(ops(r)).toEqual({ deploy: "same" });
    const writes = (await requests()).filter((q) => q.method !== "GET");
    expect(writes).toEqual([]);
  });

  it("step2 changes triggers: a replacement queues a new run (the old one is stopped first if active)", async () => {
    const [before] = await runs();
    const r = await run("up", 2);
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
    const r = await run("refresh", 2);
    expect(r.error).toBeUndefined();
    expect(r.steps.map((s) => s.op)).toEqual(["refresh"]);
  });

  it("destroy removes the run from the stack without acting on an ended run", async () => {
    await clearRequests();
    const r = await run("destroy", 2);
    expect(r.error).toBeUndefined();
    expect(r.steps.map((s) => s.op)).toEqual(["delete"]);
    const writes = (await requests()).filter((q) => q.method !== "GET");
    expect(writes).toEqual([]);
    expect(stateText()).not.toContain(emu.tokens.runAdmin);
  });
});
