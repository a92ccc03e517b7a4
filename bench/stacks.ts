/**
 * `npm run bench` (stacks): K stacks (BENCH_STACKS, default 6) of M resources each
 * (BENCH_STACKS_M, default 40: half transform alphabets, half notification configurations)
 * deployed at once through the Automation API against one emulator that answers 429 with
 * Retry-After to a share of the writes: one in 5 alphabet writes and deletes is refused before it
 * acts, and one in 4 configuration creates is refused after the server made the object (the case
 * of a proxy answering 429), so a client that posted again would make a duplicate. Each stack's
 * configurations go to a workspace of its own (the service holds at most 20 in one). Checks 0
 * failures, exactly the K×M objects on the server (none duplicated, none missing), a second `up` of
 * each stack with no changes, and clean destroys; reports the wall time of K stacks against one
 * stack of the same M, and the provider hosts' memory (bench/host-memory.ts). The driver is
 * bench/programs/stacks/drive.js, run in an installed project.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as readline from "node:readline";
import { startEmulator, type Emulator } from "../src/emulator";
import { installedProject } from "../src/engine/installed";
import { cliDir, cliEnv, root } from "./cli";
import { hostMemorySupported, kb, mb, watchHosts } from "./host-memory";

const K = Number(process.env.BENCH_STACKS ?? 6);
const M = Number(process.env.BENCH_STACKS_M ?? 40);
const BASE = Number(process.env.BENCH_STACKS_BASE ?? 4);
// The run service holds at most 20 notification configurations per workspace: one workspace a stack.
if (M > 40) throw new Error("BENCH_STACKS_M must be at most 40 (half of them configurations, at most 20 in a workspace)");
const workspaceOf = (stack: string) => `ws-bench-${stack}`;
const PHASES = ["up", "again", "destroy"] as const;
type Phase = (typeof PHASES)[number];

interface StackResult { stack: string; seconds: number; changes?: Record<string, number>; error?: string }
interface PhaseResult { wall: number; results: StackResult[]; peaks: number[]; refused: number; writes: number }
interface Run { stacks: number; count: number; phases: Record<Phase, PhaseResult>; problems: string[] }

async function emulatorJson(emu: Emulator, method: string, url: string, headers: Record<string, string> = {}, body?: unknown): Promise<any> {
  const res = await fetch(url, { method, headers: { "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** Names of the alphabets and of the workspace's configurations on the server, duplicates kept. */
async function onServer(emu: Emulator, stacks: string[]): Promise<{ alphabets: string[]; configurations: string[] }> {
  const a = await emulatorJson(emu, "GET", `${emu.secretsUrl}/transform/alphabet?list=true`, { "x-svc-token": emu.tokens.secretsRoot });
  const configurations: string[] = [];
  for (const stack of stacks) {
    const n = await emulatorJson(emu, "GET", `${emu.runUrl}/workspaces/${workspaceOf(stack)}/notification-configurations`, { authorization: `Bearer ${emu.tokens.runAdmin}` });
    configurations.push(...(n.json.data as { attributes: { name: string } }[]).map((d) => d.attributes.name));
  }
  return { alphabets: a.status === 404 ? [] : (a.json.data.keys as string[]), configurations };
}

/** The share of writes refused: see the header. `every` makes it a fixed share, the same in every run. */
async function arm(emu: Emulator, stacks: string[]): Promise<void> {
  const control = (p: string, method: string, body?: unknown) => emulatorJson(emu, method, `${emu.controlUrl}${p}`, {}, body);
  await control("/reset", "POST");
  const seeded = await control("/seed", "POST", { workspaces: stacks.map((s) => ({ id: workspaceOf(s), name: workspaceOf(s) })) });
  if (seeded.status >= 300) throw new Error(`seed refused: ${JSON.stringify(seeded.json)}`);
  for (const fault of [
    { method: "POST", path: "/v1/transform/alphabet/*", retryAfter: 1, every: 5 },
    { method: "DELETE", path: "/v1/transform/alphabet/*", retryAfter: 1, every: 5 },
    { method: "POST", path: "/api/v2/workspaces/*", retryAfter: 1, every: 4, when: "after" },
    { method: "DELETE", path: "/api/v2/notification-configurations/*", retryAfter: 1, every: 4 },
  ]) {
    const r = await control("/faults", "POST", { ...fault, count: 1_000_000 });
    if (r.status !== 201) throw new Error(`fault refused: ${JSON.stringify(r.json)}`);
  }
}

function expectedNames(stacks: string[], count: number) {
  const names = (odd: boolean) => stacks.flatMap((s) => Array.from({ length: count }, (_, i) => i).filter((i) => i % 2 === (odd ? 1 : 0)).map((i) => `${s}-${i}`));
  return { alphabets: names(false).sort(), configurations: names(true).sort() };
}

const same = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

/** One driver: `stacks` stacks of `count` resources, every phase at once for all of them. */
async function run(emu: Emulator, dir: string, tag: string, stacks: number, count: number): Promise<Run> {
  const names = Array.from({ length: stacks }, (_, i) => `${tag}${i}`);
  await arm(emu, names);
  const settings = {
    count, stacks: names,
    emulator: { secretsUrl: emu.secretsUrl, secretsToken: emu.tokens.secretsUser, runUrl: emu.runUrl, runToken: emu.tokens.runAdmin, workspaces: Object.fromEntries(names.map((n) => [n, workspaceOf(n)])) },
  };
  const base = fs.mkdtempSync(path.join(dir, `${tag}-`));
  const child = spawn(process.execPath, [path.join(dir, "drive.js"), cliDir!, base, JSON.stringify(settings)], { cwd: dir, env: cliEnv(base) });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => { stderr += d.toString(); if (process.env.BENCH_DEBUG) process.stderr.write(d); });
  const exited = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)));
  const lines = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<any> => {
    const line = await lines.next();
    if (line.done) throw new Error(`driver ended (code ${await exited}): ${stderr.slice(-4000)}`);
    return JSON.parse(line.value);
  };
  await next(); // ready: stacks created and configured
  const problems: string[] = [];
  const phases = {} as Record<Phase, PhaseResult>;
  const expected = expectedNames(names, count);
  for (const phase of PHASES) {
    await emulatorJson(emu, "DELETE", `${emu.controlUrl}/requests`);
    const watch = watchHosts();
    // The last phase ends the driver's input, so that it exits when done.
    if (phase === "destroy") child.stdin.end(`${phase}\n`);
    else child.stdin.write(`${phase}\n`);
    const reply = await next();
    const peaks = watch.stop();
    const log = (await emulatorJson(emu, "GET", `${emu.controlUrl}/requests`)).json.requests as { method: string; status: number }[];
    const writes = log.filter((r) => r.method !== "GET" && r.method !== "LIST").length;
    phases[phase] = { wall: reply.wall, results: reply.results, peaks, refused: log.filter((r) => r.status === 429).length, writes };
    for (const r of reply.results as StackResult[]) {
      // The engine's own summary repeats each error several times: its first error lines say enough.
      const errors = [...new Set((r.error ?? "").split("\n").filter((l) => /error: /.test(l)).map((l) => l.trim()))].slice(0, 3);
      if (r.error) problems.push(`${phase} of ${r.stack}: ${errors.join("; ") || r.error.slice(-300)}`);
      const changed = Object.keys(r.changes ?? {}).filter((k) => k !== "same");
      if (phase === "again" && changed.length > 0) problems.push(`second up of ${r.stack} changed: ${JSON.stringify(r.changes)}`);
    }
    const held = await onServer(emu, names);
    const want = phase === "destroy" ? { alphabets: [], configurations: [] } : expected;
    if (!same(held.alphabets, want.alphabets)) problems.push(`after ${phase}: ${held.alphabets.length} alphabets on the server, expected ${want.alphabets.length}`);
    if (!same(held.configurations, want.configurations)) {
      problems.push(`after ${phase}: ${held.configurations.length} configurations (${new Set(held.configurations).size} names) on the server, expected ${want.configurations.length}`);
    }
  }
  const code = await exited;
  if (code !== 0) problems.push(`driver exited ${code}: ${stderr.slice(-2000)}`);
  return { stacks, count, phases, problems };
}

function report(name: string, r: Run): void {
  const up = r.phases.up;
  const failures = r.problems.length;
  console.log(`${name.padEnd(24)} up ${up.wall.toFixed(1)} s, second up ${r.phases.again.wall.toFixed(1)} s, destroy ${r.phases.destroy.wall.toFixed(1)} s; ` +
    `429s: ${up.refused} of ${up.writes} writes in up, ${r.phases.destroy.refused} of ${r.phases.destroy.writes} in destroy; problems ${failures}`);
  for (const p of r.problems) console.log(`  ${p}`);
}

async function main(): Promise<void> {
  if (!cliDir) {
    console.log("pulumi-svc bench (stacks): skipped, no Pulumi CLI (scripts/pulumi-cli.sh builds it)");
    return;
  }
  const emu = await startEmulator();
  const project = installedProject("pulumi-svc-stacks-");
  try {
    fs.copyFileSync(path.join(root, "bench/programs/stacks/drive.js"), path.join(project.dir, "drive.js"));
    console.log(`pulumi-svc bench: ${K} stacks × ${M} resources at once through the Automation API, ` +
      `one emulator refusing with 429 one in 5 alphabet writes and one in 4 configuration creates (after acting) and deletes\n`);
    const probe = await run(emu, project.dir, "base", 1, BASE);
    const one = await run(emu, project.dir, "one", 1, M);
    const many = await run(emu, project.dir, "many", K, M);
    report(`probe: 1 stack × ${BASE}`, probe);
    report(`1 stack × ${M}`, one);
    report(`${K} stacks × ${M}`, many);
    const problems = probe.problems.length + one.problems.length + many.problems.length;
    console.log(`\n${problems === 0 ? "0 failures" : `${problems} PROBLEMS`}: ${K * M} objects on the server after the ups (${K * M / 2} alphabets, ` +
      `${K * M / 2} configurations), none duplicated or missing; second ups without changes; destroys left none`);
    console.log(`wall time ${K} stacks / 1 stack (same M): up ${(many.phases.up.wall / one.phases.up.wall).toFixed(2)}, ` +
      `destroy ${(many.phases.destroy.wall / one.phases.destroy.wall).toFixed(2)} (${K} times the work)`);
    if (!hostMemorySupported()) return console.log("provider host memory: not measured (needs Linux /proc)");
    const peak = (r: Run) => Math.max(0, ...r.phases.up.peaks);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    console.log(`provider host memory in up (peak resident set, VmHWM): ${mb(peak(probe))} at ${BASE} resources, ${mb(peak(one))} at ${M}: ` +
      `${kb((peak(one) - peak(probe)) / (M - BASE))} per resource; with ${K} stacks at once ${many.phases.up.peaks.length} hosts, ` +
      `${mb(mean(many.phases.up.peaks))} each on average (${kb((mean(many.phases.up.peaks) - peak(probe)) / (M - BASE))} per resource)`);
    if (problems > 0) process.exitCode = 1;
  } finally {
    project.remove();
    await emu.close();
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
