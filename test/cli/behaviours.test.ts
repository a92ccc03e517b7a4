// Engine behaviours users rely on, observed under the real Pulumi CLI (docs/real-cli.md).
// One emulator for the file; one stack per scenario.
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { control, secretsApi } from "../support/emulator";
import { CliStack, describeCli, ops } from "./cli";

const program = path.join(__dirname, "programs/behaviours");

let emu: Emulator;
const stacks: CliStack[] = [];

beforeAll(async () => {
  emu = await startEmulator();
});

afterEach(() => {
  for (const s of stacks.splice(0)) s.remove();
});

afterAll(async () => {
  await emu?.close();
});

async function stack(scenario: string, config: Record<string, string> = {}): Promise<CliStack> {
  const s = await CliStack.create({
    project: `behaviours-${scenario}`,
    program,
    config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, "behaviours:scenario": scenario, ...config },
    secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsUser },
  });
  stacks.push(s);
  return s;
}

const step = (s: CliStack, n: number) => s.setConfig({ "behaviours:step": String(n) });

async function alphabet(name: string): Promise<string | undefined> {
  const r = await secretsApi(emu, "GET", `/transform/alphabet/${name}`);
  return r.status === 200 ? r.body.data.alphabet as string : undefined;
}

async function writes(): Promise<{ method: string; path: string }[]> {
  return (await control<{ requests: { method: string; path: string }[] }>(emu, "GET", "/requests")).requests.filter((q) => !["GET", "LIST"].includes(q.method));
}

describeCli("engine behaviours under the real Pulumi CLI", () => {
  it("aliases: a renamed resource with an alias is the same object; nothing is deleted or created", async () => {
    const s = await stack("aliases");
    expect((await s.up()).code).toBe(0);
    await step(s, 2);
    const preview = await s.preview();
    expect(ops(preview)).toEqual({});
    await control(emu, "DELETE", "/requests");
    const r = await s.up();
    expect(r.code).toBe(0);
    expect(ops(r)).toEqual({});
    expect(await writes()).toEqual([]);
    expect((await s.state()).resources.map((q) => q.urn)).toContainEqual(expect.stringMatching(/::alias-b$/));
    expect(await alphabet("alias-a")).toBe("0123");
  });

  it("protect: destroy (with its preview) is refused before anything is deleted; --skip-preview deletes the rest first", async () => {
    const s = await stack("protect");
    expect((await s.up()).code).toBe(0);
    await control(emu, "DELETE", "/requests");
    const r = await s.run(["destroy", "--yes"]);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/protected/);
    expect(await writes()).toEqual([]);
    expect(await alphabet("guarded")).toBe("0123");
    expect(await alphabet("unguarded")).toBe("0123");
    expect((await s.state()).resources.find((q) => q.urn.endsWith("::guarded"))?.protect).toBe(true);

    // Without the preview the engine finds the protected resource only when it reaches it.
    const skipped = await s.run(["destroy", "--yes", "--skip-preview"]);
    expect(skipped.code).not.toBe(0);
    expect(await alphabet("guarded")).toBe("0123");
    expect(await alphabet("unguarded")).toBeUndefined();
  });

  it("retainOnDelete: removing the resource drops it from state and keeps the object", async () => {
    const s = await stack("retain");
    expect((await s.up()).code).toBe(0);
    await step(s, 2);
    await control(emu, "DELETE", "/requests");
    const r = await s.up();
    expect(r.code).toBe(0);
    expect(ops(r)).toEqual({ kept: "delete" });
    expect(await writes()).toEqual([]);
    expect(await alphabet("kept")).toBe("0123");
    expect((await s.state()).resources.map((q) => q.urn)).not.toContainEqual(expect.stringMatching(/::kept$/));
  });

  it("ignoreChanges: a change of an ignored input plans and makes no update", async () => {
    const s = await stack("ignore");
    expect((await s.up()).code).toBe(0);
    await step(s, 2);
    expect(ops(await s.preview())).toEqual({});
    const r = await s.up();
    expect(ops(r)).toEqual({});
    expect(await alphabet("ignored")).toBe("0123");
  });

  it("--target: only the targeted resource is updated", async () => {
    const s = await stack("target");
    expect((await s.up()).code).toBe(0);
    await step(s, 2);
    const urn = (await s.state()).resources.find((q) => q.urn.endsWith("::target-a"))!.urn;
    const r = await s.up(["--target", urn]);
    expect(r.code).toBe(0);
    expect(ops(r)).toEqual({ "target-a": "update" });
    expect(await alphabet("target-a")).toBe("012345");
    expect(await alphabet("target-b")).toBe("0123");
    expect(ops(await s.preview())).toEqual({ "target-b": "update" });
  });

  it("pulumi import: refused for a dynamic resource, nothing is written (adopt is the way)", async () => {
    expect((await secretsApi(emu, "POST", "/transform/alphabet/imported", { alphabet: "0123" })).status).toBeLessThan(300);
    const s = await stack("import");
    await control(emu, "DELETE", "/requests");
    const r = await s.run(["import", "pulumi-nodejs:dynamic/secrets:TransformAlphabet", "imported", "transform/alphabet/imported", "--yes", "--generate-code=false"]);
    console.log(`pulumi import of a dynamic resource: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    expect(r.code).not.toBe(0);
    expect(await writes()).toEqual([]);
    expect((await s.state()).resources ?? []).toEqual([]);
  });

  it("a partial failure is reported, the object kept in state with the error, and the next up repairs it", async () => {
    await control(emu, "PUT", "/clock", { autoAdvanceMs: 0 });
    const s = await stack("partial", { "behaviours:workspaceId": emu.workspaceId });
    const r = await s.run(["up", "--yes", "--skip-preview"]);
    expect(r.code).not.toBe(0);
    // The engine shows (and records as initErrors) only the reasons of a failure with an id:
    // PartialFailure sends its message as the reason, else the CLI says just "resource init failed".
    expect(r.stdout).toMatch(/did not reach completed within 1 s.*is kept in state/);
    expect(r.stdout).toMatch(/pulumi-svc: run run-\S+: timed out waiting for completed; it was discarded/);
    const kept = (await s.state()).resources.find((q) => q.urn.endsWith("::partial"))!;
    expect(kept.id).toMatch(/^run-/);
    expect(kept.initErrors?.join("\n"), JSON.stringify(kept)).toMatch(/did not reach completed.*is kept in state/s);

    const again = await s.up();
    expect(again.code).toBe(0);
    expect(ops(again)).toEqual({ partial: "update" });
    const repaired = (await s.state()).resources.find((q) => q.urn.endsWith("::partial"))!;
    expect(repaired.id).toBe(kept.id);
    expect(repaired.initErrors ?? []).toEqual([]);
  });

  it("up --parallel 64 creates 200 resources under svc:maxConcurrentRequests 4 against an emulator throttling above a rate: 0 failures, never more than 4 requests at once", async () => {
    const count = 200;
    const s = await stack("parallel", { "behaviours:count": String(count), "svc:maxConcurrentRequests": "4" });
    // Each request held 50 ms, so they overlap (without the limit, 100 resources reached 24 at
    // once); 20 a second is below what 4 at a time ask for, so the server answers 429s.
    await control(emu, "PUT", "/throttle", { rate: 20 });
    await control(emu, "POST", "/faults", { path: "/v1/transform/alphabet/*", delayMs: 50, count: 100_000 });
    await control(emu, "DELETE", "/requests");
    try {
      const r = await s.up(["--parallel", "64"]);
      expect(r.code, r.text).toBe(0);
      expect(r.changeSummary).toEqual({ create: count + 1 });
      expect(r.diagnostics?.filter((d) => d.severity === "error")).toEqual([]);
      const throttled = async () => {
        const report = await control<{ peak: number; throttled: number }>(emu, "GET", "/throttle");
        expect(report.peak).toBeLessThanOrEqual(4);
        expect(report.throttled).toBeGreaterThan(0);
      };
      await throttled();
      await control(emu, "PUT", "/throttle", {});
      const listed = await secretsApi(emu, "LIST", "/transform/alphabet");
      expect((listed.body.data.keys as string[]).filter((k) => k.startsWith("bulk-"))).toHaveLength(count);
      await control(emu, "PUT", "/throttle", { rate: 20 });
      const d = await s.destroy(["--parallel", "64"]);
      expect(d.code, d.text).toBe(0);
      expect(d.changeSummary).toEqual({ delete: count + 1 });
      await throttled();
      // Each object written once and deleted once: no write repeated after its 429 was answered by a success.
      const done = (await control<{ requests: { method: string; path: string; status: number }[] }>(emu, "GET", "/requests")).requests
        .filter((q) => q.path.includes("/alphabet/bulk-") && q.status < 300);
      expect(done.filter((q) => q.method === "POST")).toHaveLength(count);
      expect(done.filter((q) => q.method === "DELETE")).toHaveLength(count);
    } finally {
      await control(emu, "DELETE", "/faults"); // the throttle too
    }
    const left = await secretsApi(emu, "LIST", "/transform/alphabet");
    expect(((left.body?.data?.keys ?? []) as string[]).filter((k) => k.startsWith("bulk-"))).toEqual([]);
  }, 600_000);

  it("expected failures print one line each, with no stack frame, naming the token's setting", async () => {
    const s = await stack("errors");
    expect((await s.up()).code).toBe(0);
    const frames = (text: string) => text.split("\n").filter((l) => /^\s+at .+[(:]/.test(l));
    await control(emu, "POST", "/faults", { method: "GET", path: "/v1/transform/alphabet/*", status: 403, count: 100 });
    try {
      const refresh = await s.run(["refresh", "--yes", "--skip-preview"]);
      expect(refresh.code).not.toBe(0);
      expect(frames(refresh.stdout + refresh.stderr)).toEqual([]);
      for (const name of ["quiet-a", "quiet-b"]) {
        expect(refresh.stdout).toContain(`error: GET /transform/alphabet/${name}: 403 Forbidden: injected fault (HTTP 403); check the token (from stack config svc:secretsToken)`);
      }
      expect(refresh.stdout).not.toContain("ForbiddenError: GET");
    } finally {
      await control(emu, "DELETE", "/faults");
    }
    // A function called in the program: its Output form fails the update with one line.
    await step(s, 2);
    await control(emu, "POST", "/faults", { method: "LIST", path: "/v1/transform/alphabet*", status: 403, count: 100 });
    try {
      const up = await s.run(["up", "--yes", "--skip-preview"]);
      expect(up.code).not.toBe(0);
      expect(frames(up.stdout + up.stderr)).toEqual([]);
      expect(up.stdout).toContain("listAlphabets: GET /transform/alphabet?list=true: 403 Forbidden: injected fault (HTTP 403); check the token (from stack config svc:secretsToken)");
    } finally {
      await control(emu, "DELETE", "/faults");
    }
  }, 300_000);
});
