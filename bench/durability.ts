/**
 * `npm run bench` (durability part): how long an acknowledged write takes to reach the `--state`
 * file, as a ratio to the window it is promised within (`flushMs`), for a few windows. The tests
 * check the window itself with fake timers and never time it; this says what it costs on this
 * machine (the snapshot's sealing and rename on top of the timer). The file is watched by its
 * modification time every millisecond, from this process, which also runs the emulator: the
 * figures include that contention, and 1 ms of resolution.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { readStateFile, startEmulator } from "../src/emulator";

const WRITES = Number(process.env.BENCH_WRITES ?? 10);
const WINDOWS = [50, 200, 1000];

const mtime = (path: string) => statSync(path).mtimeMs;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function holds(path: string, name: string): boolean {
  const doc = readStateFile(path) as { data: { secrets: { mounts: { transform: { objects: { alphabet?: Record<string, unknown> } } } } } };
  return name in (doc.data.secrets.mounts.transform.objects.alphabet ?? {});
}

/** Milliseconds from each write's acknowledgement until the file holds it. */
async function measure(flushMs: number): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), "bench-durability-"));
  const path = join(dir, "state.json");
  const emu = await startEmulator({ statePath: path, flushMs });
  const out: number[] = [];
  try {
    for (let i = 0; i < WRITES; i++) {
      const name = `w${i}`;
      const before = mtime(path);
      const res = await request(`${emu.secretsUrl}/transform/alphabet/${name}`, {
        method: "POST",
        headers: { "x-svc-token": emu.tokens.secretsRoot, "content-type": "application/json" },
        body: JSON.stringify({ alphabet: "ab" }),
      });
      await res.body.dump();
      const acked = performance.now();
      while (mtime(path) === before || !holds(path, name)) await new Promise((r) => setTimeout(r, 1));
      out.push(performance.now() - acked);
    }
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

async function main(): Promise<void> {
  console.log(`emulator --state durability: ms from a write's acknowledgement until the file holds it (${WRITES} writes, one at a time)`);
  console.log(`  ${"flushMs".padEnd(8)} ${"median".padStart(8)} ${"max".padStart(8)} ${"median/flushMs".padStart(15)}`);
  for (const flushMs of WINDOWS) {
    const ms = await measure(flushMs);
    const m = median(ms);
    console.log(`  ${String(flushMs).padEnd(8)} ${m.toFixed(1).padStart(8)} ${Math.max(...ms).toFixed(1).padStart(8)} ${(m / flushMs).toFixed(2).padStart(15)}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
