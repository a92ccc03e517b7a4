/**
 * `npm run bench` (scale): `pulumi up --parallel 64` and `pulumi destroy --parallel 64` of 1,000
 * resources under the real Pulumi CLI against an emulator that holds each request a moment, once
 * free (no throttle, svc:maxConcurrentRequests 64) and once throttled (429 with Retry-After above a
 * rate, the default limit). Reports failures, the emulator's peak of requests held at once against
 * the limit, 429s per request, and the throttled run's time as a ratio of the free one; never a
 * threshold. Skips with a printed reason without the CLI (scripts/pulumi-cli.sh builds it).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../src/emulator";
import { DEFAULT_MAX_CONCURRENT_REQUESTS } from "../src/http/limiter";
import { cliDir, cliEnv, control, pulumi, root } from "./cli";

const COUNT = Number(process.env.BENCH_SCALE_COUNT ?? 1000);
const PARALLEL = 64;
const HOLD_MS = Number(process.env.BENCH_SCALE_HOLD_MS ?? 20);
const RATE = Number(process.env.BENCH_SCALE_RATE ?? 50);

interface Outcome { seconds: number; failed: number; peak: number; throttled: number; requests: number }



/** One stack in a temporary folder: up then destroy, timed together. */
async function scenario(emu: Emulator, name: string, limit: number | undefined, rate: number | undefined): Promise<Outcome> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-scale-${name}-`));
  try {
    const env = cliEnv(dir);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: bench-scale\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: ${path.join(root, "test/cli/programs/behaviours/index.js")}\n`);
    const config = ["--plaintext", `svc:secretsUrl=${emu.secretsUrl}`, "--plaintext", `svc:runUrl=${emu.runUrl}`,
      "--plaintext", "behaviours:scenario=parallel", "--plaintext", `behaviours:count=${COUNT}`,
      "--secret", `svc:secretsToken=${emu.tokens.secretsUser}`, "--secret", `svc:runToken=${emu.tokens.runAdmin}`,
      ...(limit === undefined ? [] : ["--plaintext", `svc:maxConcurrentRequests=${limit}`])];
    for (const args of [["stack", "init"], ["config", "set-all", ...config]]) {
      const r = await pulumi(dir, env, [...args, "--stack", "dev"]);
      if (r.code !== 0) throw new Error(`pulumi ${args[0]}: ${r.out}`);
    }
    await control(emu, "POST", "/reset");
    await control(emu, "POST", "/faults", { path: "/v1/transform/alphabet/*", delayMs: HOLD_MS, count: 1_000_000 });
    await control(emu, "PUT", "/throttle", rate === undefined ? {} : { rate });
    const started = process.hrtime.bigint();
    let failed = 0;
    for (const op of ["up", "destroy"]) {
      const r = await pulumi(dir, env, [op, "--yes", "--skip-preview", "--parallel", String(PARALLEL), "--stack", "dev"]);
      if (r.code !== 0) failed += (r.out.match(/^\s+error: /gm) ?? ["exit"]).length;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const report = await control(emu, "GET", "/throttle");
    const requests = (await control(emu, "GET", "/requests")).requests.length as number;
    return { seconds, failed, peak: report.peak, throttled: report.throttled, requests };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!cliDir) {
    console.log("pulumi-svc bench (scale): skipped, no Pulumi CLI (scripts/pulumi-cli.sh builds it)");
    return;
  }
  // The request log keeps every request of a run: 1,000 resources make about 5,000.
  const emu = await startEmulator();
  try {
    console.log(`pulumi-svc bench: up + destroy of ${COUNT} resources, --parallel ${PARALLEL}, each request held ${HOLD_MS} ms by the emulator\n`);
    const free = await scenario(emu, "free", PARALLEL, undefined);
    const throttled = await scenario(emu, "throttled", undefined, RATE);
    const line = (name: string, limit: number, o: Outcome) =>
      console.log(`${name.padEnd(44)} failures ${o.failed}, peak ${o.peak} of limit ${limit} (${(o.peak / limit).toFixed(2)}), ` +
        `429s per request ${(o.throttled / o.requests).toFixed(3)} (${o.throttled} of ${o.requests}), ${o.seconds.toFixed(0)} s`);
    line(`free (limit ${PARALLEL}, no throttle)`, PARALLEL, free);
    line(`throttled above ${RATE}/s (default limit ${DEFAULT_MAX_CONCURRENT_REQUESTS})`, DEFAULT_MAX_CONCURRENT_REQUESTS, throttled);
    console.log(`\nthrottled time / free time: ${(throttled.seconds / free.seconds).toFixed(2)}; ` +
      `requests per resource: free ${(free.requests / COUNT).toFixed(2)}, throttled ${(throttled.requests / COUNT).toFixed(2)}`);
  } finally {
    await emu.close();
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
