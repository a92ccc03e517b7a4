/**
 * `npm run bench` (transform part), ratios against raw undici requests to the same emulator in the
 * same run, never thresholds:
 * 1. encode BENCH_ENCODE values (default 10,000) through `encode({batchInput})` in batches of 1000
 *    vs the same batch requests sent raw;
 * 2. snapshot and export-decoded of BENCH_TOKENS tokens (default 100,000) through the iterators
 *    (pages of 1000) vs a tenth of them: the peak heap should stay flat as the count grows tenfold.
 * Each measured side runs in its own child process so its memory is its own; the streaming sides
 * also force a GC at each page boundary and report the highest live heap (what one page holds).
 */
import { spawn } from "child_process";
import { Agent, request } from "undici";

const ENCODE = Number(process.env.BENCH_ENCODE ?? 10_000);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 100_000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const BATCH = 1000;
type Side = "raw-encode" | "encode" | "snapshot-small" | "snapshot-large" | "export-small" | "export-large" | "raw-snapshot-large";

interface Measure {
  side: Side;
  count: number;
  ms: number;
  /** Highest heapUsed sampled every ms, garbage included. */
  peakHeapMb: number;
  /** Highest heapUsed right after a GC at each page boundary: what is really held (snapshot/export sides). */
  liveHeapMb: number;
  maxRssMb: number;
}

const values = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ value: `${prefix}-${i}`, transformation: "bench" }));

async function rawPost(base: string, token: string, path: string, body: unknown, agent: Agent): Promise<any> {
  const res = await request(`${base}/transform/${path}`, { method: "POST", headers: { "x-svc-token": token, "content-type": "application/json" }, body: JSON.stringify(body), dispatcher: agent });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${path}: ${res.statusCode} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : undefined;
}

async function child(side: Side): Promise<void> {
  const base = process.env.SVC_SECRETS_URL!;
  const token = process.env.SVC_SECRETS_TOKEN!;
  const t: typeof import("../src/secrets/transform") = require("../src/secrets/transform");
  const agent = new Agent();
  const input = side.endsWith("encode") ? values(ENCODE, `child-${process.pid}`) : [];
  // Warm up: module loading and the first connection are not measured.
  if (side === "raw-encode" || side === "raw-snapshot-large") await rawPost(base, token, "validate/bench", { value: "x", transformation: "bench" }, agent);
  else await t.validate({ role: "bench", transformation: "bench", value: "x" });
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().heapUsed); }, 1);
  const start = process.hrtime.bigint();
  let count = 0;
  let live = before;
  const pageDone = () => {
    gc?.();
    live = Math.max(live, process.memoryUsage().heapUsed);
  };
  if (side === "raw-encode") {
    for (let i = 0; i < input.length; i += BATCH) count += (await rawPost(base, token, "encode/bench", { batch_input: input.slice(i, i + BATCH) }, agent)).data.batch_results.length;
  } else if (side === "encode") {
    count = (await t.encode({ role: "bench", batchInput: input, batchSize: BATCH })).batchResults!.length;
  } else if (side === "raw-snapshot-large") {
    let continuation = "";
    do {
      const data = (await rawPost(base, token, "transformations/tokenization/snapshot/large", { limit: BATCH, continuation }, agent)).data;
      count += data.values.length;
      pageDone();
      continuation = data.continuation ?? "";
    } while (continuation);
  } else {
    const name = side.endsWith("large") ? "large" : "small";
    const it = side.startsWith("snapshot") ? t.snapshotTokenization({ transformation: name, limit: BATCH }) : t.exportDecodedTokenization({ transformation: name, limit: BATCH });
    for await (const _v of it as AsyncIterable<unknown>) if (++count % BATCH === 0) pageDone();
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  clearInterval(sampler);
  await agent.close();
  const { closeAgents }: typeof import("../src/http") = require("../src/http");
  await closeAgents();
  const m: Measure = { side, count, ms, peakHeapMb: (peak - before) / 2 ** 20, liveHeapMb: (live - before) / 2 ** 20, maxRssMb: process.resourceUsage().maxRSS / 1024 };
  process.stdout.write(`${JSON.stringify(m)}\n`);
}

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
  const agent = new Agent();
  const root = emu.tokens.secretsRoot;
  try {
    const setup = (path: string, body: unknown) => rawPost(emu.secretsUrl, root, path, body, agent);
    await setup("transformations/tokenization/bench", { allowed_roles: ["bench"] });
    for (const name of ["small", "large"]) await setup(`transformations/tokenization/${name}`, { allowed_roles: ["bench"], mapping_mode: "exportable" });
    await setup("role/bench", { transformations: ["bench", "small", "large"] });
    for (const [name, n] of [["small", TOKENS / 10], ["large", TOKENS]] as const) {
      for (let i = 0; i < n; i += BATCH) {
        await setup("encode/bench", { batch_input: values(Math.min(BATCH, n - i), `${name}-${i}`).map((v) => ({ ...v, transformation: name })) });
      }
    }
    const env = { SVC_SECRETS_URL: emu.secretsUrl, SVC_SECRETS_TOKEN: emu.tokens.secretsUser };
    const expected: Record<Side, number> = {
      "raw-encode": ENCODE, encode: ENCODE, "snapshot-small": TOKENS / 10, "snapshot-large": TOKENS, "export-small": TOKENS / 10, "export-large": TOKENS, "raw-snapshot-large": TOKENS,
    };
    const sides = Object.keys(expected) as Side[];
    console.log(`pulumi-svc bench: transform encode of ${ENCODE} values in batches of ${BATCH}; snapshot/export of ${TOKENS} vs ${TOKENS / 10} tokens in pages of ${BATCH}; ${REPEATS} interleaved repetitions, each side in its own process\n`);
    const results = Object.fromEntries(sides.map((s) => [s, [] as Measure[]])) as Record<Side, Measure[]>;
    for (let r = 0; r < REPEATS; r++) {
      for (const side of sides) {
        const m = await measure(side, env);
        if (m.count !== expected[side]) throw new Error(`${side} handled ${m.count} values, expected ${expected[side]}`);
        results[side].push(m);
      }
    }
    const med = (side: Side, key: "ms" | "peakHeapMb" | "liveHeapMb" | "maxRssMb") => median(results[side].map((m) => m[key]));
    for (const side of sides) {
      console.log(`${side.padEnd(20)} ${String(expected[side]).padStart(7)} values ${med(side, "ms").toFixed(0).padStart(7)} ms  peak heap +${med(side, "peakHeapMb").toFixed(1).padStart(6)} MB  live after GC +${med(side, "liveHeapMb").toFixed(2).padStart(6)} MB  max RSS ${med(side, "maxRssMb").toFixed(0).padStart(4)} MB`);
    }
    console.log(`\nratio encode/raw-encode: time ${(med("encode", "ms") / med("raw-encode", "ms")).toFixed(2)}`);
    console.log(`ratio snapshot-large/raw-snapshot-large: time ${(med("snapshot-large", "ms") / med("raw-snapshot-large", "ms")).toFixed(2)}`);
    for (const kind of ["snapshot", "export"] as const) {
      console.log(`ratio ${kind} ${TOKENS}/${TOKENS / 10} tokens: time ${(med(`${kind}-large`, "ms") / med(`${kind}-small`, "ms")).toFixed(2)}  ` +
        `live heap ${(med(`${kind}-large`, "liveHeapMb") / med(`${kind}-small`, "liveHeapMb")).toFixed(2)}  max RSS ${(med(`${kind}-large`, "maxRssMb") / med(`${kind}-small`, "maxRssMb")).toFixed(2)} (flat memory: near 1)`);
    }
  } finally {
    await agent.close();
    await emu.close();
  }
}

const sideArg = process.argv.indexOf("--side");
void (sideArg > 0 ? child(process.argv[sideArg + 1] as Side) : parent()).catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
