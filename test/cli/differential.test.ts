// The engine double (src/engine) against the real CLI: every example, run the same way by both on
// a freshly reset emulator, must give the same planned operations per resource, the same order
// along dependencies and replacements, the same outputs (and which are secret), the same refresh
// results after out-of-band edits and the same final states, ids and timestamps aside. The engine
// runs independent steps in parallel, so only the order it defines is compared: a resource's step
// against the steps of the resources it depends on, and delete-first or create-first replacement.
// Then protect (with and without the preview) and aliases on a test program.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { runProgram } from "../../src/engine/program";
import { DEFAULT_PASSPHRASE, loadState } from "../../src/engine/state";
import type { Operation, Result } from "../../src/engine/types";
import { control } from "../support/emulator";
import { root, withoutSvcEnv } from "../support/dist";
import { skipWithoutPostgres } from "../support/postgres";
import { CliStack, describeCli, nameOf, ops, type JsonResult } from "./cli";
import { examples, outputValues, prepareExample, serviceRequest, type Expectations } from "./expectations";

let emu: Emulator;
let dir: string;
const stacks: CliStack[] = [];

beforeAll(async () => {
  // Two secrets clusters for the replication example; the others use cluster 0 only.
  emu = await startEmulator({ clusters: 2 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "differential-"));
});

afterAll(async () => {
  // Stacks of a failed test are removed here (a passing test removes its own).
  for (const s of stacks) s.remove();
  await emu?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Values that differ between two deployments by nature, at any depth: ids, timestamps, the
 * serialized provider, key material (`keys`, `publicKey`), what a KMS calls a distributed key and
 * its versions (`providerKeyName`, made from the time; `versions`), and random accessors
 * (`wrappedAccessor` of a wrapped activation token).
 */
const incidental = (k: string) => /(^id$|Id$|At$|Time$|Timestamps$|^date$|^__provider$|^keys$|^publicKey$|^providerKeyName$|^versions$|Accessor$|^lastServiceRotation$|^passwordLastSet$)/.test(k);
const isSecret = (v: unknown) => v === "[secret]" || (!!v && typeof v === "object" && "4dabf18193072939515e22adb298388d" in v);

/**
 * Each side has its own PostgreSQL (a fresh one, as the example starts from nothing): its port,
 * wherever it appears in a string (a store's connection URL), is compared as `{pgPort}`.
 */
let own: Record<string, string> = {};

function strip(v: unknown): unknown {
  if (typeof v === "string") return Object.entries(own).reduce((text, [k, x]) => text.split(x).join(`{${k}}`), v);
  if (Array.isArray(v)) return v.map(strip);
  if (!v || typeof v !== "object") return v;
  return Object.fromEntries(Object.entries(v).filter(([k, x]) => !incidental(k) && !isSecret(x)).map(([k, x]) => [k, strip(x)]));
}

const secretKeys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => isSecret(o[k])).sort();

/** Outputs to compare: values (secrets and incidental keys left out) and which keys are secret. */
const comparable = (o: Record<string, unknown> = {}) => ({ values: strip(o), secret: secretKeys(o) });

type Ops = Record<string, string>;
interface Res { name: string; type: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown>; dependencies: string[] }

function states(list: Res[]): Record<string, unknown> {
  return Object.fromEntries(list.map((r) => [r.name, {
    type: r.type, inputs: comparable(r.inputs), outputs: comparable(r.outputs), dependencies: [...r.dependencies].sort(),
  }]));
}

/**
 * The order facts of a run: for each two resources of which one depends on the other, which one's
 * step came first. `order` lists resources by their first step; `deps` maps a name to its dependencies.
 */
function orderFacts(order: string[], deps: Record<string, string[]>): string[] {
  const facts: string[] = [];
  order.forEach((a, i) => order.slice(i + 1).forEach((b) => {
    if (deps[a]?.includes(b) || deps[b]?.includes(a)) facts.push(`${a} before ${b}`);
  }));
  return facts.sort();
}

const pgValues = (extra: Record<string, string>): Record<string, string> => (extra.pgPort ? { pgPort: extra.pgPort } : {});

const firstSeen = (names: string[]) => names.filter((n, i) => names.indexOf(n) === i);

/** What one side saw over the whole sequence of an example. */
type Trace = Record<string, unknown>;

/** The sequence both sides run: preview, up, step2 preview and up, out-of-band edits, refresh, up, destroy. */
interface Side {
  preview(step2: boolean): Promise<Ops>;
  /** Operations, first-step order, and per replaced resource whether it was deleted first. */
  up(step2: boolean): Promise<{ ops: Ops; order: string[]; deleteFirst: Record<string, boolean> }>;
  outputs(): Promise<Record<string, unknown>>;
  resources(): Promise<Res[]>;
  /** What refresh did per resource: `update` or `delete` (unchanged ones left out). */
  refresh(): Promise<Ops>;
  destroy(): Promise<{ ops: Ops; order: string[] }>;
  close(): void;
}

async function trace(exp: Expectations, side: Side, hasStep2: boolean): Promise<Trace> {
  const t: Trace = {};
  const deps = async () => Object.fromEntries((await side.resources()).map((r) => [r.name, r.dependencies]));
  const up = async (step2: boolean, key: string) => {
    const r = await side.up(step2);
    t[`${key}: operations`] = r.ops;
    t[`${key}: order along dependencies`] = orderFacts(r.order, await deps());
    t[`${key}: replacements deleted first`] = r.deleteFirst;
  };
  t["preview"] = await side.preview(false);
  await up(false, "up");
  t["outputs after up"] = comparable(await side.outputs());
  t["state after up"] = states(await side.resources());
  if (hasStep2) {
    t["step2 preview"] = await side.preview(true);
    await up(true, "step2 up");
    t["outputs after step2"] = comparable(await side.outputs());
    t["state after step2"] = states(await side.resources());
  }
  const placeholders = outputValues(await side.outputs());
  for (const edit of [exp.outOfBand?.change, exp.outOfBand?.delete]) {
    if (edit) expect(await serviceRequest(emu, edit.request, placeholders)).toBeLessThan(300);
  }
  t["refresh"] = await side.refresh();
  t["state after refresh"] = states(await side.resources());
  await up(hasStep2, "up after refresh");
  const before = await deps();
  const d = await side.destroy();
  t["destroy: operations"] = d.ops;
  t["destroy: order along dependencies"] = orderFacts(d.order, before);
  t["state after destroy"] = states(await side.resources());
  return t;
}

function cliSide(stack: CliStack): Side {
  const failed = (r: JsonResult & { code: number; text: string }) => {
    if (r.code !== 0) throw new Error(`the CLI failed (exit ${r.code}):\n${r.text}`);
    return r;
  };
  const order = (r: JsonResult) => firstSeen(r.steps.filter((s) => s.op !== "same" && !s.urn.includes("::pulumi:pulumi:Stack::")).map((s) => nameOf(s.urn)));
  return {
    async preview(step2) {
      stack.step2(step2);
      return ops(failed(await stack.preview()));
    },
    async up(step2) {
      stack.step2(step2);
      const r = failed(await stack.up());
      const deleteFirst: Record<string, boolean> = {};
      for (const [n, op] of Object.entries(ops(r))) {
        if (op !== "replace") continue;
        const steps = r.steps.filter((s) => nameOf(s.urn) === n).map((s) => s.op);
        deleteFirst[n] = steps.indexOf("delete-replaced") < steps.indexOf("create-replacement");
      }
      return { ops: ops(r), order: order(r), deleteFirst };
    },
    outputs: () => stack.outputs(false),
    async resources() {
      return ((await stack.state()).resources ?? []).filter((r) => r.type.startsWith("pulumi-nodejs:"))
        .map((r) => ({ name: nameOf(r.urn), type: r.type, inputs: r.inputs, outputs: r.outputs, dependencies: (r.dependencies ?? []).map(nameOf) }));
    },
    async refresh() {
      const r = failed(await stack.refresh());
      return Object.fromEntries(Object.entries(r.outcomes ?? {}).filter(([, op]) => op !== "same"));
    },
    async destroy() {
      const r = failed(await stack.destroy());
      return { ops: ops(r), order: order(r) };
    },
    close: () => stack.remove(),
  };
}

function doubleSide(name: string, project: string, config: Record<string, string>, secretConfig: Record<string, string>): Side {
  const state = path.join(dir, `${name}.json`);
  const program = (step2: boolean) => path.join(root, "dist/examples", name, ...(step2 ? ["step2"] : []), "index.js");
  let last: Result | undefined;
  let step2Now = false;
  const run = async (operation: Operation, step2 = step2Now): Promise<Result> => {
    // As the CLI runs in this test: `up` and `destroy` with --skip-preview.
    const r = await runProgram({
      operation, program: program(step2), state, cwd: root, stack: "dev", project, config, secretConfig,
      env: withoutSvcEnv() as Record<string, string>, timeoutMs: 300_000, skipPreview: true,
    });
    if (r.error) throw new Error(`the engine double failed: ${r.error}\n${r.diagnostics.join("\n")}`);
    return r;
  };
  const changed = (r: Result) => Object.fromEntries(r.steps.filter((s) => s.op !== "same" && s.op !== "refresh").map((s) => [s.name, s.op]));
  return {
    async preview(step2) {
      return changed(await run("preview", step2));
    },
    async up(step2) {
      step2Now = step2;
      last = await run("up");
      const deleteFirst = Object.fromEntries(last.steps.filter((s) => s.op === "replace").map((s) => [s.name, s.deleteBeforeReplace === true]));
      return { ops: changed(last), order: firstSeen(last.steps.filter((s) => s.op !== "same").map((s) => s.name)), deleteFirst };
    },
    async outputs() {
      return (last?.outputs ?? {}) as Record<string, unknown>;
    },
    async resources() {
      return loadState(state, DEFAULT_PASSPHRASE).state.resources.filter((r) => r.custom)
        .map((r) => ({ name: r.name, type: r.type, inputs: r.inputs, outputs: r.outputs, dependencies: r.dependencies.map(nameOf) }));
    },
    async refresh() {
      const r = await run("refresh");
      return Object.fromEntries(r.steps.flatMap((s) => s.op === "read-gone" ? [[s.name, "delete"]] : s.op === "refresh" && s.changedKeys?.length ? [[s.name, "update"]] : []));
    },
    async destroy() {
      const r = await run("destroy");
      return { ops: changed(r), order: firstSeen(r.steps.map((s) => s.name)) };
    },
    close: () => fs.rmSync(state, { force: true }),
  };
}

describeCli("the engine double agrees with the real CLI", () => {
  // SVC_CLI_EXAMPLES=quickstart,runs narrows the run while working on one example.
  const only = process.env.SVC_CLI_EXAMPLES?.split(",");
  for (const { name, expectations } of examples().filter((e) => e.expectations && (!only || only.includes(e.name)))) {
    const exp = expectations!;
    const hasStep2 = fs.existsSync(path.join(root, "examples", name, "step2"));
    describe.skipIf(exp.postgres !== undefined && skipWithoutPostgres())(`examples/${name}`, () => {
      it("the same plans, order, outputs, refresh results and final states", async () => {
        // Two deployments of one program on one emulator would share object paths: the CLI runs
        // the whole sequence first, then the double on a freshly reset emulator.
        const forCli = await prepareExample(exp, emu);
        own = pgValues(forCli.extra);
        const stack = await CliStack.create({ project: exp.project, program: { example: name }, config: forCli.config, secretConfig: forCli.secretConfig });
        stacks.push(stack);
        const cli = cliSide(stack);
        const seenByCli = await trace(exp, cli, hasStep2).finally(() => forCli.close());
        cli.close();

        const forDouble = await prepareExample(exp, emu);
        own = pgValues(forDouble.extra);
        const double = doubleSide(name, exp.project, forDouble.config, forDouble.secretConfig);
        const seenByDouble = await trace(exp, double, hasStep2).finally(() => forDouble.close());
        double.close();

        for (const [k, v] of Object.entries(seenByCli)) expect(seenByDouble[k], `${name}: ${k}`).toEqual(v);
        // Not vacuous: every example creates, and deletes on destroy.
        expect(Object.keys(seenByCli["destroy: operations"] as Ops).length).toBeGreaterThan(0);
      });
    });
  }

  describe("protect and aliases on a test program", () => {
    const program = path.join(__dirname, "programs/behaviours/index.js");

    async function writes(): Promise<string[]> {
      const all = (await control<{ requests: { method: string; path: string }[] }>(emu, "GET", "/requests")).requests;
      return all.filter((q) => !["GET", "LIST"].includes(q.method)).map((q) => `${q.method} ${q.path}`).sort();
    }

    function double(scenario: string) {
      const state = path.join(dir, `${scenario}.json`);
      fs.rmSync(state, { force: true });
      return {
        state,
        run: (operation: Operation, step: number, skipPreview: boolean) => runProgram({
          operation, program, state, cwd: root, stack: "dev", project: `differential-${scenario}`, skipPreview,
          config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, "behaviours:scenario": scenario, "behaviours:step": String(step) },
          secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsUser },
          env: withoutSvcEnv() as Record<string, string>, timeoutMs: 300_000,
        }),
        names: () => loadState(state, DEFAULT_PASSPHRASE).state.resources.filter((r) => r.custom).map((r) => r.name).sort(),
      };
    }

    async function cliStack(scenario: string): Promise<CliStack> {
      const s = await CliStack.create({
        project: `differential-${scenario}`, program,
        config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, "behaviours:scenario": scenario },
        secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsUser },
      });
      stacks.push(s);
      return s;
    }

    const cliNames = async (s: CliStack) => ((await s.state()).resources ?? []).filter((r) => r.type.startsWith("pulumi-nodejs:")).map((r) => nameOf(r.urn)).sort();

    it("protect: up and destroy refuse before any change; with --skip-preview they change all but the protected resource and what it depends on", async () => {
      // What each side does, as [operation, its writes, whether it failed, the resources left].
      const seen: Record<"cli" | "double", unknown[]> = { cli: [], double: [] };

      await control(emu, "POST", "/reset");
      const s = await cliStack("protect");
      expect((await s.up()).code).toBe(0);
      await s.setConfig({ "behaviours:step": "2" });
      for (const [label, args] of [["up", ["up", "--yes"]], ["up --skip-preview", ["up", "--yes", "--skip-preview"]]] as const) {
        await control(emu, "DELETE", "/requests");
        const r = await s.run([...args]);
        seen.cli.push([label, await writes(), r.code !== 0, await cliNames(s)]);
      }
      for (const [label, args] of [["destroy", ["destroy", "--yes"]], ["destroy --skip-preview", ["destroy", "--yes", "--skip-preview"]]] as const) {
        await control(emu, "DELETE", "/requests");
        const r = await s.run([...args]);
        seen.cli.push([label, await writes(), r.code !== 0, await cliNames(s)]);
      }
      s.remove();

      await control(emu, "POST", "/reset");
      const d = double("protect");
      expect((await d.run("up", 1, false)).error).toBeUndefined();
      for (const [label, skip] of [["up", false], ["up --skip-preview", true]] as const) {
        await control(emu, "DELETE", "/requests");
        const r = await d.run("up", 2, skip);
        seen.double.push([label, await writes(), r.error !== undefined, d.names()]);
      }
      for (const [label, skip] of [["destroy", false], ["destroy --skip-preview", true]] as const) {
        await control(emu, "DELETE", "/requests");
        const r = await d.run("destroy", 2, skip);
        seen.double.push([label, await writes(), r.error !== undefined, d.names()]);
      }

      expect(seen.double).toEqual(seen.cli);
      // What the engine does, for docs/real-cli.md: with the preview nothing is written.
      // Without the preview the engine goes on past a protected resource (it reports every one):
      // the template and then its alphabet, in the wave after it, are deleted too; only what the
      // protected resource depends on (held) stays with it.
      expect(seen.cli).toEqual([
        ["up", [], true, ["base", "base-tpl", "guarded", "held", "unguarded"]],
        ["up --skip-preview", ["POST /v1/transform/alphabet/added", "POST /v1/transform/alphabet/unguarded"], true, ["added", "base", "base-tpl", "guarded", "held", "unguarded"]],
        ["destroy", [], true, ["added", "base", "base-tpl", "guarded", "held", "unguarded"]],
        ["destroy --skip-preview", ["DELETE /v1/transform/alphabet/added", "DELETE /v1/transform/alphabet/base", "DELETE /v1/transform/alphabet/unguarded", "DELETE /v1/transform/template/base-tpl"], true, ["guarded", "held"]],
      ]);
    });

    it("aliases: a renamed resource is the same object on both sides", async () => {
      await control(emu, "POST", "/reset");
      const s = await cliStack("aliases");
      expect((await s.up()).code).toBe(0);
      await s.setConfig({ "behaviours:step": "2" });
      const cliPlan = ops(await s.preview());
      await control(emu, "DELETE", "/requests");
      const cliUp = await s.up();
      expect(cliUp.code).toBe(0);
      const cliWrites = await writes();
      const cliState = await cliNames(s);
      s.remove();

      await control(emu, "POST", "/reset");
      const d = double("aliases");
      expect((await d.run("up", 1, true)).error).toBeUndefined();
      const plan = await d.run("preview", 2, true);
      await control(emu, "DELETE", "/requests");
      const up = await d.run("up", 2, true);
      expect(up.error).toBeUndefined();
      const changed = (r: Result) => Object.fromEntries(r.steps.filter((q) => q.op !== "same").map((q) => [q.name, q.op]));
      expect([changed(plan), changed(up), await writes(), d.names()]).toEqual([cliPlan, ops(cliUp), cliWrites, cliState]);
      expect(cliState).toEqual(["alias-b"]);
    });
  });
});
