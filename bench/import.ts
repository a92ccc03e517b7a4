/**
 * `npm run bench` (import): pulumi-svc-import on a server holding BENCH_IMPORT objects (default
 * 1000: alphabets, templates naming them, FPE transformations naming those, transform roles and
 * registry roles), against a raw baseline in the same run: undici listing the same routes and
 * reading each object once, as many requests in flight as the import. Reports medians and the ratio,
 * never a threshold: what walking every kind, decoding and writing the program cost over the reads.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Agent, request } from "undici";
import { startEmulator, type Emulator } from "../src/emulator";
import { main } from "../src/import/cli";

const N = Number(process.env.BENCH_IMPORT ?? 1000);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
// As many as the import: the HTTP client's default maxConcurrentRequests.
const IN_FLIGHT = 16;

async function send(emu: Emulator, agent: Agent, method: string, p: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await request(`${emu.secretsUrl}${p}`, {
    method: method as "GET", dispatcher: agent,
    headers: { "x-svc-token": emu.tokens.secretsRoot, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300 && res.statusCode !== 404) throw new Error(`${method} ${p}: ${res.statusCode} ${text}`);
  return text ? JSON.parse(text) as Record<string, unknown> : {};
}

async function pool<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/** The objects, a fifth of N of each kind, made by raw requests. */
async function seed(emu: Emulator, agent: Agent): Promise<void> {
  const fifth = Math.max(1, Math.floor(N / 5));
  const ids = Array.from({ length: fifth }, (_, i) => String(i).padStart(4, "0"));
  await pool(ids, (i) => send(emu, agent, "POST", `/transform/alphabet/a${i}`, { alphabet: "0123456789abcdef" }));
  await pool(ids, (i) => send(emu, agent, "POST", `/transform/template/t${i}`, { type: "regex", pattern: "(\\d+)", alphabet: `a${i}` }));
  await pool(ids, (i) => send(emu, agent, "POST", `/transform/transformations/fpe/f${i}`, { template: `t${i}`, tweak_source: "internal" }));
  await pool(ids, (i) => send(emu, agent, "POST", `/transform/role/r${i}`, { transformations: [`f${i}`] }));
  await pool(ids, (i) => send(emu, agent, "POST", `/registry/roles/g${i}`, { policies: ["read"] }));
}

/** The baseline: each seeded kind's list, then a GET of every name, IN_FLIGHT at a time. */
async function raw(emu: Emulator, agent: Agent): Promise<number> {
  const lists = ["transform/alphabet", "transform/template", "transform/transformation", "transform/role", "registry/roles"];
  let reads = 0;
  for (const list of lists) {
    const body = await send(emu, agent, "LIST", `/${list}`);
    const keys = ((body.data as { keys?: string[] } | undefined)?.keys ?? []);
    const base = list === "transform/transformation" ? "transform/transformation" : list;
    await pool(keys, async (k) => { await send(emu, agent, "GET", `/${base}/${k}`); reads++; });
  }
  return reads;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function run(): Promise<void> {
  const emu = await startEmulator();
  const agent = new Agent();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "bench-import-"));
  try {
    await seed(emu, agent);
    const env = { SVC_SECRETS_URL: emu.secretsUrl, SVC_SECRETS_TOKEN: emu.tokens.secretsRoot };
    // Warm-up of both sides: module loading and first connections are not measured.
    await raw(emu, agent);
    await main(["--out", out, "--force"], () => {}, env);
    const rawMs: number[] = [];
    const importMs: number[] = [];
    let reads = 0;
    let written = "";
    for (let i = 0; i < REPEATS; i++) {
      let t = process.hrtime.bigint();
      reads = await raw(emu, agent);
      rawMs.push(Number(process.hrtime.bigint() - t) / 1e6);
      t = process.hrtime.bigint();
      written = (await main(["--out", out, "--force"], () => {}, env)).out.split("\n")[0]!.replace(/\.$/, "");
      importMs.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const r = median(rawMs);
    const m = median(importMs);
    console.log(`pulumi-svc-import of ${N} objects (median of ${REPEATS}, ${IN_FLIGHT} requests in flight)`);
    console.log(`  raw undici list + GET of each (${reads} reads): ${r.toFixed(0)} ms`);
    console.log(`  pulumi-svc-import, every kind walked, program written: ${m.toFixed(0)} ms  (${(m / r).toFixed(2)}x raw)`);
    console.log(`  ${written}; index.ts ${(fs.statSync(path.join(out, "index.ts")).size / 1024).toFixed(0)} KiB`);
  } finally {
    await agent.close();
    const { closeAgents }: typeof import("../src/http") = require("../src/http");
    await closeAgents();
    await emu.close();
    fs.rmSync(out, { recursive: true, force: true });
  }
}

run().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
