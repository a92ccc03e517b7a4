// Connections: one program addressing two secrets servers and two run servers through the engine
// double; moving a resource to another server is a replacement; no token in state or provider text.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { startEmulator, type Emulator } from "../../src/emulator";
import { runProgram, UNKNOWN } from "../../src/engine/program";
import type { Result } from "../../src/engine/types";
import { root, withoutSvcEnv } from "../support/dist";

const program = path.join(root, "test/program/fixtures/connections.js");
let a: Emulator;
let b: Emulator;
let dir: string;
let state: string;

function run(operation: "preview" | "up" | "refresh" | "destroy", extra: { move?: boolean; secretsAtB?: boolean } = {}): Promise<Result> {
  const secretsA = extra.secretsAtB ? b : a;
  return runProgram({
    operation, program, state, cwd: root, stack: "dev", project: "pulumi-svc-connections",
    config: {
      "svc:runUrl": a.runUrl, "svc:secretsUrl": secretsA.secretsUrl,
      "conn:secretsUrlB": b.secretsUrl, "conn:runUrlB": b.runUrl,
      "conn:workspaceA": a.workspaceId, "conn:workspaceB": b.workspaceId,
      ...(extra.move ? { "conn:move": "true" } : {}),
    },
    secretConfig: {
      "svc:runToken": a.tokens.runAdmin, "svc:secretsToken": secretsA.tokens.secretsRoot,
      "conn:secretsTokenB": b.tokens.secretsRoot, "conn:runTokenB": b.tokens.runAdmin,
    },
    env: withoutSvcEnv() as Record<string, string>,
    timeoutMs: 120_000,
  });
}

const ops = (r: Result) => Object.fromEntries(r.steps.map((s) => [s.name, s.op]));

async function alphabet(emu: Emulator, name: string): Promise<number> {
  const res = await request(`${emu.secretsUrl}/transform/alphabet/${name}`, { headers: { "x-svc-token": emu.tokens.secretsRoot } });
  await res.body.text();
  return res.statusCode;
}

async function runsOn(emu: Emulator): Promise<string[]> {
  const res = await request(`${emu.runUrl}/workspaces/${emu.workspaceId}/runs`, { headers: { authorization: `Bearer ${emu.tokens.runAdmin}` } });
  return ((await res.body.json()) as { data: { attributes: { message: string } }[] }).data.map((r) => r.attributes.message);
}

function tokens(): string[] {
  return [...Object.values(a.tokens), ...Object.values(b.tokens)];
}

beforeAll(async () => {
  a = await startEmulator();
  b = await startEmulator();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "connections-"));
  state = path.join(dir, "stack.json");
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("a program with two secrets servers and two run servers", () => {
  it("previews creates on both, with lookups unknown until their inputs exist", async () => {
    const r = await run("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ "on-a": "create", "on-b": "create", "key-b": "create", "run-a": "create", "run-b": "create" });
    // Unknown, not a failed request: key-b and run-b do not exist yet.
    expect([r.outputs.keysOnB, r.outputs.keysOnA, r.outputs.keyBType, r.outputs.runBMessage]).toEqual([UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN]);
  });

  it("up puts each resource on its own server and records that server in state", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(r.outputs).toMatchObject({
      onAServer: a.secretsUrl, onBServer: b.secretsUrl, runAServer: a.runUrl, runBServer: b.runUrl,
      keysOnB: ["only-on-b"], keysOnA: [], keyBType: "aes256-gcm96", runBMessage: "on B",
    });
    expect([await alphabet(a, "letters"), await alphabet(a, "digits")]).toEqual([200, 404]);
    expect([await alphabet(b, "digits"), await alphabet(b, "letters")]).toEqual([200, 404]);
    expect(await runsOn(a)).toEqual(["on A"]);
    expect(await runsOn(b)).toEqual(["on B"]);
  });

  it("keeps every token out of state and out of the provider text", () => {
    const text = fs.readFileSync(state, "utf8");
    for (const t of tokens()) expect(text).not.toContain(t);
    expect(text).toContain(b.secretsUrl); // the server is recorded, in plain text
  });

  it("runs again with no changes", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(new Set(r.steps.map((s) => s.op))).toEqual(new Set(["same"]));
  });

  it("names the changed property when an update follows drift found by refresh", async () => {
    const res = await request(`${b.secretsUrl}/transform/alphabet/digits`, {
      method: "POST", headers: { "x-svc-token": b.tokens.secretsRoot, "content-type": "application/json" },
      body: JSON.stringify({ alphabet: "0123456789ab" }),
    });
    expect(res.statusCode).toBeLessThan(300);
    await res.body.text();
    expect((await run("refresh")).error).toBeUndefined();
    const preview = await run("preview");
    const step = preview.steps.find((s) => s.name === "on-b")!;
    expect(step.op).toBe("update");
    expect(step.changedKeys).toEqual(["alphabet"]);
    expect((await run("up")).error).toBeUndefined();
    const again = await run("preview");
    expect(again.steps.find((s) => s.name === "on-b")!.op).toBe("same");
  });

  it("previews pointing svc:secretsUrl at another server as a replacement of what lives on the old one", async () => {
    const r = await run("preview", { secretsAtB: true });
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ "on-a": "replace", "on-b": "same", "key-b": "same", "run-a": "same", "run-b": "same" });
    expect(r.steps.find((s) => s.name === "on-a")!.replaceKeys).toEqual(["serverUrl"]);
    expect(await alphabet(b, "letters")).toBe(404); // preview changed nothing
  });

  it("moves a resource to another server through its connection: created there, deleted from the old one", async () => {
    const preview = await run("preview", { move: true });
    expect(ops(preview)["on-a"]).toBe("replace");
    const r = await run("up", { move: true });
    expect(r.error).toBeUndefined();
    expect(ops(r)["on-a"]).toBe("replace");
    expect(r.outputs.onAServer).toBe(b.secretsUrl);
    expect(await alphabet(a, "letters")).toBe(404);
    expect(await alphabet(b, "letters")).toBe(200);
    const text = fs.readFileSync(state, "utf8");
    for (const t of tokens()) expect(text).not.toContain(t);
  });

  it("refreshes and destroys on the servers recorded in state", async () => {
    const refreshed = await run("refresh", { move: true });
    expect(refreshed.error).toBeUndefined();
    const r = await run("destroy", { move: true });
    expect(r.error).toBeUndefined();
    expect([await alphabet(b, "letters"), await alphabet(b, "digits"), await alphabet(a, "letters")]).toEqual([404, 404, 404]);
  });
});

describe("a state written before serverUrl existed", () => {
  const legacy = path.join(root, "test/program/fixtures/legacy-state.js");
  let file: string;

  function runLegacy(operation: "preview" | "up" | "refresh" | "destroy", alphabetValue = "abcdef"): Promise<Result> {
    return runProgram({
      operation, program: legacy, state: file, cwd: root, stack: "dev", project: "pulumi-svc-legacy",
      config: { "svc:runUrl": a.runUrl, "svc:secretsUrl": a.secretsUrl, "legacy:workspace": a.workspaceId, "legacy:alphabet": alphabetValue },
      secretConfig: { "svc:runToken": a.tokens.runAdmin, "svc:secretsToken": a.tokens.secretsRoot },
      env: withoutSvcEnv() as Record<string, string>,
      timeoutMs: 120_000,
    });
  }

  /** Rewrites the state as an older version wrote it: no serverUrl in any resource's inputs or outputs. */
  function stripServerUrl(): void {
    const saved = JSON.parse(fs.readFileSync(file, "utf8")) as { resources: { custom: boolean; inputs: Record<string, unknown>; outputs: Record<string, unknown> }[] };
    const custom = saved.resources.filter((r) => r.custom);
    expect(custom.length).toBe(2);
    for (const r of custom) {
      delete r.inputs.serverUrl;
      delete r.outputs.serverUrl;
    }
    fs.writeFileSync(file, JSON.stringify(saved));
  }

  const recorded = () => (JSON.parse(fs.readFileSync(file, "utf8")) as { resources: { name: string; outputs: Record<string, unknown> }[] }).resources
    .filter((r) => r.name.startsWith("legacy-")).map((r) => [r.name, r.outputs.serverUrl]);

  beforeAll(() => {
    file = path.join(dir, "legacy.json");
  });

  it("previews without a diff, refreshes, updates and destroys on the configured server", async () => {
    expect((await runLegacy("up")).error).toBeUndefined();
    stripServerUrl();
    expect(recorded()).toEqual([["legacy-alphabet", undefined], ["legacy-run", undefined]]);

    // No spurious replacement or update for the missing serverUrl.
    const preview = await runLegacy("preview");
    expect(preview.error).toBeUndefined();
    expect(ops(preview)).toEqual({ "legacy-alphabet": "same", "legacy-run": "same" });

    // Refresh reads from the configured server and records it.
    const refreshed = await runLegacy("refresh");
    expect(refreshed.error).toBeUndefined();
    expect(ops(refreshed)).toEqual({ "legacy-alphabet": "refresh", "legacy-run": "refresh" });
    expect(recorded()).toEqual([["legacy-alphabet", a.secretsUrl], ["legacy-run", a.runUrl]]);
    expect(ops(await runLegacy("preview"))).toEqual({ "legacy-alphabet": "same", "legacy-run": "same" });

    // An update of a resource whose state has no serverUrl goes to the configured server, in place.
    stripServerUrl();
    const updated = await runLegacy("up", "abcdefgh");
    expect(updated.error).toBeUndefined();
    expect(ops(updated)).toEqual({ "legacy-alphabet": "update", "legacy-run": "same" });
    const res = await request(`${a.secretsUrl}/transform/alphabet/legacy`, { headers: { "x-svc-token": a.tokens.secretsRoot } });
    expect(((await res.body.json()) as { data: { alphabet: string } }).data.alphabet).toBe("abcdefgh");
    expect(recorded()[0]).toEqual(["legacy-alphabet", a.secretsUrl]);

    // Destroy deletes from the configured server.
    stripServerUrl();
    const destroyed = await runLegacy("destroy", "abcdefgh");
    expect(destroyed.error).toBeUndefined();
    expect(await alphabet(a, "legacy")).toBe(404);
    expect(recorded()).toEqual([]);
  });
});
