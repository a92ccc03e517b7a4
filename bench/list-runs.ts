/**
 * `npm run bench` (second part): list a workspace of BENCH_RUNS runs (default 5000) through the
 * provider's `listRuns` (collecting) and `listRunsIterator` (streaming), against raw paginated undici
 * requests to the same emulator in the same run. Each side runs in its own child process so its
 * peak memory is its own: heap sampled every millisecond during the listing (after a GC), and the
 * process's max RSS. Reports medians and ratios, never thresholds.
 */
import { spawn } from "child_process";
import { Agent, request } from "undici";

const RUNS = Number(process.env.BENCH_RUNS ?? 5000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const PAGE = 100;
type Side = "raw" | "listRuns" | "iterator";
const SIDES: Side[] = ["raw", "listRuns", "iterator"];

interface Measure {
  side: Side;
  count: number;
  ms: number;
  /** Highest heapUsed seen during the listing, minus heapUsed just before it (after a GC). */
  peakHeapMb: number;
  /** heapUsed after the listing and a GC, with its result still referenced, minus the baseline: what the caller keeps. */
  retainedHeapMb: number;
  /** Max resident set size of the whole child process. */
  maxRssMb: number;
}

// ----------------------------------------------------------------------------------------------
// Child: one side, one listing
// ----------------------------------------------------------------------------------------------

async function rawList(base: string, token: string, workspaceId: string, agent: Agent, limitPages = Infinity): Promise<unknown[]> {
  const all: unknown[] = [];
  for (let page = 1; page <= limitPages; page++) {
    const res = await request(`${base}/workspaces/${encodeURIComponent(workspaceId)}/runs?page%5Bnumber%5D=${page}&page%5Bsize%5D=${PAGE}`, {
      headers: { authorization: `Bearer ${token}`, accept: "application/vnd.api+json" }, dispatcher: agent,
    });
    const doc = JSON.parse(await res.body.text()) as { data: unknown[]; meta?: { pagination?: { "next-page"?: number | null } } };
    all.push(...doc.data);
    if (!doc.meta?.pagination?.["next-page"]) break;
  }
  return all;
}

async function child(side: Side): Promise<void> {
  const base = process.env.SVC_RUN_URL!;
  const token = process.env.SVC_RUN_TOKEN!;
  const workspaceId = process.env.BENCH_WORKSPACE!;
  const runs: typeof import("../src/runs") = require("../src/runs");
  const agent = new Agent();
  // Warm up: module loading and the first connection are not measured.
  if (side === "raw") await rawList(base, token, workspaceId, agent, 1);
  else await runs.listRuns({ workspaceId, limit: 1 });

  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().heapUsed); }, 1);
  const start = process.hrtime.bigint();
  let count = 0;
  let kept: unknown[] = [];
  if (side === "raw") kept = await rawList(base, token, workspaceId, agent);
  else if (side === "listRuns") kept = await runs.listRuns({ workspaceId, pageSize: PAGE });
  else for await (const _run of runs.listRunsIterator({ workspaceId, pageSize: PAGE })) count++;
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  clearInterval(sampler);
  count = side === "iterator" ? count : kept.length;
  gc?.();
  const retained = process.memoryUsage().heapUsed - before;
  kept = [];
  await agent.close();
  const { closeAgents }: typeof import("../src/http") = require("../src/http");
  await closeAgents();
  const m: Measure = { side, count, ms, peakHeapMb: (peak - before) / 2 ** 20, retainedHeapMb: Math.max(0, retained) / 2 ** 20, maxRssMb: process.resourceUsage().maxRSS / 1024 };
  process.stdout.write(`${JSON.stringify(m)}\n`);
}

// ----------------------------------------------------------------------------------------------
// Parent: emulator, runs, children, report
// ----------------------------------------------------------------------------------------------

function measure(side: Side, env: Record<string, string>): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ["--expose-gc", __filename, "--side", side], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    p.on("error", reject);
    p.on("close", (code) => {
      try {
        resolve(JSON.parse(out.trim().split("\n").pop()!) as Measure);
      } catch {
        reject(new Error(`bench child (${side}) exited with ${code}: ${out}`));
      }
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function parent(): Promise<void> {
  const { startEmulator }: typeof import("../src/emulator") = require("../src/emulator");
  const emu = await startEmulator();
  try {
    const res = await request(`${emu.controlUrl}/runs`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ workspaceId: emu.workspaceId, count: RUNS, status: "applied" }),
    });
    const made = (await res.body.json()) as { ids?: string[] };
    if (res.statusCode !== 201 || made.ids?.length !== RUNS) throw new Error(`could not create ${RUNS} runs: ${res.statusCode} ${JSON.stringify(made).slice(0, 200)}`);
    const env = { SVC_RUN_URL: emu.runUrl, SVC_RUN_TOKEN: emu.tokens.runAdmin, BENCH_WORKSPACE: emu.workspaceId };

    console.log(`pulumi-svc bench: list ${RUNS} runs (${Math.ceil(RUNS / PAGE)} pages of ${PAGE}), each side in its own process, ${REPEATS} interleaved repetitions\n`);
    const results: Record<Side, Measure[]> = { raw: [], listRuns: [], iterator: [] };
    for (let r = 0; r < REPEATS; r++) {
      for (const side of SIDES) {
        const m = await measure(side, env);
        if (m.count !== RUNS) throw new Error(`${side} listed ${m.count} runs, expected ${RUNS}`);
        results[side].push(m);
      }
    }
    const labels: Record<Side, string> = { raw: "raw undici (JSON.parse)", listRuns: "listRuns (collects)", iterator: "listRunsIterator (streams)" };
    const med = (side: Side, key: keyof Omit<Measure, "side" | "count">) => median(results[side].map((m) => m[key]));
    for (const side of SIDES) {
      const ms = med(side, "ms");
      console.log(`${labels[side].padEnd(28)} ${ms.toFixed(1).padStart(8)} ms  ${(ms / RUNS * 1000).toFixed(1).padStart(6)} µs/run  ` +
        `peak heap +${med(side, "peakHeapMb").toFixed(1).padStart(5)} MB  retained ${med(side, "retainedHeapMb").toFixed(1).padStart(5)} MB  max RSS ${med(side, "maxRssMb").toFixed(0).padStart(4)} MB`);
    }
    console.log(`(medians of ${REPEATS}; peak heap is sampled every ms during the listing, garbage included)\n`);
    for (const side of ["listRuns", "iterator"] as const) {
      console.log(`ratio ${side}/raw: time ${(med(side, "ms") / med("raw", "ms")).toFixed(2)}  peak heap ${(med(side, "peakHeapMb") / med("raw", "peakHeapMb")).toFixed(2)}  ` +
        `retained ${(med(side, "retainedHeapMb") / med("raw", "retainedHeapMb")).toFixed(2)}  max RSS ${(med(side, "maxRssMb") / med("raw", "maxRssMb")).toFixed(2)}`);
    }
  } finally {
    await emu.close();
  }
}

const sideArg = process.argv.indexOf("--side");
const main = sideArg > 0 ? () => child(process.argv[sideArg + 1] as Side) : parent;
main().catch((e) => { console.error(e); process.exit(1); });
