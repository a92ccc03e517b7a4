/**
 * `npm run bench`: provider create+read+delete of N transform templates against the emulator, vs
 * the same HTTP requests sent with raw undici to the same emulator in the same run. Reports the
 * ratio (never a threshold) and the size of the serialized provider each resource stores.
 */
import { execFileSync } from "node:child_process";
import * as pulumi from "@pulumi/pulumi";
import { Agent, request } from "undici";
import { startEmulator } from "../src/emulator";
import { call } from "../src/core/runtime";
import { providerFor } from "../src/core/trampoline";
import { KINDS } from "../src/kinds";
import { installedProject } from "../src/engine/installed";

const N = Number(process.env.BENCH_N ?? process.argv[2] ?? 200);

async function providerRound(i: number): Promise<void> {
  const news = { name: `bench-${i}`, pattern: "(\\d{3})-(\\d{4})" };
  const { inputs } = (await call("secrets:TransformTemplate", "check", [{}, news])) as { inputs: Record<string, unknown> };
  const { id, outs } = (await call("secrets:TransformTemplate", "create", [inputs])) as { id: string; outs: Record<string, unknown> };
  await call("secrets:TransformTemplate", "read", [id, outs]);
  await call("secrets:TransformTemplate", "delete", [id, outs]);
}

/** The requests providerRound makes: existence check, write, read-back, refresh read, delete. */
async function rawRound(base: string, token: string, agent: Agent, i: number): Promise<void> {
  const url = `${base}/transform/template/raw-${i}`;
  const headers = { "x-svc-token": token, "content-type": "application/json" };
  const send = async (method: "GET" | "POST" | "DELETE", body?: string) => {
    const res = await request(url, { method, headers, body, dispatcher: agent });
    await res.body.text();
  };
  await send("GET");
  await send("POST", JSON.stringify({ type: "regex", pattern: "(\\d{3})-(\\d{4})", alphabet: "" }));
  await send("GET");
  await send("GET");
  await send("DELETE");
}

async function timed(fn: (i: number) => Promise<void>, offset: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await fn(offset + i);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const REPEATS = 5;

/**
 * Sizes as users get them: the package installed under node_modules of a project, where each
 * kind's provider is its generated module's exports and serializes as a require of it.
 */
function installedSizes(): Record<string, number> {
  const project = installedProject();
  try {
    const script = `
      const pulumi = require("@pulumi/pulumi"); require("pulumi-svc");
      const dir = require("path").dirname(require.resolve("pulumi-svc"));
      const { KINDS } = require(dir + "/kinds.js");
      (async () => { const out = {};
        for (const kind of Object.keys(KINDS)) {
          const [service, type] = kind.split(":");
          const p = require(dir + "/providers/" + service + "/" + type + ".js");
          out[kind] = Buffer.byteLength((await pulumi.runtime.serializeFunction(() => p, { allowSecrets: true })).text);
        }
        console.log(JSON.stringify(out)); })();`;
    // The serializer walks Node's built-in modules, which prints deprecation noise on stderr.
    return JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: project.dir, encoding: "utf8", env: { ...process.env, NODE_NO_WARNINGS: "1" } }));
  } finally {
    project.remove();
  }
}

async function main(): Promise<void> {
  const emu = await startEmulator();
  process.env.SVC_SECRETS_URL = emu.secretsUrl;
  process.env.SVC_SECRETS_TOKEN = emu.tokens.secretsUser;
  const agent = new Agent();
  try {
    console.log(`pulumi-svc bench: ${N} transform templates, create+read+delete (5 requests each)\n`);
    // Warm both paths so module loading and connection setup are not measured.
    for (let i = 0; i < 10; i++) { await providerRound(N + i); await rawRound(emu.secretsUrl, emu.tokens.secretsUser, agent, N + i); }
    // Interleaved repetitions so neither side profits from running second (warm JIT, GC timing).
    const raws: number[] = [];
    const provs: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      raws.push(await timed((i) => rawRound(emu.secretsUrl, emu.tokens.secretsUser, agent, i), r * N));
      provs.push(await timed(providerRound, r * N));
    }
    const raw = median(raws);
    const prov = median(provs);
    for (const [label, ms] of [["raw undici", raw], ["provider (check+CRUD)", prov]] as const) {
      console.log(`${label.padEnd(24)} ${ms.toFixed(1).padStart(9)} ms  ${(ms / N).toFixed(3)} ms/object  (median of ${REPEATS})`);
    }
    console.log(`ratio provider/raw: ${(prov / raw).toFixed(2)}\n`);

    console.log("serialized provider (__provider) stored in each resource's state, in bytes:");
    console.log(`  ${"kind".padEnd(34)} ${"this repo".padStart(10)} ${"installed".padStart(10)}`);
    const installed = installedSizes();
    for (const kind of Object.keys(KINDS)) {
      const provider = providerFor(kind);
      const text = (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })).text;
      console.log(`  ${kind.padEnd(34)} ${String(Buffer.byteLength(text)).padStart(10)} ${String(installed[kind]).padStart(10)}`);
    }
  } finally {
    await agent.close();
    await emu.close();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
