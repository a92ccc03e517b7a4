/**
 * `npm run bench` (emulator part): the emulator's request path and its `--state` persistence, each
 * as a ratio against a baseline measured in the same run, never as a threshold.
 *  1. GETs/s of one stored object vs a bare node:http server answering the same body, at 1/16/64
 *     connections (errors counted and reported).
 *  2. Writes/s with `--state` vs in memory, with 1,000 and 10,000 objects already stored.
 * Every server runs in its own child process; this process only generates the load.
 */
import { fork, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "undici";
import { startEmulator } from "../src/emulator";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const OBJECT = { alphabet: "0123456789abcdef" };

interface Target {
  url: string;
  /** Path of the object GETs read; writes go to siblings of it. */
  path: string;
  headers: Record<string, string>;
}

/** Child-process side: start one server and report where it is. */
async function serve(kind: string, arg: string | undefined): Promise<void> {
  let target: Target;
  if (kind === "bare") {
    // Same body and headers the emulator sends for the object, so only the request path differs.
    const body = JSON.stringify({ request_id: "00000000-0000-0000-0000-000000000000", lease_id: "", renewable: false, lease_duration: 0, data: OBJECT, wrap_info: null, warnings: null, auth: null });
    const server = http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    target = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, path: "/v1/transform/alphabet/read", headers: {} };
  } else {
    const emu = await startEmulator({ statePath: arg });
    target = { url: emu.url, path: "/v1/transform/alphabet/read", headers: { "x-svc-token": emu.tokens.secretsRoot } };
    process.on("message", (m) => {
      if (m === "close") void emu.close().then(() => process.exit(0));
    });
  }
  // The parent asks for this process's CPU time around each measurement (see cpuPerRequest).
  process.on("message", (m) => {
    if (m === "cpu") process.send?.({ cpu: process.cpuUsage() });
  });
  process.send?.(target);
}

/** CPU µs the server process spent, read before and after a measurement. */
function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (typeof m === "object" && m !== null && "cpu" in m) {
        child.off("message", on);
        const { user, system } = (m as { cpu: NodeJS.CpuUsage }).cpu;
        resolve(user + system);
      }
    };
    child.on("message", on);
    child.send("cpu");
  });
}

function start(kind: string, arg?: string): Promise<{ child: ChildProcess; target: Target }> {
  const child = fork(__filename, ["--serve", kind, ...(arg ? [arg] : [])], { stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.once("message", (target) => resolve({ child, target: target as Target }));
    child.once("exit", (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.connected) child.send("close");
  setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
  child.kill("SIGTERM");
  await exited;
}

interface Load {
  ok: number;
  errors: number;
  perSecond: number;
}

/** `connections` loops each sending one request after another for `seconds`. */
async function load(pool: Pool, connections: number, seconds: number, request: (i: number) => Parameters<Pool["request"]>[0]): Promise<Load> {
  let ok = 0;
  let errors = 0;
  let n = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        try {
          const res = await pool.request(request(n++));
          await res.body.dump();
          if (res.statusCode < 300) ok++;
          else errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { ok, errors, perSecond: ok / elapsed };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function put(pool: Pool, target: Target, name: string): Promise<void> {
  const res = await pool.request({ method: "POST", path: target.path.replace(/read$/, name), headers: { ...target.headers, "content-type": "application/json" }, body: JSON.stringify(OBJECT) });
  await res.body.dump();
  if (res.statusCode !== 204) throw new Error(`write ${name}: HTTP ${res.statusCode}`);
}

async function fill(pool: Pool, target: Target, count: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < count) await put(pool, target, `fill-${next++}`);
  }));
}

async function requestPath(): Promise<void> {
  console.log(`emulator request path: GETs/s of one object vs a bare node:http server (${SECONDS} s per measurement, median of ${ROUNDS})`);
  console.log(`  ${"connections".padEnd(12)} ${"bare GET/s".padStart(11)} ${"emulator".padStart(11)} ${"ratio".padStart(6)} ${"errors".padStart(7)}   server CPU µs/GET bare, emulator, ratio`);
  const bare = await start("bare");
  const emu = await start("emulator");
  try {
    const pools = { bare: new Pool(bare.target.url, { connections: 64 }), emu: new Pool(emu.target.url, { connections: 64 }) };
    await put(pools.emu, emu.target, "read");
    for (const side of ["bare", "emu"] as const) {
      const { target } = side === "bare" ? bare : emu;
      await load(pools[side], 16, 0.5, () => ({ method: "GET", path: target.path, headers: target.headers }));
    }
    for (const connections of [1, 16, 64]) {
      const rates = { bare: [] as number[], emu: [] as number[] };
      const cpu = { bare: [] as number[], emu: [] as number[] };
      let errors = 0;
      for (let r = 0; r < ROUNDS; r++) {
        // Interleaved so neither side profits from running second.
        for (const side of ["bare", "emu"] as const) {
          const { target, child } = side === "bare" ? bare : emu;
          const before = await cpuOf(child);
          const result = await load(pools[side], connections, SECONDS, () => ({ method: "GET", path: target.path, headers: target.headers }));
          cpu[side].push(((await cpuOf(child)) - before) / Math.max(1, result.ok + result.errors));
          rates[side].push(result.perSecond);
          errors += result.errors;
        }
      }
      const b = median(rates.bare);
      const e = median(rates.emu);
      const cb = median(cpu.bare);
      const ce = median(cpu.emu);
      console.log(
        `  ${String(connections).padEnd(12)} ${b.toFixed(0).padStart(11)} ${e.toFixed(0).padStart(11)} ${(e / b).toFixed(2).padStart(6)} ${String(errors).padStart(7)}   ${cb.toFixed(0).padStart(6)} ${ce.toFixed(0).padStart(6)} ${(ce / cb).toFixed(2).padStart(6)}`,
      );
    }
    await Promise.all([pools.bare.close(), pools.emu.close()]);
  } finally {
    await Promise.all([stop(bare.child), stop(emu.child)]);
  }
}

async function persistence(): Promise<void> {
  console.log(`\nemulator --state: writes/s with N objects stored, vs the in-memory emulator (16 connections, ${SECONDS} s, median of ${ROUNDS})`);
  console.log(`  ${"objects".padEnd(8)} ${"memory w/s".padStart(11)} ${"--state w/s".padStart(12)} ${"ratio".padStart(6)} ${"errors".padStart(7)}`);
  const dir = mkdtempSync(join(tmpdir(), "bench-state-"));
  try {
    for (const count of [1_000, 10_000]) {
      const memory = await start("emulator");
      const stored = await start("emulator", join(dir, `state-${count}.json`));
      try {
        const pools = { memory: new Pool(memory.target.url, { connections: 16 }), stored: new Pool(stored.target.url, { connections: 16 }) };
        await Promise.all([fill(pools.memory, memory.target, count), fill(pools.stored, stored.target, count)]);
        const rates = { memory: [] as number[], stored: [] as number[] };
        let errors = 0;
        for (let r = 0; r < ROUNDS; r++) {
          for (const side of ["memory", "stored"] as const) {
            const { target } = side === "memory" ? memory : stored;
            // Overwrites of stored objects, so the object count stays at N while measuring.
            const path = (i: number) => target.path.replace(/read$/, `fill-${i % count}`);
            // A different alphabet each time, so every write really changes the stored document.
            const body = (i: number) => JSON.stringify({ alphabet: OBJECT.alphabet.slice(i % 16) + OBJECT.alphabet.slice(0, i % 16) });
            const result = await load(pools[side], 16, SECONDS, (i) => ({ method: "POST", path: path(i), headers: { ...target.headers, "content-type": "application/json" }, body: body(i) }));
            rates[side].push(result.perSecond);
            errors += result.errors;
          }
        }
        const m = median(rates.memory);
        const s = median(rates.stored);
        console.log(`  ${String(count).padEnd(8)} ${m.toFixed(0).padStart(11)} ${s.toFixed(0).padStart(12)} ${(m / s).toFixed(2).padStart(6)}x ${String(errors).padStart(6)}`);
        await Promise.all([pools.memory.close(), pools.stored.close()]);
      } finally {
        await Promise.all([stop(memory.child), stop(stored.child)]);
      }
    }
    console.log("  (ratio = time per write with --state / in memory; 1.00x means persistence costs nothing measurable)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const at = process.argv.indexOf("--serve");
  if (at >= 0) return serve(process.argv[at + 1], process.argv[at + 2]);
  const only = process.argv[2];
  if (only !== "persistence") await requestPath();
  if (only !== "request-path") await persistence();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
