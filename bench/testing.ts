/**
 * `npm run bench` (testing): the `up` of a three-resource program (an alphabet, a template on it,
 * an FPE transformation on the template) through `pulumi-svc/testing`'s `testStack`, against the
 * same program's `pulumi up --yes --skip-preview` under the real CLI (the Automation API's `up`
 * skips the preview too), in one installed project, ROUNDS fresh stacks each (BENCH_TESTING_ROUNDS,
 * default 3). A test file's first stack starts the provider host that its later stacks use
 * (src/engine/reuse.ts): testStack's first stack and the median of its later ones (ROUNDS of them)
 * are reported apart, each against the CLI's median; without a CLI, testStack's alone.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator } from "../src/emulator";
import { installedProject } from "../src/engine/installed";
import type * as testingTypes from "../src/testing";
import { cliDir, cliEnv, mustPulumi, root, seconds } from "./cli";

const ROUNDS = Number(process.env.BENCH_TESTING_ROUNDS ?? 3);

const PROGRAM = `"use strict";
const svc = require("pulumi-svc");
module.exports = (prefix) => {
  const digits = new svc.secrets.transform.Alphabet("digits", { name: prefix + "-digits", alphabet: "0123456789" });
  const tpl = new svc.secrets.transform.Template("tpl", { name: prefix + "-tpl", pattern: "(\\\\d{4})-(\\\\d{4})", alphabet: digits.name });
  const card = new svc.secrets.transform.FpeTransformation("card", { name: prefix + "-card", template: tpl.name, tweakSource: "internal", allowedRoles: ["payments"] });
  return { template: tpl.name, card: card.name };
};
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const project = installedProject("pulumi-svc-bench-testing-");
  try {
    // The emulator testStack starts needs the package's other dependencies, which the project links.
    for (const dep of ["ldapts", "pg"]) fs.symlinkSync(path.join(root, "node_modules", dep), path.join(project.dir, "node_modules", dep));
    fs.writeFileSync(path.join(project.dir, "program.js"), PROGRAM);
    const load = <T>(file: string) => require(path.join(project.dir, file)) as T;
    const { testStack } = load<typeof testingTypes>("node_modules/pulumi-svc/dist/src/testing/index.js");
    const program = load<(prefix: string) => Record<string, unknown>>("program.js");

    const inProcess: number[] = [];
    for (let i = 0; i <= ROUNDS; i++) {
      const stack = await testStack({ program: () => program(`t${i}`), cwd: project.dir });
      const started = process.hrtime.bigint();
      const up = await stack.up();
      inProcess.push(seconds(started));
      if (up.changes.create !== 3) throw new Error(`testStack up: ${JSON.stringify(up.changes)}`);
      await stack.destroy();
      await stack.close();
    }
    const [first, ...later] = inProcess;
    console.log(`testing: three-resource up through testStack: the file's first stack ${first!.toFixed(2)} s (starts the provider host); ` +
      `later stacks, median of ${ROUNDS}: ${median(later).toFixed(2)} s (${later.map((s) => s.toFixed(2)).join(", ")})`);

    if (!cliDir) {
      console.log("testing: no Pulumi CLI (scripts/pulumi-cli.sh): the comparison with the real CLI is left out");
      return;
    }
    const emu = await startEmulator();
    const cli: number[] = [];
    try {
      for (let i = 0; i < ROUNDS; i++) {
        const dir = path.join(project.dir, `cli-${i}`);
        fs.mkdirSync(dir);
        fs.writeFileSync(path.join(dir, "index.js"), `module.exports = require("../program.js")("c${i}");\n`);
        fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: bench-testing\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n");
        const env = cliEnv(dir);
        await mustPulumi(dir, env, ["stack", "init", "dev"]);
        await mustPulumi(dir, env, ["config", "set-all", "--plaintext", `svc:secretsUrl=${emu.secretsUrl}`, "--secret", `svc:secretsToken=${emu.tokens.secretsRoot}`]);
        const started = process.hrtime.bigint();
        await mustPulumi(dir, env, ["up", "--yes", "--skip-preview"]);
        cli.push(seconds(started));
        await mustPulumi(dir, env, ["destroy", "--yes", "--skip-preview"]);
      }
    } finally {
      await emu.close();
    }
    console.log(`testing: the same up under the real CLI (pulumi up --yes --skip-preview), median of ${ROUNDS}: ${median(cli).toFixed(2)} s (${cli.map((s) => s.toFixed(2)).join(", ")})`);
    console.log(`testing: testStack takes ${(median(later) / median(cli)).toFixed(2)} of the CLI's time (the file's first stack ${(first! / median(cli)).toFixed(2)})`);
  } finally {
    project.remove();
  }
}

main().then(() => process.exit(0), (e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
