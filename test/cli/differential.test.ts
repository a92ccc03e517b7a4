// The engine double (src/engine) against the real CLI: the same programs, the same operations; the
// planned operations per resource, the replacement order, the outputs and the final states (ids
// and timestamps aside) must agree. Independent steps run in parallel under the real engine, so
// their relative order is not compared; the order the engine defines (delete-first replacement,
// protect refusing before any delete) is.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { runProgram } from "../../src/engine/program";
import { DEFAULT_PASSPHRASE, loadState } from "../../src/engine/state";
import type { Operation, Result } from "../../src/engine/types";
import { control } from "../support/emulator";
import { root, withoutSvcEnv } from "../support/dist";
import { CliStack, describeCli, ops } from "./cli";
import { examples, fillAll } from "./expectations";

let emu: Emulator;
let dir: string;
const stacks: CliStack[] = [];

beforeAll(async () => {
  emu = await startEmulator();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "differential-"));
});

afterAll(async () => {
  // Stacks of a failed test are removed here (a passing test removes its own).
  for (const s of stacks) s.remove();
  await emu?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Ids, timestamps and provider texts differ between two deployments by nature (at any depth). */
const incidental = (k: string) => /(^id$|Id$|At$|Timestamps$|^date$|^__provider$|^keys$|^publicKey$)/.test(k);
const isSecret = (v: unknown) => v === "[secret]" || (!!v && typeof v === "object" && "4dabf18193072939515e22adb298388d" in v);

function strip(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip);
  if (!v || typeof v !== "object") return v;
  return Object.fromEntries(Object.entries(v).filter(([k, x]) => !incidental(k) && !isSecret(x)).map(([k, x]) => [k, strip(x)]));
}

const comparable = (outputs: Record<string, unknown>) => strip(outputs) as Record<string, unknown>;

const doubleOps = (r: Result) => Object.fromEntries(r.steps.filter((s) => s.op !== "same" && s.op !== "refresh").map((s) => [s.name, s.op]));

interface Pair {
  cli: CliStack;
  double: (operation: Operation, program: string) => Promise<Result>;
  state: string;
}

async function pair(name: string, project: string, program: string, config: Record<string, string>, secretConfig: Record<string, string>): Promise<Pair> {
  const svcConfig = { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, ...config };
  const svcSecrets = { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsUser, ...secretConfig };
  const cli = await CliStack.create({ project, program, config: svcConfig, secretConfig: svcSecrets });
  stacks.push(cli);
  const state = path.join(dir, `${name}.json`);
  const double = (operation: Operation, file: string) => runProgram({
    operation, program: file, state, cwd: root, stack: "dev", project, config: svcConfig, secretConfig: svcSecrets,
    env: withoutSvcEnv() as Record<string, string>, timeoutMs: 300_000,
  });
  return { cli, double, state };
}

async function cliStateOutputs(cli: CliStack): Promise<Record<string, Record<string, unknown>>> {
  const { resources } = await cli.state();
  return Object.fromEntries((resources ?? []).filter((r) => r.type.startsWith("pulumi-nodejs:")).map((r) => [r.urn.split("::").pop()!, comparable(r.outputs ?? {})]));
}

function doubleStateOutputs(state: string): Record<string, Record<string, unknown>> {
  const { resources } = loadState(state, DEFAULT_PASSPHRASE).state;
  return Object.fromEntries(resources.filter((r) => r.custom).map((r) => [r.name, comparable(r.outputs as Record<string, unknown>)]));
}

describeCli("the engine double agrees with the real CLI", () => {
  const quickstart = examples().find((e) => e.name === "quickstart")!.expectations!;

  it("quickstart: the same plans, replacement order, outputs and final states", async () => {
    await control(emu, "POST", "/reset");
    const step1 = path.join(root, "dist/examples/quickstart/index.js");
    const step2 = path.join(root, "dist/examples/quickstart/step2/index.js");
    // Two deployments of one program against one emulator would share object paths: the CLI runs
    // the whole sequence first, then the double on a reset emulator.
    const p = await pair("quickstart", quickstart.project, step1, fillAll(quickstart.config, emu), fillAll(quickstart.secretConfig, emu));
    const seen: Record<string, { cli: unknown; double: unknown }> = {};
    // Sequential runs: CLI up, record, destroy; double up, record, destroy — per program version.
    p.cli.setProgram(path.dirname(step1));
    const cliPlan1 = ops(await p.cli.preview());
    const cliUp1 = await p.cli.up();
    expect(cliUp1.code).toBe(0);
    p.cli.setProgram(path.dirname(step2));
    const cliPlan2 = ops(await p.cli.preview());
    const cliUp2 = await p.cli.up();
    expect(cliUp2.code).toBe(0);
    const cliOutputs = comparable(await p.cli.outputs());
    const cliState = await cliStateOutputs(p.cli);
    const cliOrder = cliUp2.steps.filter((s) => s.urn.endsWith("::ssn")).map((s) => s.op);
    const cliDestroy = ops(await p.cli.destroy());
    p.cli.remove();

    await control(emu, "POST", "/reset");
    const plan1 = await p.double("preview", step1);
    const up1 = await p.double("up", step1);
    expect(up1.error).toBeUndefined();
    const plan2 = await p.double("preview", step2);
    const up2 = await p.double("up", step2);
    expect(up2.error).toBeUndefined();
    const doubleState = doubleStateOutputs(p.state);
    const destroy = await p.double("destroy", step2);

    seen.plan1 = { cli: cliPlan1, double: doubleOps(plan1) };
    seen.plan2 = { cli: cliPlan2, double: doubleOps(plan2) };
    seen.up2 = { cli: ops(cliUp2), double: doubleOps(up2) };
    seen.destroy = { cli: cliDestroy, double: doubleOps(destroy) };
    for (const [k, v] of Object.entries(seen)) expect(v.double, k).toEqual(v.cli);
    // Create-before-delete for the renamed template on both sides.
    expect(cliOrder.indexOf("create-replacement")).toBeLessThan(cliOrder.indexOf("delete-replaced"));
    expect(up2.steps.find((s) => s.name === "ssn")?.deleteBeforeReplace).toBe(false);
    expect(comparable(up2.outputs as Record<string, unknown>)).toEqual(cliOutputs);
    expect(doubleState).toEqual(cliState);
  });

  it("aliases and protect: the double now behaves as the engine", async () => {
    const program = path.join(__dirname, "programs/behaviours/index.js");
    for (const scenario of ["aliases", "protect"]) {
      await control(emu, "POST", "/reset");
      const p = await pair(scenario, `differential-${scenario}`, program, { "behaviours:scenario": scenario }, {});
      p.cli.setProgram(path.dirname(program));
      expect((await p.cli.up()).code).toBe(0);
      if (scenario === "aliases") {
        await p.cli.setConfig({ "behaviours:step": "2" });
        const cliPlan = ops(await p.cli.preview());
        const cliUp = await p.cli.up();
        expect(cliUp.code).toBe(0);
        const cliState = await cliStateOutputs(p.cli);
        await p.cli.destroy();
        p.cli.remove();
        await control(emu, "POST", "/reset");
        // The double takes the same config through its own options.
        const step1 = await runProgramWith(p, program, { "behaviours:scenario": scenario }, "up");
        expect(step1.error).toBeUndefined();
        const plan = await runProgramWith(p, program, { "behaviours:scenario": scenario, "behaviours:step": "2" }, "preview");
        const up = await runProgramWith(p, program, { "behaviours:scenario": scenario, "behaviours:step": "2" }, "up");
        expect(doubleOps(plan)).toEqual(cliPlan);
        expect(doubleOps(up)).toEqual(ops(cliUp));
        expect(doubleStateOutputs(p.state)).toEqual(cliState);
      } else {
        const cliDestroy = await p.cli.run(["destroy", "--yes"]);
        expect(cliDestroy.code).not.toBe(0);
        p.cli.remove();
        await control(emu, "POST", "/reset");
        expect((await runProgramWith(p, program, { "behaviours:scenario": scenario }, "up")).error).toBeUndefined();
        await control(emu, "DELETE", "/requests");
        const destroy = await runProgramWith(p, program, { "behaviours:scenario": scenario }, "destroy");
        expect(destroy.error).toMatch(/protected/);
        const writes = (await control<{ requests: { method: string }[] }>(emu, "GET", "/requests")).requests.filter((q) => q.method === "DELETE");
        expect(writes).toEqual([]);
      }
    }
  });
});

function runProgramWith(p: Pair, program: string, config: Record<string, string>, operation: Operation): Promise<Result> {
  return runProgram({
    operation, program, state: p.state, cwd: root, stack: "dev", project: "differential",
    config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, ...config },
    secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsUser },
    env: withoutSvcEnv() as Record<string, string>, timeoutMs: 300_000,
  });
}
