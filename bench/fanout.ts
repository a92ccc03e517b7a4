/**
 * `npm run bench` (fan-out): one `pulumi up` of 80 Run resources on 80 workspaces under the real
 * Pulumi CLI, each waiting for its run and applying it, against an emulator that holds each run
 * request a moment. A quarter of the workspaces hold their runs in planning, so those creates time
 * out (timeoutSeconds) and cancel their runs. Reports each up's time as a ratio of the timeout,
 * the emulator's peak of requests held at once against svc:maxConcurrentRequests (a peak at the
 * limit means requests queued in the provider) and the share of the limit's capacity the requests
 * used over the up; never a threshold. Skips with a printed reason
 * without the CLI (scripts/pulumi-cli.sh builds it).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../src/emulator";
import { DEFAULT_MAX_CONCURRENT_REQUESTS } from "../src/http/limiter";
import { cliDir, cliEnv, control, pulumi, root } from "./cli";

const COUNT = Number(process.env.BENCH_FANOUT_COUNT ?? 80);
const TIMEOUT_SECONDS = Number(process.env.BENCH_FANOUT_TIMEOUT ?? 10);
const HOLD_MS = Number(process.env.BENCH_FANOUT_HOLD_MS ?? 20);

interface Scenario { name: string; held: boolean; parallel?: number; limit?: number; continueOnError?: boolean }
interface Outcome { seconds: number; timedOut: number; peak: number; limit: number; requests: number }



async function run(emu: Emulator, s: Scenario): Promise<Outcome> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-fanout-"));
  try {
    await control(emu, "POST", "/reset");
    const workspaces = Array.from({ length: COUNT }, (_, i) => ({ id: `ws-fan${i}`, name: `fan-${i}`, ...(s.held && i % 4 === 3 ? { holdRunsAt: "planning" } : {}) }));
    await control(emu, "POST", "/seed", { workspaces, configurationVersions: workspaces.map((w) => ({ workspaceId: w.id })) });
    const env = cliEnv(dir);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: bench-fanout\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: ${path.join(root, "test/cli/programs/behaviours/index.js")}\n`);
    const config = ["--plaintext", `svc:runUrl=${emu.runUrl}`, "--plaintext", `svc:secretsUrl=${emu.secretsUrl}`,
      "--plaintext", "behaviours:scenario=fanout", "--plaintext", `behaviours:workspaces=${workspaces.map((w) => w.id).join(",")}`,
      "--plaintext", `behaviours:timeoutSeconds=${TIMEOUT_SECONDS}`,
      "--secret", `svc:runToken=${emu.tokens.runAdmin}`, "--secret", `svc:secretsToken=${emu.tokens.secretsUser}`,
      ...(s.limit === undefined ? [] : ["--plaintext", `svc:maxConcurrentRequests=${s.limit}`])];
    for (const args of [["stack", "init"], ["config", "set-all", ...config]]) {
      const r = await pulumi(dir, env, [...args, "--stack", "dev"]);
      if (r.code !== 0) throw new Error(`pulumi ${args[0]}: ${r.out}`);
    }
    await control(emu, "POST", "/faults", { path: "/api/v2/*", delayMs: HOLD_MS, count: 1_000_000 });
    await control(emu, "PUT", "/throttle", {});
    await control(emu, "DELETE", "/requests");
    const started = process.hrtime.bigint();
    const r = await pulumi(dir, env, ["up", "--yes", "--skip-preview", ...(s.parallel === undefined ? [] : ["--parallel", String(s.parallel)]),
      ...(s.continueOnError ? ["--continue-on-error"] : []), "--stack", "dev"]);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const timedOut = (r.out.match(/^\s+\* run run-\S+ did not reach/gm) ?? []).length;
    const expected = s.held ? COUNT / 4 : 0;
    if (timedOut !== expected || (r.code === 0) !== (expected === 0)) throw new Error(`${s.name}: ${timedOut} timeouts (expected ${expected}), exit ${r.code}\n${r.out.slice(-3000)}`);
    const requests = ((await control(emu, "GET", "/requests")).requests as { path: string }[]).filter((q) => q.path.startsWith("/api/v2/")).length;
    return { seconds, timedOut, peak: (await control(emu, "GET", "/throttle")).peak, limit: s.limit ?? DEFAULT_MAX_CONCURRENT_REQUESTS, requests };
  } finally {
    await control(emu, "DELETE", "/faults");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!cliDir) {
    console.log("pulumi-svc bench (fan-out): skipped, no Pulumi CLI (scripts/pulumi-cli.sh builds it)");
    return;
  }
  const emu = await startEmulator({ autoAdvanceMs: 50 });
  try {
    console.log(`pulumi-svc bench: up of ${COUNT} Runs on ${COUNT} workspaces (waitFor completed, applyWhenConfirmable, timeoutSeconds ${TIMEOUT_SECONDS}, ` +
      `poll from 0.5 s), runs step every 50 ms, each run request held ${HOLD_MS} ms\n`);
    const wide = COUNT + 20;
    const scenarios: Scenario[] = [
      { name: `all finish, --parallel ${wide}`, held: false, parallel: wide },
      { name: `1 in 4 held, --parallel ${wide}`, held: true, parallel: wide },
      // Without --continue-on-error the engine starts no new create after the first timeout.
      { name: "1 in 4 held, default --parallel, continue", held: true, continueOnError: true },
      { name: `1 in 4 held, --parallel ${wide}, limit 2`, held: true, parallel: wide, limit: 2 },
    ];
    const results: Outcome[] = [];
    for (const s of scenarios) {
      const o = await run(emu, s);
      results.push(o);
      console.log(`${s.name.padEnd(42)} up ${o.seconds.toFixed(1)} s = ${(o.seconds / TIMEOUT_SECONDS).toFixed(2)} x timeout, ` +
        `over all-finish ${((o.seconds - results[0].seconds) / TIMEOUT_SECONDS).toFixed(2)} x timeout; ${o.timedOut} timed out; peak ${o.peak} of limit ${o.limit} (${(o.peak / o.limit).toFixed(2)}), ` +
        `limit busy ${((o.requests * HOLD_MS) / (o.limit * o.seconds * 1000)).toFixed(2)} of the up (${o.requests} requests)`);
    }
  } finally {
    await emu.close();
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
