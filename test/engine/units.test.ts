// Unit tests for the engine double's pure parts: secret marking, state encryption, delete order.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { describe, expect, it } from "vitest";
import { deleteOrder, deleteWaves, markOutputs } from "../../src/engine/rules";
import { SecretBox, StateResource, loadState, saveState } from "../../src/engine/state";
import { annotateSecrets, changedKeys, plain, redact, secret } from "../../src/engine/values";

describe("secret marking", () => {
  it("annotateSecrets follows objects key by key and wraps other values whole", () => {
    const ins = { a: secret("x"), nested: { k: secret("y"), open: "z" }, list: ["p", secret("q")], plain: "v" };
    const outs = { a: "x", nested: { k: "y", open: "z" }, list: ["p", "q"], plain: "v", extra: 1 };
    expect(annotateSecrets(outs, ins)).toEqual({
      a: secret("x"),
      nested: { k: secret("y"), open: "z" },
      list: secret(["p", "q"]),
      plain: "v",
      extra: 1,
    });
  });

  it("markOutputs adds additionalSecretOutputs and lists every key holding a secret", () => {
    const { outputs, secretOutputs } = markOutputs({ token: "t", password: "p", name: "n" }, ["token", "missing"], { password: secret("p") });
    expect(outputs).toEqual({ token: secret("t"), password: secret("p"), name: "n" });
    expect(secretOutputs.sort()).toEqual(["password", "token"]);
  });

  it("plain strips secrets deeply and redact hides them", () => {
    const v = { a: secret({ b: secret(1) }), c: [secret("d")] };
    expect(plain(v)).toEqual({ a: { b: 1 }, c: ["d"] });
    expect(redact(v)).toEqual({ a: "[secret]", c: ["[secret]"] });
  });

  it("changedKeys ignores __provider and secret wrappers", () => {
    expect(changedKeys({ __provider: "1", a: secret("x"), b: 1 }, { __provider: "2", a: "x", b: 2, c: true })).toEqual(["b", "c"]);
  });
});

describe("state file", () => {
  it("encrypts every secret with AES-256-GCM and reads it back", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "engine-state-")), "s.json");
    const box = SecretBox.fresh("pass one");
    const r: StateResource = {
      urn: "urn:pulumi:dev::p::t::n", type: "t", name: "n", id: "n", custom: true, dependencies: [],
      inputs: { password: secret("plaintext-in") }, outputs: { token: secret({ deep: "plaintext-out" }), open: "visible" }, secretOutputs: ["token"],
    };
    saveState(file, { resources: [r], outputs: { out: secret("plaintext-stack") } }, box);
    const text = fs.readFileSync(file, "utf8");
    expect(text).not.toMatch(/plaintext-/);
    expect(text).toContain("visible");
    const back = loadState(file, "pass one");
    expect(back.state.resources[0]).toEqual(r);
    expect(back.state.outputs).toEqual({ out: secret("plaintext-stack") });
    expect(() => loadState(file, "pass two")).toThrow(/PULUMI_CONFIG_PASSPHRASE/);
    fs.rmSync(path.dirname(file), { recursive: true });
  });

  it("derives a fresh stack's key in the thread pool, the key a reader of the file derives", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "engine-state-")), "s.json");
    const box = SecretBox.fresh("pass ahead");
    await box.ready();
    saveState(file, { resources: [], outputs: { out: secret("plaintext-ahead") } }, box);
    expect(fs.readFileSync(file, "utf8")).not.toMatch(/plaintext-/);
    expect(loadState(file, "pass ahead").state.outputs).toEqual({ out: secret("plaintext-ahead") });
    expect(new SecretBox("pass ahead", box.salt).decrypt((box.encrypt("x") as { secure: string }).secure)).toBe("x");
    expect(() => loadState(file, "pass behind")).toThrow(/PULUMI_CONFIG_PASSPHRASE/);
    fs.rmSync(path.dirname(file), { recursive: true });
  });

  it("an absent file is an empty stack", () => {
    expect(loadState("/nonexistent/state.json", "x").state).toEqual({ resources: [], outputs: {} });
  });
});

describe("deleteOrder", () => {
  const res = (name: string, dependencies: string[] = [], parent?: string): StateResource => ({
    urn: name, type: "t", name, id: name, custom: true, inputs: {}, outputs: {}, secretOutputs: [], dependencies, ...(parent ? { parent } : {}),
  });

  it("deletes dependents and children before what they depend on", () => {
    const a = res("a");
    const b = res("b", ["a"]);
    const c = res("c", ["b"]);
    const comp = res("comp");
    const child = res("child", [], "comp");
    const order = deleteOrder([child, c, a, comp, b]).map((r) => r.name);
    expect(order.indexOf("c")).toBeLessThan(order.indexOf("b"));
    expect(order.indexOf("b")).toBeLessThan(order.indexOf("a"));
    expect(order.indexOf("child")).toBeLessThan(order.indexOf("comp"));
    expect(order).toHaveLength(5);
  });

  it("schedules deletes in waves as the engine does: levels from what depends on nothing, reversed", () => {
    const a = res("a");
    const b = res("b", ["a"]);
    const c = res("c", ["b"]);
    const d = res("d", ["a"]);
    const lone = res("lone");
    const comp = res("comp");
    const child = res("child", [], "comp");
    const waves = deleteWaves([a, b, c, d, lone, comp, child]).map((w) => w.map((r) => r.name).sort());
    expect(waves).toEqual([["c"], ["b", "child", "d"], ["a", "comp", "lone"]]);
  });
});

describe("pulumi-svc-engine's arguments", () => {
  it("--help prints the usage on standard output and exits 0; a wrong operation exits 2 on standard error", async () => {
    const { buildEngine } = await import("./helpers");
    const { spawnSync } = await import("child_process");
    buildEngine();
    const cli = path.join(__dirname, "../../dist/src/engine/cli.js");
    for (const args of [["--help"], ["up", "--help"], ["-h"]]) {
      const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
      expect(r.status, args.join(" ")).toBe(0);
      expect(r.stdout).toMatch(/^Usage: pulumi-svc-engine </);
      expect(r.stderr).toBe("");
    }
    const wrong = spawnSync(process.execPath, [cli, "launch"], { encoding: "utf8" });
    expect(wrong.status).toBe(2);
    expect(wrong.stdout).toBe("");
    expect(wrong.stderr).toMatch(/^unknown operation launch\nUsage: pulumi-svc-engine </);
  });
});
