// The engine double (src/engine) against the real CLI on a test program: protect (with and without
// the preview) and aliases must do the same on both. Every example is compared too, on the
// lifecycles test/cli/examples/<name>.test.ts run anyway.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PASSPHRASE, loadState } from "../../src/engine/state";
import type { Operation, Result } from "../../src/engine/types";
import { control, useEmulator } from "../support/emulator";
import { root, withoutSvcEnv } from "../support/dist";
import { runInline } from "../support/inline";
import { CliStack, describeCli, nameOf, ops } from "./cli";

const { emu } = useEmulator({ reset: false, env: false });
let dir: string;
const stacks: CliStack[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "differential-"));
});

afterAll(async () => {
  // Stacks of a failed test are removed here (a passing test removes its own).
  for (const s of stacks) s.remove();
  fs.rmSync(dir, { recursive: true, force: true });
});

describeCli("the engine double agrees with the real CLI", () => {
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
        run: (operation: Operation, step: number, skipPreview: boolean) => runInline({
          operation, program, state, cwd: root, stack: "dev", project: `differential-${scenario}`, skipPreview,
          config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl, "behaviours:scenario": scenario, "behaviours:step": String(step) },
          secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsUser },
          env: withoutSvcEnv(),
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
