// Program tests: the fixture program runs under setMocks in a child process, every dynamic
// resource registration goes through the real dynamic-provider host, and state persists
// between operations as it would between `pulumi` commands.
import { execFileSync } from "child_process";
import * as path from "path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliArgs, cliPath, killAll } from "../../src/engine/program";
import { DEFAULT_PASSPHRASE, loadState } from "../../src/engine/state";
import { UNKNOWN, isSecret } from "../../src/engine/values";
import { PASSWORD, Stack, buildEngine, byName, fixtures } from "./helpers";

const stacks: Stack[] = [];
const newStack = (): Stack => {
  const s = new Stack();
  stacks.push(s);
  return s;
};

beforeAll(() => buildEngine());

afterAll(() => {
  killAll();
  for (const s of stacks) s.remove();
});

describe("preview, up, update, refresh on one stack", () => {
  const stack = newStack();

  it("preview checks and diffs only: nothing is created and no state is written", async () => {
    const r = await stack.run("preview");
    expect(r.error).toBeUndefined();
    expect(r.steps.map((s) => `${s.op} ${s.name}`).sort()).toEqual(["create alpha", "create beta", "create delta", "create gamma"]);
    expect(stack.calls()).toEqual([]);
    expect(Object.keys(stack.store())).toEqual([]);
    expect(() => stack.stateText()).toThrow();
    // Inputs are known; output-only values are unknown; secrets stay secret.
    expect(r.outputs).toMatchObject({ alphaValue: "v1", betaValue: "v1+beta", gammaToken: UNKNOWN, gammaRevision: UNKNOWN, alphaPassword: "[secret]" });
    expect(r.diagnostics).toContain("fixture program step 1");
  });

  it("up creates everything and writes state with secrets encrypted", async () => {
    const r = await stack.run("up");
    expect(r.error).toBeUndefined();
    expect(r.steps.every((s) => s.op === "create")).toBe(true);
    expect(stack.calls().sort()).toEqual(["create alpha", "create beta", "create delta", "create gamma"]);
    expect(r.outputs).toEqual({
      alphaValue: "v1",
      alphaPassword: "[secret]",
      betaValue: "v1+beta",
      gammaToken: "[secret]",
      gammaRevision: 1,
      nested: { plain: "x", secret: "[secret]" },
    });

    // The stack config reached the provider's configure(req) through the host's Configure.
    expect(stack.configureLog().at(-1)).toEqual({ dir: stack.dir, greeting: "hi", hasToken: false });

    const text = stack.stateText();
    expect(text).toContain('"secure"');
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain("s3cr3t-nested");
    for (const item of Object.values(stack.store())) expect(text).not.toContain(item.token as string);

    const { state } = loadState(stack.state, DEFAULT_PASSPHRASE);
    const alpha = state.resources.find((x) => x.name === "alpha")!;
    expect(alpha.secretOutputs.sort()).toEqual(["password", "token"]);
    expect(isSecret(alpha.inputs.password) && alpha.inputs.password.value).toBe(PASSWORD);
    expect(typeof alpha.inputs.__provider).toBe("string");
    expect(typeof alpha.outputs.__provider).toBe("string");
    const urn = (n: string) => `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/fixture:StoreItem::${n}`;
    expect(state.resources.find((x) => x.name === "beta")!.dependencies).toEqual([urn("alpha")]);
    expect(state.resources.find((x) => x.name === "gamma")!.dependencies).toEqual([urn("beta")]);
    expect(() => loadState(stack.state, "wrong passphrase")).toThrow(/PULUMI_CONFIG_PASSPHRASE/);
    expect(JSON.stringify(r)).not.toContain(PASSWORD);
  });

  it("up again with no change is all `same` and calls no create/update/delete", async () => {
    const calls = await stack.callsDuring(async () => {
      const r = await stack.run("up");
      expect(r.steps.map((s) => s.op)).toEqual(["same", "same", "same", "same"]);
      expect(r.outputs.gammaRevision).toBe(1);
    });
    expect(calls).toEqual([]);
  });

  it("preview of step 2 shows update, both replaces and the delete without calling the provider", async () => {
    const calls = await stack.callsDuring(async () => {
      const r = await stack.run("preview", "2");
      expect(byName(r, "alpha")).toMatchObject({ op: "update", changedKeys: ["value"] });
      expect(byName(r, "beta")).toMatchObject({ op: "replace", replaceKeys: ["kind"], deleteBeforeReplace: true });
      expect(byName(r, "gamma")).toMatchObject({ op: "replace", replaceKeys: ["name"], deleteBeforeReplace: false });
      expect(byName(r, "delta")).toMatchObject({ op: "delete" });
      expect(r.steps).toHaveLength(4);
    });
    expect(calls).toEqual([]);
  });

  it("up of step 2 updates, replaces in the right order and deletes what left the program", async () => {
    const calls = await stack.callsDuring(async () => {
      const r = await stack.run("up", "2");
      expect(r.error).toBeUndefined();
      expect(r.steps.map((s) => `${s.op} ${s.name}`)).toEqual(["update alpha", "replace beta", "replace gamma", "delete delta"]);
      expect(r.outputs).toMatchObject({ alphaValue: "v1-changed", betaValue: "v1-changed+beta", gammaRevision: 1 });
    });
    // beta keeps its name, so delete-before-replace; gamma's new name is created before the old goes.
    expect(calls).toEqual(["update alpha", "delete beta", "create beta", "create gamma2", "delete delta", "delete gamma"]);
    expect(Object.keys(stack.store()).sort()).toEqual(["alpha", "beta", "gamma2"]);
    const { state } = loadState(stack.state, DEFAULT_PASSPHRASE);
    expect(state.resources.map((x) => `${x.name}=${x.id}`).sort()).toEqual(["alpha=alpha", "beta=beta", "gamma=gamma2"]);
    expect(state.resources.some((x) => x.delete)).toBe(false);
  });

  it("refresh drops an object deleted out of band and picks up drift; an output that moved alone is no change, as for the engine", async () => {
    stack.editStore((data) => {
      delete data.gamma2;
      data.beta!.value = "drifted";
      // The provider's diff does not look at it: the engine decides a refresh's update by that diff.
      data.alpha!.revision = 99;
    });
    const r = await stack.run("refresh");
    expect(r.error).toBeUndefined();
    expect(byName(r, "gamma")).toMatchObject({ op: "read-gone" });
    expect(byName(r, "beta")).toMatchObject({ op: "refresh", changedKeys: ["value"] });
    expect(byName(r, "alpha")).toMatchObject({ op: "refresh", changedKeys: [] });
    const { state } = loadState(stack.state, DEFAULT_PASSPHRASE);
    expect(state.resources.map((x) => x.name).sort()).toEqual(["alpha", "beta"]);
    expect(state.resources.find((x) => x.name === "beta")!.outputs.value).toBe("drifted");
    // Secretness survives the refresh.
    expect(isSecret(state.resources.find((x) => x.name === "alpha")!.outputs.password)).toBe(true);
  });
});

describe("a replacement deleted first cascades to what takes an input from it, as the engine's dependent replacements", () => {
  it("preview and up replace eta and iota (names from beta's, then eta's) before beta, not theta (a value from beta's)", async () => {
    const stack = newStack();
    expect((await stack.run("up", "cascade")).error).toBeUndefined();
    const preview = await stack.callsDuring(async () => {
      const r = await stack.run("preview", "cascade-2");
      expect(r.error).toBeUndefined();
      expect(r.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.name}`)).toEqual(["replace iota", "replace eta", "replace beta"]);
      // As the engine reports a dependent it replaces: no reason of its own, and here no input of
      // its own changes (beta keeps the name eta's comes from).
      expect(byName(r, "eta")).toMatchObject({ replaceKeys: [], changedKeys: [], deleteBeforeReplace: true });
      expect(byName(r, "theta")).toMatchObject({ op: "same" });
    });
    expect(preview).toEqual([]);
    const calls = await stack.callsDuring(async () => {
      const r = await stack.run("up", "cascade-2");
      expect(r.error).toBeUndefined();
      expect(r.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.name}`)).toEqual(["replace iota", "replace eta", "replace beta"]);
    });
    // Dependents first, then beta; created again in the program's order.
    expect(calls).toEqual(["delete beta-eta-iota", "delete beta-eta", "delete beta", "create beta", "create beta-eta", "create beta-eta-iota"]);
    const { state } = loadState(stack.state, DEFAULT_PASSPHRASE);
    expect(state.resources.map((x) => x.name).sort()).toEqual(["alpha", "beta", "delta", "eta", "gamma", "iota", "theta"]);
    expect(state.resources.find((x) => x.name === "eta")!.propertyDependencies).toEqual({ name: [state.resources.find((x) => x.name === "beta")!.urn] });
    expect((await stack.run("up", "cascade-2")).steps.every((s) => s.op === "same")).toBe(true);
  });

  it("a dependent the program no longer declares is only deleted", async () => {
    const stack = newStack();
    expect((await stack.run("up", "cascade")).error).toBeUndefined();
    const calls = await stack.callsDuring(async () => {
      const r = await stack.run("up", "cascade-drop");
      expect(r.error).toBeUndefined();
      expect(r.steps.filter((s) => s.op !== "same").map((s) => `${s.op} ${s.name}`)).toEqual(["delete iota", "delete eta", "replace beta"]);
    });
    expect(calls).toEqual(["delete beta-eta-iota", "delete beta-eta", "delete beta", "create beta"]);
    expect(Object.keys(stack.store()).sort()).toEqual(["alpha", "beta", "delta", "gamma", "theta"]);
  });
});

describe("destroy", () => {
  it("deletes every resource in reverse dependency order and empties the state", async () => {
    const stack = newStack();
    expect((await stack.run("up")).error).toBeUndefined();
    const calls = await stack.callsDuring(async () => {
      const r = await stack.run("destroy");
      expect(r.error).toBeUndefined();
      expect(r.steps.every((s) => s.op === "delete")).toBe(true);
      expect(r.steps).toHaveLength(4);
      expect(r.outputs).toEqual({});
    });
    expect(calls.indexOf("delete gamma")).toBeLessThan(calls.indexOf("delete beta"));
    expect(calls.indexOf("delete beta")).toBeLessThan(calls.indexOf("delete alpha"));
    expect(stack.store()).toEqual({});
    expect(loadState(stack.state, DEFAULT_PASSPHRASE).state.resources).toEqual([]);
  });
});

describe("protect, with and without the preview (as the CLI's --skip-preview)", () => {
  it("up previews first: a protected resource left out of the program stops it before any change", async () => {
    const stack = newStack();
    expect((await stack.run("up", "guard")).error).toBeUndefined();
    const before = stack.stateText();
    const calls = await stack.callsDuring(async () => {
      const r = await stack.run("up", "guard-2");
      expect(r.error).toMatch(/^preview failed: .*zeta is protected/);
      expect(byName(r, "zeta")).toMatchObject({ op: "delete", error: expect.stringMatching(/protected/) });
    });
    expect(calls).toEqual([]);
    expect(stack.stateText()).toBe(before);
  });

  it("up --skip-preview makes the creates and updates, then stops at the protected delete", async () => {
    const stack = newStack();
    expect((await stack.run("up", "guard")).error).toBeUndefined();
    const calls = await stack.callsDuring(async () => {
      const r = await stack.run("up", "guard-2", "program.js", { skipPreview: true });
      expect(r.error).toMatch(/zeta is protected/);
    });
    expect(calls).toEqual(["update alpha", "update beta"]);
    const kept = loadState(stack.state, DEFAULT_PASSPHRASE).state.resources;
    expect(kept.find((x) => x.name === "zeta")?.protect).toBe(true);
    expect(stack.store().alpha?.value).toBe("v1-changed");
  });

  it("destroy refuses before any delete; destroy --skip-preview deletes all but the protected resource and what it depends on", async () => {
    const stack = newStack();
    expect((await stack.run("up", "guard")).error).toBeUndefined();
    const refused = await stack.callsDuring(async () => expect((await stack.run("destroy", "guard")).error).toMatch(/zeta is protected/));
    expect(refused).toEqual([]);
    const calls = await stack.callsDuring(async () => {
      const r = await stack.run("destroy", "guard", "program.js", { skipPreview: true });
      expect(r.error).toMatch(/zeta is protected/);
    });
    // The engine goes on past a protected resource (to report every one); only delta, which zeta
    // depends on, has to stay.
    expect(calls).toEqual(["delete gamma", "delete beta", "delete alpha"]);
    expect(loadState(stack.state, DEFAULT_PASSPHRASE).state.resources.map((x) => x.name).sort()).toEqual(["delta", "zeta"]);
  });
});

describe("failures", () => {
  it("a partial failure keeps the object in state; the next up updates it", async () => {
    const stack = newStack();
    const r = await stack.run("up", "fail");
    expect(r.error).toContain("epsilon did not become ready");
    expect(byName(r, "epsilon")).toMatchObject({ op: "create", error: "epsilon did not become ready" });
    const { state } = loadState(stack.state, DEFAULT_PASSPHRASE);
    const eps = state.resources.find((x) => x.name === "epsilon")!;
    expect(eps).toMatchObject({ id: "epsilon", initErrors: ["not ready"] });
    expect(eps.outputs.value).toBe("v5");

    const again = await stack.run("up", "fail");
    expect(again.error).toBeUndefined();
    expect(byName(again, "epsilon")).toMatchObject({ op: "update" });
    expect(loadState(stack.state, DEFAULT_PASSPHRASE).state.resources.find((x) => x.name === "epsilon")!.initErrors).toBeUndefined();
  });

  it("check failures fail the step and stop the deployment", async () => {
    const stack = newStack();
    const r = await stack.run("up", "bad");
    expect(r.error).toContain("value: must not be bad");
    const failed = r.steps.findIndex((s) => s.error);
    expect(r.steps[failed]).toMatchObject({ name: "alpha", op: "create" });
    expect(r.steps.slice(failed + 1)).toEqual([]);
    expect(stack.calls()).not.toContain("create alpha");
    expect(loadState(stack.state, DEFAULT_PASSPHRASE).state.resources.map((x) => x.name)).not.toContain("alpha");
  });
});

describe("components", () => {
  it("records a component and its child; the child is deleted first", async () => {
    const stack = newStack();
    const up = await stack.run("up", "1", "component-program.js");
    expect(up.error).toBeUndefined();
    expect(up.steps.map((s) => `${s.op} ${s.type} ${s.name}`)).toEqual([
      "create fixture:index:Group group",
      "create pulumi-nodejs:dynamic/fixture:StoreItem group-item",
    ]);
    // The child's URN carries its parent's type, as the engine builds it.
    expect(up.steps[1]!.urn).toBe("urn:pulumi:dev::proj::fixture:index:Group$pulumi-nodejs:dynamic/fixture:StoreItem::group-item");
    expect(up.outputs).toEqual({ itemId: "group-item" });
    const { state } = loadState(stack.state, DEFAULT_PASSPHRASE);
    expect(state.resources.find((x) => x.name === "group-item")!.parent).toBe(up.steps[0]!.urn);
    expect(state.resources.find((x) => x.name === "group")!.outputs).toEqual({ itemId: "group-item" });

    const down = await stack.run("destroy", "1", "component-program.js");
    expect(down.steps.map((s) => `${s.op} ${s.name}`)).toEqual(["delete group-item", "delete group"]);
    expect(stack.calls()).toEqual(["create group-item", "delete group-item"]);
  });
});

describe("cli", () => {
  it("prints a readable plan without --json", () => {
    const stack = newStack();
    const args = cliArgs({
      operation: "preview",
      program: path.join(fixtures, "program.js"),
      state: stack.state,
      stack: "dev",
      project: "proj",
      cwd: fixtures,
      config: { "fixture:dir": stack.dir },
      secretConfig: { "fixture:password": PASSWORD },
    }).filter((a) => a !== "--json");
    const out = execFileSync(process.execPath, [cliPath(), ...args], { cwd: fixtures, encoding: "utf8" });
    expect(out).toContain("+ create  pulumi-nodejs:dynamic/fixture:StoreItem  alpha");
    expect(out).toContain("Outputs:");
    expect(out).toContain('alphaPassword: "[secret]"');
    expect(out).not.toContain(PASSWORD);
  });
});
