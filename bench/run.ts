/**
 * `npm run bench` (provider part): check + create + read + delete through the provider's runtime
 * entry, per kind (transform Template, run-service NotificationConfiguration, keymgmt Key), vs the
 * very same HTTP requests sent with raw undici to the same emulator in the same run: once through
 * request() (the goal's baseline), once through dispatch() with a minimal handler (the interface
 * the provider's client uses), and once through the package's own client (what the layers above it
 * cost, the transport set apart). JSON bodies are parsed on every side, as any client must. The
 * emulator runs in its own process, as a real server would. Every side's requests are read from the
 * emulator's log first, so the sides provably do the same work. Ratios are given for create + read +
 * delete (the measure) and with check added (for a create, check makes one read: what the
 * create could be confused with, src/core/leftovers.ts). After every kind's ratios, the package's
 * client once more, with a failed check before each request (codeBetween): what code run between
 * requests costs the requests themselves; and each kind's definition alone, called directly
 * (definitionAlone): the floor the package's work around its definitions stands on. Reports ratios
 * (never a threshold) and the size of the serialized provider each resource stores.
 */
import { execFileSync, fork, type ChildProcess } from "node:child_process";
import * as pulumi from "@pulumi/pulumi";
import { Agent, request } from "undici";
import { startEmulator } from "../src/emulator";
import { call, configure, configuredSource, definition } from "../src/runtime";
import { makeContext } from "../src/core/context";
import { leftoversOf } from "../src/core/leftovers";
import { check, refuseDuplicate } from "../src/core/provider";
import type { Props } from "../src/core/props";
import { providerFor } from "../src/core/trampoline";
import { KIND_NAMES } from "../src/kinds";
import { installedProject } from "../src/engine/installed";
import { closeAgents, HttpClient } from "../src/http";

const N = Number(process.env.BENCH_N ?? process.argv[2] ?? 100);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 11);
/**
 * Objects each side runs unmeasured first: module loading, connection setup and the JIT compiling
 * each path are one-time costs (the first call's is bench/coldstart.ts's subject), not per-object
 * ones. V8 goes on compiling the provider's functions with its optimizing compiler until about
 * 2,000 objects on Node 20 (`--trace-opt`; `request()`'s path settles by about 600), and that
 * compiling runs on the same two cores as the measured rounds: fewer objects measure the JIT, not
 * the provider. Node 22's V8 optimizes a function with TurboFan after 3,000 calls
 * (`--invocation-count-for-turbofan`): the provider's own functions run once per object and get
 * there at about 3,000 objects, where a request's path, run several times per object, got there
 * long before (docs/performance.md). The warm-up's own ratios are printed, so the reader sees them
 * settle.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 4500);
/** Objects per printed step of the warm-up. */
const WARMUP_STEP = 500;
/** A comma-separated subset of the kinds below (`BENCH_KINDS=runs:NotificationConfiguration`). */
const ONLY = process.env.BENCH_KINDS?.split(",").filter(Boolean);

interface Target { runUrl: string; secretsUrl: string; controlUrl: string; runToken: string; secretsToken: string; workspaceId: string }

/** One side of a comparison: sends the requests for object number i. */
type Round = (i: number) => Promise<void>;

/**
 * Time spent in check since the last timed() began: the provider's (timed apart: the ratios are
 * given with and without it), or the failed ones busySend makes (taken out of its requests' time).
 */
let checkNs = 0n;

async function providerRound(kind: string, news: Record<string, unknown>): Promise<void> {
  const start = process.hrtime.bigint();
  const { inputs, failures } = (await call(kind, "check", [{}, news])) as { inputs: Record<string, unknown>; failures: unknown[] };
  checkNs += process.hrtime.bigint() - start;
  if (failures.length > 0) throw new Error(`${kind}: check failed: ${JSON.stringify(failures)}`);
  const { id, outs } = (await call(kind, "create", [inputs])) as { id: string; outs: Record<string, unknown> };
  await call(kind, "read", [id, outs]);
  await call(kind, "delete", [id, outs]);
}

type Send = (url: string, method: string, headers: Record<string, string>, body?: unknown) => Promise<unknown>;

/** undici's request(), as a hand-written client would use it: the baseline of the goal. */
function rawRequest(agent: Agent): Send {
  return async (url, method, headers, body) => {
    const res = await request(url, { method: method as "GET", headers, body: body === undefined ? undefined : JSON.stringify(body), dispatcher: agent });
    const text = await res.body.text();
    return text === "" ? undefined : JSON.parse(text);
  };
}

/**
 * undici's dispatcher with a minimal handler, the interface the provider's client uses itself:
 * against this baseline the ratio is the provider's own work alone, with no saving from the transport.
 */
function rawDispatch(agent: Agent): Send {
  return (url, method, headers, body) => new Promise((resolve, reject) => {
    const u = new URL(url);
    const chunks: Buffer[] = [];
    agent.dispatch({ origin: u.origin, path: u.pathname + u.search, method: method as "GET", headers, body: body === undefined ? undefined : JSON.stringify(body) }, {
      onRequestStart() {},
      onResponseData(_c, chunk) { chunks.push(chunk); },
      onResponseEnd() {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve(text === "" ? undefined : JSON.parse(text));
      },
      onResponseError(_c, e) { reject(e); },
    });
  });
}

/**
 * The package's own HTTP client (src/http/client.ts) sending the same requests: against this side
 * the ratio is what the provider's layers above its client cost (validation, the connection, the
 * record of what a create could be confused with, reading back), the transport set apart. The
 * object's own segment is the route's parameter, as in the route tables (the client reads each
 * route's text once).
 */
function clientSend(t: Target): Send {
  const clients = {
    secrets: new HttpClient({ service: "secrets", baseUrl: t.secretsUrl, token: t.secretsToken }),
    runs: new HttpClient({ service: "runs", baseUrl: t.runUrl, token: t.runToken }),
  };
  return async (url, method, _headers, body) => {
    const service = url.startsWith(t.secretsUrl) ? "secrets" : "runs";
    const params: Record<string, string> = {};
    const path = url.slice((service === "secrets" ? t.secretsUrl : t.runUrl).length)
      .replace(/\/(r-\d+|nc-[^/?]+)(?=[/?]|$)/, (_m, name: string) => { params.name = name; return "/{name}"; });
    return (await clients[service].request({ route: `${method} ${path}`, params, body, expect: [404], retry: "never" })).body;
  };
}

/**
 * The package's client with a check of the kind that fails (an unknown property: it sends nothing)
 * before each request: the provider's own code between the requests, and nothing else. Against the
 * client alone, it shows what code run between requests does to the requests themselves (caches
 * the code evicts, a server idle for longer), which the provider pays beyond its own code's time.
 */
function busySend(t: Target): (kind: string) => Send {
  const send = clientSend(t);
  return (kind) => {
    const failing = { ...inputsOf(t, kind, 0), benchUnknownProperty: true };
    return async (url, method, headers, body) => {
      const start = process.hrtime.bigint();
      const { failures } = (await call(kind, "check", [{}, failing])) as { failures: unknown[] };
      checkNs += process.hrtime.bigint() - start;
      if (failures.length === 0) throw new Error(`${kind}: the busy side's check must fail`);
      return send(url, method, headers, body);
    };
  };
}

/** The program's inputs of object number i of each kind. */
function inputsOf(t: Target, kind: string, i: number): Record<string, unknown> {
  switch (kind) {
    case "secrets:TransformTemplate": return { name: `p-${i}`, pattern: "(\\d{3})-(\\d{4})" };
    case "runs:NotificationConfiguration": return {
      workspaceId: t.workspaceId, name: `p-${i}`, destinationType: "generic", url: "https://hooks.example.com/run",
      enabled: false, triggers: ["run:completed", "run:errored"], token: `bench-token-${i}-abcdefgh`,
    };
    case "secrets:KeymgmtKey": return { name: `p-${i}`, type: "aes256-gcm96", deletionAllowed: true };
    default: throw new Error(`no inputs for ${kind}`);
  }
}

/** Each kind: the provider's round for its inputs, and the requests the provider makes for them, written out by hand (sent through `sendOf(kind)`). */
function kinds(t: Target, sendOf: (kind: string) => Send): { kind: string; provider: Round; raw: Round }[] {
  const provider = (kind: string): Round => (i) => providerRound(kind, inputsOf(t, kind, i));
  const template = sendOf("secrets:TransformTemplate");
  const configuration = sendOf("runs:NotificationConfiguration");
  const key = sendOf("secrets:KeymgmtKey");
  const sec = { "x-svc-token": t.secretsToken, accept: "application/json" };
  const secBody = { ...sec, "content-type": "application/json" };
  const api = "application/vnd.api+json";
  const run = { authorization: `Bearer ${t.runToken}`, accept: api };
  const runBody = { ...run, "content-type": api };
  return [
    {
      kind: "secrets:TransformTemplate",
      provider: provider("secrets:TransformTemplate"),
      // Check's record of the path, existence check, write, read-back, refresh read, the in-use guard's list, delete.
      raw: async (i) => {
        const url = `${t.secretsUrl}/transform/template/r-${i}`;
        await template(url, "GET", sec);
        await template(url, "GET", sec);
        await template(url, "POST", secBody, { type: "regex", pattern: "(\\d{3})-(\\d{4})", alphabet: "builtin/numeric" });
        await template(url, "GET", sec);
        await template(url, "GET", sec);
        await template(`${t.secretsUrl}/transform/transformation?list=true`, "GET", sec);
        await template(url, "DELETE", sec);
      },
    },
    {
      kind: "runs:NotificationConfiguration",
      provider: provider("runs:NotificationConfiguration"),
      // Check's record of the lookalikes, the create's look for one, what existed before (one page
      // each), create, refresh read, delete.
      raw: async (i) => {
        const list = `${t.runUrl}/workspaces/${t.workspaceId}/notification-configurations`;
        for (let k = 0; k < 3; k++) await configuration(`${list}?page%5Bnumber%5D=1&page%5Bsize%5D=100`, "GET", run);
        const created = (await configuration(list, "POST", runBody, { data: { type: "notification-configuration", attributes: {
          "destination-type": "generic", name: `r-${i}`, enabled: false, triggers: ["run:completed", "run:errored"],
          url: "https://hooks.example.com/run", token: `bench-token-${i}-abcdefgh` } } })) as { data: { id: string } };
        const url = `${t.runUrl}/notification-configurations/${created.data.id}`;
        await configuration(url, "GET", run);
        await configuration(url, "DELETE", run);
      },
    },
    {
      kind: "secrets:KeymgmtKey",
      provider: provider("secrets:KeymgmtKey"),
      // Check's record of the path, existence check, create, configure, read-back, refresh read,
      // delete's guard read and distributions list, delete.
      raw: async (i) => {
        const url = `${t.secretsUrl}/keymgmt/key/r-${i}`;
        await key(url, "GET", sec);
        await key(url, "GET", sec);
        await key(url, "POST", secBody, { type: "aes256-gcm96" });
        await key(url, "POST", secBody, { deletion_allowed: true });
        await key(url, "GET", sec);
        await key(url, "GET", sec);
        await key(url, "GET", sec);
        await key(`${url}/kms?list=true`, "GET", sec);
        await key(url, "DELETE", sec);
      },
    },
  ];
}

/**
 * Wall time of N objects in ms (and the part of it spent in check: the provider's, or the busy
 * side's failed ones), and this process's CPU time (user + system) per object in µs.
 */
async function timed(fn: Round, offset: number): Promise<{ ms: number; checkMs: number; cpu: number }> {
  const cpu = process.cpuUsage();
  checkNs = 0n;
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i++) await fn(offset + i);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return { ms, checkMs: Number(checkNs) / 1e6, cpu: (used.user + used.system) / N };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs: number[]) => `${median(xs).toFixed(2)} (rounds ${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;

/**
 * The package's client alone against the same client with a failed check before each request
 * (busySend), in alternating rounds: the requests' time with the checks' own taken out, against
 * the client's, is what code run between requests costs the requests themselves.
 */
async function codeBetween(t: Target, { kind, client, busy, requests }: { kind: string; client: Round; busy: Round; requests: string[] },
  take: (n: number) => number): Promise<void> {
  const sent = await requestsLogged(t, () => busy(take(1)));
  if (sent.join("\n") !== requests.join("\n")) throw new Error(`${kind}: the failed checks must send nothing\n  ${sent.join("\n  ")}`);
  const start = take(WARMUP_STEP);
  for (let i = 0; i < WARMUP_STEP; i++) await busy(start + i);
  const ratios: number[] = [];
  const checks: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    const plain = await timed(client, take(N));
    const busied = await timed(busy, take(N));
    ratios.push((busied.ms - busied.checkMs) / plain.ms);
    checks.push(busied.checkMs / N * 1000);
  }
  console.log(`${kind}: the package's client with a failed check (no request) before each request, ${median(checks).toFixed(0)} µs of checks per object:`);
  console.log(`  its requests alone/the client's: ${spread(ratios)}\n`);
}

/**
 * The kind's definition alone, against `request()` in alternating rounds: check's record of what a
 * create could be confused with (leftoversOf), the create's refusal of a twin, then the definition's
 * create, read and delete, called directly with a context of the provider's settings. No
 * validation, no connection layer, no secrets' versions or registration, no records: what the
 * package does around its definitions on every call is what the provider's ratio has above this
 * one. The inputs are check's (defaults, sets in order), worked out before each round, untimed.
 */
async function definitionAlone(t: Target, { kind, raw, requests }: { kind: string; raw: Round; requests: string[] },
  take: (n: number) => number): Promise<void> {
  const def = await definition(kind);
  // The provider's own settings (configure()'s), so the same clients serve both.
  const source = configuredSource();
  const inputs = new Map<number, Props>();
  const prepare = (start: number, n: number) => {
    inputs.clear();
    for (let i = start; i < start + n; i++) inputs.set(i, check(def, inputsOf(t, kind, i)).inputs);
    return start;
  };
  const alone: Round = async (i) => {
    const given = inputs.get(i)!;
    const ctx = makeContext(source);
    await leftoversOf(def, ctx, given);
    await refuseDuplicate(def, ctx, given);
    const { id, outs } = await def.create(makeContext(source), given);
    await def.read(makeContext(source), id, outs);
    await def.delete(makeContext(source), id, outs);
  };
  const sent = await requestsLogged(t, () => alone(prepare(take(1), 1)));
  if (sent.join("\n") !== requests.join("\n")) throw new Error(`${kind}: the definition alone must send the provider's requests\n  ${sent.join("\n  ")}`);
  const start = prepare(take(WARMUP_STEP), WARMUP_STEP);
  for (let i = 0; i < WARMUP_STEP; i++) await alone(start + i);
  const ratios: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    const base = await timed(raw, take(N));
    const own = await timed(alone, prepare(take(N), N));
    ratios.push(own.ms / base.ms);
  }
  console.log(`${kind}: the definition alone (check's record, the create's refusal of a twin where it has one, create, read and delete called directly):`);
  console.log(`  its time/request()'s: ${spread(ratios)}\n`);
}

async function requestsLogged(t: Target, fn: () => Promise<void>): Promise<string[]> {
  await request(`${t.controlUrl}/requests`, { method: "DELETE" }).then((r) => r.body.text());
  await fn();
  const res = await request(`${t.controlUrl}/requests`);
  const log = (await res.body.json()) as { requests: { method: string; path: string }[] };
  // Object names differ between the sides (p-… and r-…, ids): compare the shape of each request.
  return log.requests.map((r) => `${r.method} ${r.path.replace(/\/(p|r)-\d+/, "/{name}").replace(/\/nc-[^/]+/, "/{id}")}`);
}

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
      const { KIND_NAMES } = require(dir + "/kinds.js");
      (async () => { const out = {};
        for (const kind of KIND_NAMES) {
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

/** Child-process side: the emulator, alone in its process. */
async function serve(): Promise<void> {
  const emu = await startEmulator();
  const target: Target = { runUrl: emu.runUrl, secretsUrl: emu.secretsUrl, controlUrl: emu.controlUrl,
    runToken: emu.tokens.runAdmin, secretsToken: emu.tokens.secretsUser, workspaceId: emu.workspaceId };
  process.on("message", (m) => { if (m === "close") void emu.close().then(() => process.exit(0)); });
  process.send?.(target);
}

function startServer(): Promise<{ child: ChildProcess; target: Target }> {
  const child = fork(__filename, ["--serve"], { stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.once("message", (target) => resolve({ child, target: target as Target }));
    child.once("exit", (code) => reject(new Error(`emulator exited with ${code}`)));
  });
}

async function main(): Promise<void> {
  const { child, target } = await startServer();
  process.env.SVC_SECRETS_URL = target.secretsUrl;
  process.env.SVC_SECRETS_TOKEN = target.secretsToken;
  process.env.SVC_RUN_URL = target.runUrl;
  process.env.SVC_RUN_TOKEN = target.runToken;
  // As a provider host does before any call: an empty stack config, the settings in the environment.
  await configure({ config: { get: () => undefined } });
  const agent = new Agent();
  try {
    console.log(`pulumi-svc bench: ${N} objects per kind, check+create+read+delete vs the same requests sent with raw undici request() and dispatch() (emulator in its own process)\n`);
    let offset = 0;
    const plain = (send: Send) => () => send;
    const lean = kinds(target, plain(rawDispatch(agent)));
    const own = kinds(target, plain(clientSend(target)));
    const busied = kinds(target, busySend(target));
    // Measured after every kind's ratios: the failed checks take paths of the provider's code the
    // measured rounds never take, and the JIT would carry that into them.
    const between: { kind: string; client: Round; busy: Round; raw: Round; requests: string[] }[] = [];
    for (const [k, { kind, provider, raw }] of kinds(target, plain(rawRequest(agent))).entries()) {
      if (ONLY && !ONLY.includes(kind)) continue;
      const dispatched = lean[k].raw;
      const client = own[k].raw;
      const busy = busied[k].raw;
      const byProvider = await requestsLogged(target, () => provider(offset++));
      for (const side of [raw, dispatched, client]) {
        const byRaw = await requestsLogged(target, () => side(offset++));
        if (byProvider.join("\n") !== byRaw.join("\n")) {
          throw new Error(`${kind}: the raw side must send the provider's requests\nprovider:\n  ${byProvider.join("\n  ")}\nraw:\n  ${byRaw.join("\n  ")}`);
        }
      }
      // Warm every path (see WARMUP), printing the ratio of each step's wall times as it settles.
      const settling: string[] = [];
      for (let done = 0; done < WARMUP; done += WARMUP_STEP) {
        let providerNs = 0n;
        let rawNs = 0n;
        for (let i = 0; i < Math.min(WARMUP_STEP, WARMUP - done); i++) {
          const t0 = process.hrtime.bigint();
          await provider(offset++);
          const t1 = process.hrtime.bigint();
          await raw(offset++);
          rawNs += process.hrtime.bigint() - t1;
          providerNs += t1 - t0;
          await dispatched(offset++);
        }
        settling.push((Number(providerNs) / Number(rawNs)).toFixed(2));
      }
      // Short interleaved rounds, in a rotating order so no side always follows another (warm JIT,
      // GC timing). Each ratio is taken within one round, where all sides met the same machine
      // load, and the median of the rounds is reported: shared machines drift over seconds.
      type Side = "raw" | "dispatched" | "client" | "provider";
      const sides: [Side, Round][] = [["raw", raw], ["dispatched", dispatched], ["client", client], ["provider", provider]];
      const runs: Record<Side, { ms: number; checkMs: number; cpu: number }[]> = { raw: [], dispatched: [], client: [], provider: [] };
      for (let r = 0; r < REPEATS; r++) {
        for (let k = 0; k < sides.length; k++) {
          const [name, fn] = sides[(k + r) % sides.length];
          runs[name].push(await timed(fn, offset)); offset += N;
        }
      }
      const ms = (name: Side) => median(runs[name].map((x) => x.ms)) / N;
      const cpu = (name: Side) => median(runs[name].map((x) => x.cpu)).toFixed(0).padStart(5);
      // CRUD: create, read and delete, the measure; check+CRUD adds the validation before them.
      const ratios = (base: Side, withCheck: boolean) =>
        runs.provider.map((p, r) => (withCheck ? p.ms : p.ms - p.checkMs) / runs[base][r].ms);
      const checkUs = median(runs.provider.map((x) => x.checkMs)) / N * 1000;
      console.log(`${kind} (${byProvider.length} requests per object, ${REPEATS} rounds of ${N} objects, medians)`);
      console.log(`  warm-up, check+CRUD/request() per ${WARMUP_STEP} objects: ${settling.join(" ")}`);
      console.log(`  raw undici request()      ${ms("raw").toFixed(3)} ms/object   client CPU ${cpu("raw")} µs/object`);
      console.log(`  raw undici dispatch()     ${ms("dispatched").toFixed(3)} ms/object   client CPU ${cpu("dispatched")} µs/object`);
      console.log(`  the package's client      ${ms("client").toFixed(3)} ms/object   client CPU ${cpu("client")} µs/object`);
      console.log(`  provider (check+CRUD)     ${ms("provider").toFixed(3)} ms/object   client CPU ${cpu("provider")} µs/object   (check ${checkUs.toFixed(0)} µs)`);
      console.log(`  ratio provider/request():  CRUD ${spread(ratios("raw", false))}   check+CRUD ${spread(ratios("raw", true))}`);
      console.log(`  ratio provider/dispatch(): CRUD ${spread(ratios("dispatched", false))}   check+CRUD ${spread(ratios("dispatched", true))}`);
      console.log(`  ratio provider/client:     CRUD ${spread(ratios("client", false))}   check+CRUD ${spread(ratios("client", true))}`);
      console.log(`  ratio client/request():    ${spread(runs.client.map((c, r) => c.ms / runs.raw[r].ms))}\n`);
      between.push({ kind, client, busy, raw, requests: byProvider });
    }

    const take = (n: number) => (offset += n) - n;
    for (const b of between) await codeBetween(target, b, take);
    for (const b of between) await definitionAlone(target, b, take);

    console.log("serialized provider (__provider) stored in each resource's state, in bytes:");
    console.log(`  ${"kind".padEnd(44)} ${"this repo".padStart(10)} ${"installed".padStart(10)}`);
    const installed = installedSizes();
    for (const kind of KIND_NAMES) {
      const provider = providerFor(kind);
      const text = (await pulumi.runtime.serializeFunction(() => provider, { allowSecrets: true })).text;
      console.log(`  ${kind.padEnd(44)} ${String(Buffer.byteLength(text)).padStart(10)} ${String(installed[kind]).padStart(10)}`);
    }
  } finally {
    await agent.close();
    await closeAgents();
    child.send("close");
  }
}

if (process.argv[2] === "--serve") void serve();
else main().catch((e) => { console.error(e); process.exit(1); });
