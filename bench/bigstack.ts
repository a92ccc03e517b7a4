/**
 * `npm run bench` (bigstack): one stack of 1,000 transform alphabets (BENCH_BIG_COUNT) under the
 * real Pulumi CLI, `up`, `refresh` and `destroy`, against a trivial dynamic provider that sends the
 * same requests to the same emulator (bench/programs/bigstack), in the same run, operations
 * interleaved. The trivial provider runs twice: written inline (its text, closure and all, stored
 * with every resource) and installed as a module (a require stored, as ours is). A probe stack of BENCH_BIG_BASE alphabets first records which requests ours sends per
 * create, read and delete, which the trivial provider then replays; every operation's requests are
 * counted on both sides. Reports time per resource and its ratio to the trivial provider (the goal
 * is 1.2; reported, never asserted) and the provider host's memory growth per resource: (peak
 * resident set of the `up`'s host at N − the same at the probe's size) / the difference in size.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../src/emulator";
import { installedProject } from "../src/engine/installed";
import { cliDir, cliEnv, control, mustPulumi, root, seconds } from "./cli";
import { hostMemorySupported, kb, mb, watchHosts } from "./host-memory";

const COUNT = Number(process.env.BENCH_BIG_COUNT ?? 1000);
const BASE = Number(process.env.BENCH_BIG_BASE ?? 10);
const PARALLEL = Number(process.env.BENCH_BIG_PARALLEL ?? 16);
const OPS = ["up", "refresh", "destroy"] as const;
type Op = (typeof OPS)[number];
const SIDES = ["ours", "inline", "module"] as const;
type Side = (typeof SIDES)[number];

interface Logged { method: string; path: string; query: Record<string, string>; status: number }
interface Outcome { seconds: number; peak: number; requests: Logged[]; stored?: Stored }
/** What the state keeps per resource: the serialized provider, and the whole entry (the engine rewrites every entry at each step). */
interface Stored { provider: number; entry: number }
type Profile = Record<Op, { method: string; path: string; query: Record<string, string> }[]>;


async function alphabetsOnServer(emu: Emulator): Promise<string[]> {
  const res = await fetch(`${emu.secretsUrl}/transform/alphabet?list=true`, { headers: { "x-svc-token": emu.tokens.secretsRoot } });
  return res.status === 404 ? [] : ((await res.json()) as { data: { keys: string[] } }).data.keys;
}

class Bench {
  readonly env: NodeJS.ProcessEnv;
  constructor(private readonly emu: Emulator, private readonly dir: string) {
    this.env = cliEnv(dir, { BENCH_ORIGIN: new URL(emu.secretsUrl).origin, BENCH_SECRETS_TOKEN: emu.tokens.secretsUser });
  }

  async init(stack: string, side: Side, count: number, prefix: string, profile?: Profile): Promise<void> {
    await mustPulumi(this.dir, this.env, ["stack", "init", stack]);
    await mustPulumi(this.dir, this.env, ["config", "set-all", "--stack", stack,
      "--plaintext", `svc:secretsUrl=${this.emu.secretsUrl}`, "--secret", `svc:secretsToken=${this.emu.tokens.secretsUser}`,
      "--plaintext", `bigstack:side=${side}`, "--plaintext", `bigstack:count=${count}`, "--plaintext", `bigstack:prefix=${prefix}`,
      ...(profile ? ["--plaintext", `bigstack:profile=${JSON.stringify(profile)}`] : [])]);
  }

  /** One operation, timed, with its provider host's peak memory and the requests it sent. */
  async run(stack: string, op: Op): Promise<Outcome> {
    await control(this.emu, "DELETE", "/requests");
    const watch = watchHosts();
    const started = process.hrtime.bigint();
    await mustPulumi(this.dir, this.env, [op, "--yes", "--skip-preview", "--parallel", String(PARALLEL), "--stack", stack]);
    const took = seconds(started);
    const peaks = watch.stop();
    const requests = (await control(this.emu, "GET", "/requests")).requests as Logged[];
    return { seconds: took, peak: Math.max(0, ...peaks), requests, stored: op === "up" ? await this.storedProvider(stack) : undefined };
  }

  /** Characters the state keeps with each resource (the first one's): its provider text and its whole entry. */
  private async storedProvider(stack: string): Promise<Stored> {
    const state = JSON.parse(await mustPulumi(this.dir, this.env, ["stack", "export", "--stack", stack]));
    const found = (state.deployment.resources as { inputs?: { __provider?: string } }[]).find((r) => r.inputs?.__provider);
    return { provider: found?.inputs?.__provider?.length ?? 0, entry: found ? JSON.stringify(found).length : 0 };
  }
}

/**
 * The requests ours sent per object: those naming its first object, its name made a placeholder,
 * after the requests naming no object (the in-use guard's list before a delete), shared out evenly.
 */
function profileOf(probe: Record<Op, Outcome>, prefix: string): Profile {
  const name = `${prefix}-0`;
  const named = new RegExp(`/${prefix}-\\d+$`);
  const entry = (op: Op) => {
    const shared = new Map<string, number>();
    for (const r of probe[op].requests.filter((r) => !named.test(r.path))) {
      const key = JSON.stringify({ method: r.method, path: r.path, query: r.query });
      shared.set(key, (shared.get(key) ?? 0) + 1);
    }
    const own = probe[op].requests.filter((r) => r.path.endsWith(`/${name}`))
      .map((r) => ({ method: r.method, path: r.path.slice(0, -name.length) + "{name}", query: r.query }));
    const before = [...shared].flatMap(([key, n]) => Array.from({ length: Math.floor(n / BASE) }, () => JSON.parse(key)));
    return [...before, ...own];
  };
  const profile = { up: entry("up"), refresh: entry("refresh"), destroy: entry("destroy") };
  for (const op of OPS) {
    if (profile[op].length * BASE !== probe[op].requests.length) {
      throw new Error(`${op} of ${BASE} alphabets sent ${probe[op].requests.length} requests, not ${profile[op].length} per object: ` +
        `the trivial provider could not send the same (${JSON.stringify(probe[op].requests.slice(0, 20))})`);
    }
  }
  return profile;
}

async function main(): Promise<void> {
  if (!cliDir) {
    console.log("pulumi-svc bench (bigstack): skipped, no Pulumi CLI (scripts/pulumi-cli.sh builds it)");
    return;
  }
  const emu = await startEmulator();
  const project = installedProject("pulumi-svc-bigstack-");
  try {
    const programs = path.join(root, "bench/programs/bigstack");
    const module = path.join(project.dir, "node_modules/bench-trivial");
    fs.mkdirSync(module);
    for (const file of ["index.js", "trivial.js"]) fs.copyFileSync(path.join(programs, file), path.join(project.dir, file));
    fs.copyFileSync(path.join(programs, "trivial.js"), path.join(module, "trivial.js"));
    fs.writeFileSync(path.join(module, "index.js"), 'module.exports = require("./trivial").trivialProvider(JSON.parse(process.env.BENCH_PROFILE));\n');
    fs.writeFileSync(path.join(project.dir, "Pulumi.yaml"), "name: bigstack\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n");
    const bench = new Bench(emu, project.dir);
    console.log(`pulumi-svc bench: one stack of ${COUNT} alphabets under the real CLI, --parallel ${PARALLEL}, against a trivial dynamic provider sending the same requests\n`);

    const probe = {} as Record<Side, Record<Op, Outcome>>;
    const big = {} as Record<Side, Record<Op, Outcome>>;
    let profile: Profile | undefined;
    for (const side of SIDES) {
      await bench.init(`probe-${side}`, side, BASE, side, profile);
      probe[side] = {} as Record<Op, Outcome>;
      for (const op of OPS) probe[side][op] = await bench.run(`probe-${side}`, op);
      if (side === "ours") {
        profile = profileOf(probe.ours, "ours");
        bench.env.BENCH_PROFILE = JSON.stringify(profile);
        for (const op of OPS) console.log(`${op}: ${profile[op].map((r) => `${r.method} ${r.path}`).join(", ")} per resource`);
      }
    }

    // The big stacks, their operations interleaved so that the machine's load falls on all alike.
    for (const side of SIDES) {
      await bench.init(`big-${side}`, side, COUNT, side, profile);
      big[side] = {} as Record<Op, Outcome>;
    }
    for (const op of OPS) {
      for (const side of SIDES) big[side][op] = await bench.run(`big-${side}`, op);
      const names = await alphabetsOnServer(emu);
      const expected = op === "destroy" ? 0 : SIDES.length * COUNT;
      if (names.length !== expected || new Set(names).size !== expected) throw new Error(`after ${op} the server holds ${names.length} alphabets, not ${expected}`);
    }

    console.log("\noperation   side     requests   seconds   ms per resource   ours/this");
    for (const op of OPS) {
      for (const side of SIDES) {
        const o = big[side][op];
        console.log(`${op.padEnd(11)} ${side.padEnd(8)} ${String(o.requests.length).padStart(8)}   ${o.seconds.toFixed(1).padStart(7)}   ` +
          `${((o.seconds * 1000) / COUNT).toFixed(1).padStart(15)}   ${(big.ours[op].seconds / o.seconds).toFixed(2).padStart(9)}`);
      }
    }
    const total = (side: Side) => OPS.reduce((sum, op) => sum + big[side][op].seconds, 0);
    for (const side of SIDES) console.log(`all three   ${side.padEnd(8)} ${"".padStart(8)}   ${total(side).toFixed(1).padStart(7)}   ${"".padStart(15)}   ${(total("ours") / total(side)).toFixed(2).padStart(9)}`);
    console.log("0 failures; after the ups the server held exactly every stack's alphabets, after the destroys none");
    console.log(`serialized provider stored with each resource: ${SIDES.map((side) => `${side} ${big[side].up.stored?.provider} characters`).join(", ")}`);
    console.log(`state entry of each resource: ${SIDES.map((side) => `${side} ${big[side].up.stored?.entry} characters`).join(", ")}`);

    if (!hostMemorySupported()) {
      console.log("provider host memory: not measured (needs Linux /proc)");
      return;
    }
    console.log(`\nprovider host memory during up: peak resident set (VmHWM) at ${BASE} and at ${COUNT} resources, growth = difference / ${COUNT - BASE}`);
    const growth = (side: Side) => big[side].up.peak - probe[side].up.peak;
    for (const side of SIDES) {
      console.log(`${side.padEnd(8)} ${mb(probe[side].up.peak)} → ${mb(big[side].up.peak)}: ${kb(growth(side) / (COUNT - BASE))} per resource, ours/this ${(growth("ours") / growth(side)).toFixed(2)}`);
    }
  } finally {
    project.remove();
    await emu.close();
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
