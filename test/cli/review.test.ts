// pulumi-svc-review as users run it, on real `pulumi preview --json` output of examples/quickstart:
// the built command on a captured file and on standard input, the one-line review of a preview with
// no changes, and its errors. The golden checks of every example's step2 run inside
// the examples' lifecycles, on the previews they make anyway (test/cli/review-golden.ts).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { reviewPreview } from "../../src/review/review";
import { root } from "../support/dist";
import { CliStack, describeCli } from "./cli";
import { examples, prepareExample } from "./expectations";
import { useEmulator } from "../support/emulator";

const bin = path.join(root, "dist/src/review/cli.js");

const { emu } = useEmulator({ reset: false, env: false });
const work = fs.mkdtempSync(path.join(os.tmpdir(), "review-"));

afterAll(async () => {
  fs.rmSync(work, { recursive: true, force: true });
});

describeCli("pulumi-svc-review on real pulumi preview --json output", () => {
  let unchanged = "";
  let step2 = "";
  let failed = "";
  let cliUnchanged = "";

  beforeAll(async () => {
    const exp = examples().find((e) => e.name === "quickstart")!.expectations!;
    const prepared = await prepareExample(exp, emu);
    const stack = await CliStack.create({ project: exp.project, program: { example: "quickstart" }, config: prepared.config, secretConfig: prepared.secretConfig });
    try {
      await stack.ok(["up", "--yes", "--skip-preview"]);
      unchanged = (await stack.ok(["preview", "--json"])).stdout;
      cliUnchanged = /(\d+) unchanged/.exec((await stack.ok(["preview"])).stdout)?.[1] ?? "none";
      stack.step2();
      step2 = (await stack.ok(["preview", "--json"])).stdout;
      fs.writeFileSync(path.join(work, "step2.json"), step2);
      // A preview that fails: the secrets service's token is set under a misspelt key.
      await stack.ok(["config", "rm", "svc:secretsToken"]);
      await stack.ok(["config", "set", "--secret", "svc:secretToken", "misspelt-key-token-1"]);
      const broken = await stack.run(["preview", "--json"]);
      // A check, not an assertion (test/support/must.ts): shared setup must not count for the tests.
      if (broken.code === 0) throw new Error("setup: the preview with a misspelt token key succeeded");
      failed = broken.stdout;
      fs.writeFileSync(path.join(work, "failed.json"), failed);
    } finally {
      stack.remove();
      await prepared.close();
    }
    // Eight CLI commands one after another: more than the default hook timeout on a busy machine.
  }, 240_000);

  it("a preview with no changes: one line", async () => {
    const review = await reviewPreview(unchanged);
    expect(review).toMatch(/^No changes: the preview plans no create, update, replace or delete \(\d+ resources unchanged\)\.\n$/);
    // The same count as the CLI's own summary beside it ("Resources: N unchanged"), the stack included.
    expect(review).toContain(`(${cliUnchanged} resources unchanged)`);
  });

  it("the built command gives the same review from the file and from standard input", async () => {
    const fromFile = spawnSync(process.execPath, [bin, path.join(work, "step2.json")], { encoding: "utf8" });
    expect(fromFile.status, fromFile.stderr).toBe(0);
    expect(fromFile.stdout).toBe(await reviewPreview(step2));
    expect(fromFile.stdout).toContain("#### replace: `ssn`");
    const fromStdin = spawnSync(process.execPath, [bin, "--full"], { input: step2, encoding: "utf8" });
    expect(fromStdin.status, fromStdin.stderr).toBe(0);
    expect(fromStdin.stdout).toBe(await reviewPreview(step2, { full: true }));
  });

  it("the command says what is wrong with input that is no preview, exit 1; a wrong option exits 2", () => {
    for (const input of ["Previewing update (dev):", "", '{"foo":1}']) {
      const bad = spawnSync(process.execPath, [bin], { input, encoding: "utf8" });
      expect(bad.status, input).toBe(1);
      expect(bad.stdout, input).toBe("");
      expect(bad.stderr.trim().split("\n"), input).toEqual([
        input.startsWith("{") ? "pulumi-svc-review: the input is not the output of `pulumi preview --json` (it has no steps, changeSummary or diagnostics)"
          : "pulumi-svc-review: the input is not JSON: pass the output of `pulumi preview --json`",
      ]);
    }
    expect(spawnSync(process.execPath, [bin, "--nope"], { encoding: "utf8" }).status).toBe(2);
  });

  it("a preview that failed: its errors first, each with its resource, never \"No changes\"; exit 3", () => {
    const res = spawnSync(process.execPath, [bin, path.join(work, "failed.json")], { encoding: "utf8" });
    expect(res.status, res.stderr).toBe(3);
    expect(res.stdout).not.toContain("No changes");
    expect(res.stdout).toMatch(/^## Pulumi preview review\n\n\*\*⛔ The preview failed\*\* with \d+ errors?: /);
    const errors = res.stdout.split("\n").filter((l) => l.startsWith("- "));
    expect(errors.length).toBeGreaterThan(0);
    // Which resource's check fails first is a race (the engine stops there): any names the setting.
    expect(errors.some((l) => /^- `[^`]+` \((secrets|runs):[A-Za-z:]+\): .*svc:secretsToken/.test(l)), res.stdout).toBe(true);
    // Pulumi hands the provider every svc: key: the misspelt one is named, with the setting it is near.
    expect(res.stdout).toContain("unknown setting svc:secretToken: did you mean svc:secretsToken?");
    expect(res.stdout).not.toContain("misspelt-key-token-1");
    expect(res.stdout).not.toContain("{<nil>}");
  });
});
