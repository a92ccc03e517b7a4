// Connections: one program addressing two secrets servers and two run servers through the engine
// double; moving a resource to another server is a replacement; no token in state or provider text.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator";
import { UNKNOWN } from "../../src/engine/program";
import { root } from "../support/dist";
import { runApi, secretsApi } from "../support/emulator";
import { useProgram } from "../support/program";

const alphabet = async (emu: Emulator, name: string): Promise<number> => (await secretsApi(emu, "GET", `/transform/alphabet/${name}`)).status;
/** The messages of a workspace's runs, without the claim a Run's run carries at the end (`[pulumi-svc …]`). */
const runsOn = async (emu: Emulator): Promise<string[]> =>
  ((await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/runs`)).body as { data: { attributes: { message: string } }[] }).data
    .map((r) => r.attributes.message.replace(/ \[pulumi-svc [0-9a-f]{12}\]$/, ""));

describe("a program with two secrets servers and two run servers", () => {
  const { emus, run: runStack, ops, state } = useProgram({
    program: path.join(root, "test/program/fixtures/connections.js"), project: "pulumi-svc-connections",
    emulators: 2, secretsToken: "secretsRoot",
    config: ({ emus: [a, b] }) => ({
      "conn:secretsUrlB": b.secretsUrl, "conn:runUrlB": b.runUrl, "conn:workspaceA": a.workspaceId, "conn:workspaceB": b.workspaceId,
    }),
    secretConfig: ({ emus: [, b] }) => ({ "conn:secretsTokenB": b.tokens.secretsRoot, "conn:runTokenB": b.tokens.runAdmin }),
  });
  const [a, b] = emus;

  /** move: "on-a" gets server B's connection; secretsAtB: svc:secretsUrl (and token) name server B. */
  const run = (operation: "preview" | "up" | "refresh" | "destroy", extra: { move?: boolean; secretsAtB?: boolean } = {}) =>
    runStack(operation, 1, {
      config: { ...(extra.secretsAtB ? { "svc:secretsUrl": b.secretsUrl } : {}), ...(extra.move ? { "conn:move": "true" } : {}) },
      secretConfig: extra.secretsAtB ? { "svc:secretsToken": b.tokens.secretsRoot } : {},
    });
  const tokens = (): string[] => [...Object.values(a.tokens), ...Object.values(b.tokens)];

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
      keysOnB: ["only-on-b"], keysOnA: [], keyBType: "aes256-gcm96",
      // The run the Run queued carries its resource's claim (docs/behaviour.md, "When a deploy is cancelled").
      runBMessage: expect.stringMatching(/^on B \[pulumi-svc [0-9a-f]{12}\]$/),
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
    expect((await secretsApi(b, "POST", "/transform/alphabet/digits", { alphabet: "0123456789ab" })).status).toBeLessThan(300);
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
  const { emu: a, run, ops, state: file, secretsApi: api } = useProgram({
    program: path.join(root, "test/program/fixtures/legacy-state.js"), project: "pulumi-svc-legacy", secretsToken: "secretsRoot",
    config: ({ emu }) => ({ "legacy:workspace": emu.workspaceId }),
  });

  const runLegacy = (operation: "preview" | "up" | "refresh" | "destroy", alphabetValue = "abcdef") =>
    run(operation, 1, { config: { "legacy:alphabet": alphabetValue } });

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
    expect((await api("GET", "/transform/alphabet/legacy")).body.data.alphabet).toBe("abcdefgh");
    expect(recorded()[0]).toEqual(["legacy-alphabet", a.secretsUrl]);

    // Destroy deletes from the configured server.
    stripServerUrl();
    const destroyed = await runLegacy("destroy", "abcdefgh");
    expect(destroyed.error).toBeUndefined();
    expect(await alphabet(a, "legacy")).toBe(404);
    expect(recorded()).toEqual([]);
  });
});
