// pulumi-svc-review on real `pulumi preview --json` output: each example's step2 previewed under the
// real CLI (with and without --show-secrets), its review checked against the example's cli.json
// (each changed property old → new, each replacement's reason and order) and scanned for every
// secret value of the example; the built command run on the captured file and on standard input.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { reviewPreview } from "../../src/review/review";
import { root } from "../support/dist";
import { CliStack, describeCli } from "./cli";
import { examples, fillAll, prepareExample } from "./expectations";

/** Quick examples that cover an update, a secret change, create-first and delete-first replacements. */
const EXAMPLES = ["quickstart", "keymgmt", "runs"];
const program = (name: string, step2 = false) => path.join(root, "dist/examples", name, ...(step2 ? ["step2"] : []));
const bin = path.join(root, "dist/src/review/cli.js");

let emu: Emulator;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "review-"));

beforeAll(async () => {
  emu = await startEmulator();
});

afterAll(async () => {
  await emu?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

interface Step { op: string; urn: string; oldState?: { inputs?: Record<string, unknown> }; newState?: { inputs?: Record<string, unknown> } }

describeCli("pulumi-svc-review on real pulumi preview --json output", () => {
  for (const name of EXAMPLES) {
    const exp = examples().find((e) => e.name === name)!.expectations!;
    describe(`examples/${name} step2`, () => {
      let json = "";
      let shown = "";
      let secrets: [string, string][] = [];

      beforeAll(async () => {
        const prepared = await prepareExample(exp, emu);
        const stack = await CliStack.create({ project: exp.project, program: program(name), config: prepared.config, secretConfig: prepared.secretConfig });
        try {
          await stack.ok(["up", "--yes", "--skip-preview"]);
          stack.setProgram(program(name, true));
          json = (await stack.ok(["preview", "--json"])).stdout;
          shown = (await stack.ok(["preview", "--json", "--show-secrets"])).stdout;
          secrets = [
            ...Object.entries(fillAll(exp.secretConfig, emu, prepared.extra)),
            ...Object.entries(emu.tokens),
          ];
          fs.writeFileSync(path.join(work, `${name}.json`), json);
        } finally {
          stack.remove();
          await prepared.close();
        }
      });

      it("names each changed property old → new, each replacement with its reason and order", () => {
        const review = reviewPreview(json);
        const steps = (JSON.parse(json) as { steps: Step[] }).steps;
        const changed = Object.entries(exp.step2).filter(([, s]) => s.op !== "same");
        expect(changed.length).toBeGreaterThan(0);
        for (const [resource, s] of changed) {
          const block = review.split("\n#### ").find((b) => b.startsWith(`${s.op}: \`${resource}\``));
          expect(block, `${resource}: ${review}`).toBeDefined();
          const step = steps.find((q) => q.urn.endsWith(`::${resource}`))!;
          for (const p of s.properties ?? []) {
            const line = block!.split("\n").find((l) => l.startsWith(`- \`${p}\`: `));
            expect(line, `${resource}.${p} in\n${block}`).toBeDefined();
            const old = step.oldState?.inputs?.[p];
            const next = step.newState?.inputs?.[p];
            expect(line).toContain(`${old === undefined ? "(none)" : `\`${JSON.stringify(old)}\``} → \`${JSON.stringify(next)}\``);
          }
          if (s.op === "replace") {
            const head = review.slice(0, review.indexOf("\n### "));
            const order = s.deleteFirst ? "**the old object is deleted first**" : "the new object is created first";
            for (const part of [head, block!]) {
              expect(part).toContain(`forced by ${(s.properties ?? []).map((p) => `\`${p}\``).join(", ")}`);
              expect(part).toContain(order);
            }
          }
        }
        expect(review.startsWith("## Pulumi preview review\n\n**Plan:** ")).toBe(true);
        expect(review).not.toContain("urn:pulumi");
        expect(review).not.toContain("__provider");
      });

      it("hides every secret of the example, with and without --show-secrets", () => {
        expect(secrets.length).toBeGreaterThan(0);
        for (const text of [json, shown]) {
          const review = reviewPreview(text, { full: true });
          const leaked = secrets.filter(([, v]) => review.includes(v)).map(([k]) => k);
          expect(leaked, "secrets in the review").toEqual([]);
        }
      });

      it("the built command gives the same review from the file and from standard input", () => {
        const file = path.join(work, `${name}.json`);
        const fromFile = spawnSync(process.execPath, [bin, file], { encoding: "utf8" });
        expect(fromFile.status, fromFile.stderr).toBe(0);
        expect(fromFile.stdout).toBe(reviewPreview(json));
        const fromStdin = spawnSync(process.execPath, [bin, "--full"], { input: json, encoding: "utf8" });
        expect(fromStdin.status, fromStdin.stderr).toBe(0);
        expect(fromStdin.stdout).toBe(reviewPreview(json, { full: true }));
      });
    });
  }

  it("the command says what is wrong with input that is no preview, exit 1; a wrong option exits 2", () => {
    const bad = spawnSync(process.execPath, [bin], { input: "Previewing update (dev):", encoding: "utf8" });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("pulumi-svc-review: the input is not JSON");
    expect(spawnSync(process.execPath, [bin, "--nope"], { encoding: "utf8" }).status).toBe(2);
  });
});
