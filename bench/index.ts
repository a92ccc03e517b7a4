/**
 * `npm run bench`: every benchmark in turn, each in its own process. Arguments go to the first
 * (`npm run bench -- 1000`: N transform templates); the run listing takes BENCH_RUNS.
 */
import { spawnSync } from "child_process";
import * as path from "path";

const benches: [string, string[]][] = [
  ["run.js", process.argv.slice(2)],
  ["list-runs.js", []],
  ["emulator.js", []],
  ["durability.js", []],
  ["transform.js", []],
  ["redact.js", []],
  ["coldstart.js", []],
  ["scale.js", []],
  ["fanout.js", []],
  ["stacks.js", []],
  ["bigstack.js", []],
  ["import.js", []],
  ["testing.js", []],
];

for (const [file, args] of benches) {
  const r = spawnSync(process.execPath, [path.join(__dirname, file), ...args], { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
  console.log("");
}
