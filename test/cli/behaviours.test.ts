// Engine behaviours users rely on, observed under the real Pulumi CLI (docs/real-cli.md).
// One emulator for the file; one stack per scenario.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, it } from "vitest";
import { startEmulator } from "../../src/emulator";
import { control, secretsApi } from "../support/emulator";
import { CliStack, cliScenarios, describeCli, importReadMessage, ops } from "./cli";

const program = path.join(__dirname, "programs/behaviours/index.js");

const { emu, stacks } = cliScenarios();

async function stack(scenario: string, config: Record<string, string> = {}): Promise<CliStack> {
  const s = await CliStack.create({
    project: `behaviours-${scenario}`,
    program,
    config: { "svc:runUrl": emu().runUrl, "svc:secretsUrl": emu().secretsUrl, "behaviours:scenario": scenario, ...config },
    secretConfig: { "svc:runToken": emu().tokens.runAdmin, "svc:secretsToken": emu().tokens.secretsUser },
  });
  stacks.push(s);
  return s;
}

const step = (s: CliStack, n: number) => s.setConfig({ "behaviours:step": String(n) });

async function alphabet(name: string): Promise<string | undefined> {
  const r = await secretsApi(emu(), "GET", `/transform/alphabet/${name}`);
  return r.status === 200 ? r.body.data.alphabet as string : undefined;
}

async function writes(): Promise<{ method: string; path: string }[]> {
  return (await control<{ requests: { method: string; path: string }[] }>(emu(), "GET", "/requests")).requests.filter((q) => !["GET", "LIST"].includes(q.method));
}

describeCli("engine behaviours under the real Pulumi CLI", () => {
  it("aliases: a renamed resource with an alias is the same object; nothing is deleted or created", async () => {
    const s = await stack("aliases");
    expect((await s.up()).code).toBe(0);
    await step(s, 2);
    const preview = await s.preview();
    expect(ops(preview)).toEqual({});
    await control(emu(), "DELETE", "/requests");
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
    await control(emu(), "DELETE", "/requests");
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
    await control(emu(), "DELETE", "/requests");
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
    expect((await secretsApi(emu(), "POST", "/transform/alphabet/imported", { alphabet: "0123" })).status).toBeLessThan(300);
    const s = await stack("import");
    await control(emu(), "DELETE", "/requests");
    const r = await s.run(["import", "pulumi-nodejs:dynamic/secrets:TransformAlphabet", "imported", "transform/alphabet/imported", "--yes", "--generate-code=false"]);
    console.log(`pulumi import of a dynamic resource: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    expect(r.code).not.toBe(0);
    // The same read as the import resource option's (test/cli/engine-import.test.ts): the id alone.
    expect(r.stdout).toContain(`  pulumi-nodejs:dynamic/secrets:TransformAlphabet (imported):\n    error: Preview failed: ${importReadMessage()}`);
    expect(await writes()).toEqual([]);
    expect((await s.state()).resources ?? []).toEqual([]);
  });

  it("a partial failure is reported, the object kept in state with the error, and the next up repairs it", async () => {
    await control(emu(), "PUT", "/clock", { autoAdvanceMs: 0 });
    const s = await stack("partial", { "behaviours:workspaceId": emu().workspaceId });
    const r = await s.run(["up", "--yes", "--skip-preview"]);
    expect(r.code).not.toBe(0);
    // The engine shows (and records as initErrors) only the reasons of a failure with an id:
    // PartialFailure sends its message as the reason, else the CLI says just "resource init failed".
    expect(r.stdout).toMatch(/did not reach completed within 1 s.*is kept in state/);
    // Progress is logged against the Run (its row and its diagnostics), not the stack.
    const fromRun = r.stdout.slice(r.stdout.indexOf("Diagnostics:")).split("  pulumi-nodejs:dynamic/runs:Run (partial):\n")[1] ?? "";
    const ofRun = fromRun.split(/\n {2}\S/)[0]!;
    expect(ofRun).toMatch(/pulumi-svc: run run-\S+ queued on ws-/);
    expect(ofRun).toMatch(/pulumi-svc: run run-\S+: timed out waiting for completed/);
    expect(r.stdout).toMatch(/Run partial creating \(\d+s\) pulumi-svc: run run-\S+ queued/);
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

  it("up --parallel 64 creates 64 resources under svc:maxConcurrentRequests 4 against an emulator throttling above a rate: 0 failures, never more than 4 requests at once", async () => {
    // As many as the engine runs at once: every create waits on the limit together. The long
    // runs (1,000 resources) are bench/scale.ts's.
    const count = 64;
    const s = await stack("parallel", { "behaviours:count": String(count), "svc:maxConcurrentRequests": "4" });
    // Each request held 50 ms, so they overlap (without the limit, 100 resources reached 24 at
    // once); 20 a second is below what 4 at a time ask for, so the server answers 429s.
    await control(emu(), "PUT", "/throttle", { rate: 20 });
    await control(emu(), "POST", "/faults", { path: "/v1/transform/alphabet/*", delayMs: 50, count: 100_000 });
    await control(emu(), "DELETE", "/requests");
    try {
      const r = await s.up(["--parallel", "64"]);
      expect(r.code, r.text).toBe(0);
      expect(r.changeSummary).toEqual({ create: count + 1 });
      expect(r.diagnostics?.filter((d) => d.severity === "error")).toEqual([]);
      const throttled = async () => {
        const report = await control<{ peak: number; throttled: number }>(emu(), "GET", "/throttle");
        expect(report.peak).toBeLessThanOrEqual(4);
        expect(report.throttled).toBeGreaterThan(0);
      };
      await throttled();
      await control(emu(), "PUT", "/throttle", {});
      const listed = await secretsApi(emu(), "LIST", "/transform/alphabet");
      expect((listed.body.data.keys as string[]).filter((k) => k.startsWith("bulk-"))).toHaveLength(count);
      await control(emu(), "PUT", "/throttle", { rate: 20 });
      const d = await s.destroy(["--parallel", "64"]);
      expect(d.code, d.text).toBe(0);
      expect(d.changeSummary).toEqual({ delete: count + 1 });
      await throttled();
      // Each object written once and deleted once: no write repeated after its 429 was answered by a success.
      const done = (await control<{ requests: { method: string; path: string; status: number }[] }>(emu(), "GET", "/requests")).requests
        .filter((q) => q.path.includes("/alphabet/bulk-") && q.status < 300);
      expect(done.filter((q) => q.method === "POST")).toHaveLength(count);
      expect(done.filter((q) => q.method === "DELETE")).toHaveLength(count);
    } finally {
      await control(emu(), "DELETE", "/faults"); // the throttle too
    }
    const left = await secretsApi(emu(), "LIST", "/transform/alphabet");
    expect(((left.body?.data?.keys ?? []) as string[]).filter((k) => k.startsWith("bulk-"))).toEqual([]);
  }, 600_000);

  it("a second operation on a stack being updated is refused at once, not queued; the first completes", async () => {
    const s = await stack("parallel", { "behaviours:count": "1" });
    // The create's write is held at the emulator until the second command has met the stack's lock:
    // the first up is mid-update for as long as the test needs, however slow the machine.
    await control(emu(), "POST", "/faults", { method: "POST", path: "/v1/transform/alphabet/bulk-0", hold: true, count: 1 });
    try {
      const first = s.up();
      const locks = path.join(s.dir, "backend/.pulumi/locks");
      const held = () => fs.existsSync(locks) && fs.readdirSync(locks, { recursive: true, withFileTypes: true }).some((f) => f.isFile());
      const writing = await control<{ timedOut: boolean }>(emu(), "GET", "/faults/held?wait=1&timeoutMs=60000");
      expect(writing.timedOut, "the first up reached its create").toBe(false);
      expect(held(), "the first up holds the stack's lock").toBe(true);
      const second = await s.run(["up", "--yes", "--skip-preview"]);
      expect(second.code).not.toBe(0);
      expect(second.stdout + second.stderr).toMatch(/the stack is currently locked by 1 lock\(s\)/);
      expect((await control<{ released: number }>(emu(), "POST", "/faults/release")).released, "the first up was still waiting").toBe(1);
      expect(ops(await first)).toEqual({ "bulk-0": "create" });
      expect(held()).toBe(false);
    } finally {
      await control(emu(), "DELETE", "/faults");
    }
    // The refused command changed nothing: the next preview has nothing to do.
    expect((await s.preview()).changeSummary).toEqual({ same: 2 });
    await s.destroy();
  }, 300_000);

  it("expected failures print one line each, with no stack frame, naming the token's setting", async () => {
    const s = await stack("errors");
    expect((await s.up()).code).toBe(0);
    const frames = (text: string) => text.split("\n").filter((l) => /^\s+at .+[(:]/.test(l));
    await control(emu(), "POST", "/faults", { method: "GET", path: "/v1/transform/alphabet/*", status: 403, count: 100 });
    try {
      const refresh = await s.run(["refresh", "--yes", "--skip-preview"]);
      expect(refresh.code).not.toBe(0);
      expect(frames(refresh.stdout + refresh.stderr)).toEqual([]);
      for (const name of ["quiet-a", "quiet-b"]) {
        expect(refresh.stdout).toContain(`error: GET /transform/alphabet/${name}: 403 Forbidden: injected fault (HTTP 403); check the token (from stack config svc:secretsToken)`);
      }
      expect(refresh.stdout).not.toContain("ForbiddenError: GET");
    } finally {
      await control(emu(), "DELETE", "/faults");
    }
    // A function called in the program: its Output form fails the update with one line.
    await step(s, 2);
    await control(emu(), "POST", "/faults", { method: "LIST", path: "/v1/transform/alphabet*", status: 403, count: 100 });
    try {
      const up = await s.run(["up", "--yes", "--skip-preview"]);
      expect(up.code).not.toBe(0);
      expect(frames(up.stdout + up.stderr)).toEqual([]);
      expect(up.stdout).toContain("listAlphabets: GET /transform/alphabet?list=true: 403 Forbidden: injected fault (HTTP 403); check the token (from stack config svc:secretsToken)");
    } finally {
      await control(emu(), "DELETE", "/faults");
    }
    // A failure inside a list is the resource's, its path leading the reason: the engine looks only
    // top-level properties up, so it would print the given value as {<nil>}.
    await step(s, 3);
    const preview = await s.run(["preview"]);
    expect(preview.code).not.toBe(0);
    expect(preview.stdout).toMatch(/runs:NotificationConfiguration resource 'bad-trigger' has a problem: triggers\[1\]: must be one of /);
    expect(preview.stdout).not.toContain("<nil>");
  }, 300_000);

  it("a change of a secret alone is named by its version in preview --diff and --json, and nothing about its value", async () => {
    const first = "first-signing-key-a8f2";
    const second = "second-signing-key-c41d";
    const s = await stack("secret", { "behaviours:workspaceId": emu().workspaceId });
    await s.setConfig({}, { "behaviours:hookToken": first });
    expect((await s.up()).code).toBe(0);
    const created = (await s.state()).resources.find((q) => q.urn.endsWith("::signed"))!;
    expect(created.outputs?.tokenVersion).toBe(1);
    expect(ops(await s.preview())).toEqual({});

    await s.setConfig({}, { "behaviours:hookToken": second });
    const diff = await s.run(["preview", "--diff"]);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toMatch(/~ tokenVersion\s*: 1 => 2/);
    const json = JSON.parse((await s.ok(["preview", "--json"])).stdout) as { steps: { op: string; urn: string; oldState?: { inputs?: Record<string, unknown> }; newState?: { inputs?: Record<string, unknown> } }[] };
    const step = json.steps.find((q) => q.urn.endsWith("::signed"))!;
    expect(step.op).toBe("update");
    expect([step.oldState?.inputs?.tokenVersion, step.newState?.inputs?.tokenVersion]).toEqual([1, 2]);
    for (const text of [diff.stdout, JSON.stringify(json)]) {
      for (const secret of [first, second]) expect(text).not.toContain(secret);
    }
    expect((await s.up()).code).toBe(0);
    expect((await s.state()).resources.find((q) => q.urn.endsWith("::signed"))!.outputs?.tokenVersion).toBe(2);
    // The same secret again: no update, the version stays.
    expect(ops(await s.preview())).toEqual({});
  }, 300_000);

  it("a rotated token: plain refresh and destroy are refused with the old one and say to use --run-program, which works", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rotation-"));
    const statePath = path.join(dir, "state.json");
    let own = await startEmulator({ statePath, tokens: { secretsUser: "first-secrets-token-0001" } });
    const port = Number(new URL(own.secretsUrl).port);
    const s = await CliStack.create({
      project: "behaviours-rotation", program,
      config: { "svc:runUrl": own.runUrl, "svc:secretsUrl": own.secretsUrl, "behaviours:scenario": "rotation" },
      secretConfig: { "svc:runToken": own.tokens.runAdmin, "svc:secretsToken": "first-secrets-token-0001" },
    });
    stacks.push(s);
    const frames = (text: string) => text.split("\n").filter((l) => /^\s+at .+[(:]/.test(l));
    const hint = "a plain pulumi refresh or destroy uses the stack config recorded at the last pulumi up: if svc:secretsToken changed since, run it with --run-program";
    try {
      expect((await s.up()).code).toBe(0);
      // The service rotates the token: the first one is refused from now on.
      await own.close();
      own = await startEmulator({ statePath, port, tokens: { secretsUser: "second-secrets-token-0002" } });
      await s.setConfig({}, { "svc:secretsToken": "second-secrets-token-0002" });

      const refresh = await s.run(["refresh", "--yes", "--skip-preview"]);
      expect(refresh.code).not.toBe(0);
      expect(refresh.stdout).toContain(`GET /transform/alphabet/rotated: 403 Forbidden`);
      expect(refresh.stdout).toContain(hint);
      expect(frames(refresh.stdout + refresh.stderr)).toEqual([]);
      const destroy = await s.run(["destroy", "--yes", "--skip-preview"]);
      expect(destroy.code).not.toBe(0);
      expect(destroy.stdout).toContain(hint);
      expect(frames(destroy.stdout + destroy.stderr)).toEqual([]);

      // With --run-program the engine records the current config: plain commands use it from then on.
      expect((await s.run(["refresh", "--yes", "--skip-preview", "--run-program"])).code).toBe(0);
      expect((await s.run(["refresh", "--yes", "--skip-preview"])).code).toBe(0);
      const ok = await s.run(["destroy", "--yes", "--skip-preview", "--run-program"]);
      expect(ok.code, ok.stdout + ok.stderr).toBe(0);
      const gone = await fetch(`${own.secretsUrl}/transform/alphabet/rotated`, { headers: { "x-svc-token": own.tokens.secretsRoot } });
      expect(gone.status).toBe(404);
    } finally {
      await own.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it("replacements: preview --show-replacement-steps lists their steps in the order they run, delete first or create first", async () => {
    const s = await stack("order");
    expect((await s.up()).code).toBe(0);
    await step(s, 2);
    // Shown in the order they will run: the key's delete first, the alphabet's create first.
    const shown = (await s.ok(["preview", "--diff", "--show-replacement-steps"])).stdout.split("\n");
    const at = (marker: string, type: string) => shown.findIndex((l) => l.includes(`${marker}pulumi-nodejs:dynamic/secrets:${type}:`));
    expect(at("--", "KeymgmtKey")).toBeGreaterThan(-1);
    expect(at("--", "KeymgmtKey")).toBeLessThan(at("++", "KeymgmtKey"));
    expect(at("++", "TransformAlphabet")).toBeGreaterThan(-1);
    expect(at("++", "TransformAlphabet")).toBeLessThan(at("--", "TransformAlphabet"));
    const json = JSON.parse((await s.ok(["preview", "--json", "--show-replacement-steps"])).stdout) as { steps: { op: string; urn: string }[] };
    const ops = (name: string) => json.steps.filter((q) => q.urn.endsWith(`::${name}`)).map((q) => q.op);
    expect(ops("order-key")).toEqual(["delete-replaced", "replace", "create-replacement"]);
    expect(ops("order-alphabet")).toEqual(["create-replacement", "replace", "delete-replaced"]);
  }, 300_000);
});
