import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { describe, expect, test, vi } from "vitest";
import { readStateFile } from "../../src/emulator";
import { STORED } from "../../src/emulator/areas";
import { Store } from "../../src/emulator/persistence/store";
import { svcToken, useStateFile } from "./helpers";
import { call } from "../support/http";

/**
 * Durability without a clock deciding: the window itself (a change is on disk flushMs after it was
 * made) is checked on the Store with fake timers; the CLI tests wait for states (writes
 * acknowledged, a snapshot holding them), never for time to pass. How long the window really is on
 * a machine belongs in a benchmark.
 */
const CLI = join(__dirname, "../../dist/src/emulator/cli.js");

const state = useStateFile("emu-durable-");

interface Cli {
  child: ChildProcess;
  secretsUrl: string;
  token: string;
  exited: Promise<void>;
}

async function startCli(statePath: string, extra: string[] = []): Promise<Cli> {
  const child = spawn(process.execPath, [CLI, "--state", statePath, ...extra], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let out = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      if (out.includes("SVC_SECRETS_TOKEN=") && out.split("\n").length > 4) resolve();
    });
    child.once("exit", (code) => reject(new Error(`emulator CLI exited with ${code}: ${out}`)));
  });
  const value = (name: string) => new RegExp(`export ${name}=(\\S+)`).exec(out)![1];
  return { child, secretsUrl: value("SVC_SECRETS_URL"), token: value("SVC_SECRETS_TOKEN"), exited };
}

const alphabet = (i: number) => `${"abcdefghij"[i % 10]}xyz`;

/** Writes alphabets from `connections` loops until stopped; each acknowledged write is timed. */
function writeLoad(cli: Cli, connections: number) {
  const acked = new Map<string, number>();
  let stop = false;
  let n = 0;
  const loops = Array.from({ length: connections }, async () => {
    while (!stop) {
      const name = `w${n++}`;
      try {
        const res = await call("POST", `${cli.secretsUrl}/transform/alphabet/${name}`, { headers: svcToken(cli.token), body: { alphabet: alphabet(n) } });
        if (res.status === 204) acked.set(name, Date.now());
      } catch {
        return; // the emulator was killed
      }
    }
  });
  return { acked, stop: async () => ((stop = true), await Promise.all(loops)) };
}

/** Waits until `reached()` holds; the 30 s only keeps a broken emulator from hanging the test. */
async function until(what: string, reached: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 30_000; !reached(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
  }
}

function storedAlphabets(path: string): Set<string> {
  const doc = readStateFile(path) as { data: { secrets: { mounts: { transform: { objects: { alphabet?: Record<string, unknown> } } } } } };
  return new Set(Object.keys(doc.data.secrets.mounts.transform.objects.alphabet ?? {}));
}

describe("--state durability", () => {
  test("SIGKILL mid-load: the file loads and every write a snapshot held survives", async () => {
    const cli = await startCli(state.path);
    const load = writeLoad(cli, 8);
    await until("writes were acknowledged", () => load.acked.size >= 50);
    const early = [...load.acked.keys()];
    // A snapshot holds them all without any close, and writes go on: the kill lands mid-load.
    await until("a snapshot held the early writes", () => early.every((name) => storedAlphabets(state.path).has(name)));
    await until("more writes were acknowledged", () => load.acked.size > early.length);
    cli.child.kill("SIGKILL");
    await cli.exited;
    await load.stop();

    const stored = storedAlphabets(state.path);
    expect(early.filter((name) => !stored.has(name))).toEqual([]);

    // And the emulator itself starts on it and serves what it holds.
    const again = await state.start();
    const res = await call("GET", `${again.secretsUrl}/transform/alphabet/${early[0]}`, { headers: svcToken(again.tokens.secretsRoot) });
    expect(res.status).toBe(200);
  });

  test.each(["SIGTERM", "SIGINT"] as const)("%s writes every acknowledged write before exit", async (signal) => {
    // A window far longer than the test: only the signal can have written the file.
    const cli = await startCli(state.path, ["--flush-ms", "600000"]);
    const load = writeLoad(cli, 4);
    await until("writes were acknowledged", () => load.acked.size >= 20);
    await load.stop();
    cli.child.kill(signal);
    await cli.exited;
    const stored = storedAlphabets(state.path);
    expect([...load.acked.keys()].filter((name) => !stored.has(name))).toEqual([]);
  });

  test("a change reaches the file flushMs after it was made, not before, without any close; a burst costs one snapshot", () => {
    // Fake timers drive the store's flush timer: the window is checked to the millisecond, on any machine.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const store = new Store(STORED, state.path, {}, { flushMs: 200 });
    try {
      const alphabets = (store.data.secrets.mounts.transform.objects.alphabet ??= {}) as Record<string, unknown>;
      alphabets.soon = { alphabet: "ab" };
      store.save();
      alphabets.later = { alphabet: "cd" };
      store.save();
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(199);
      expect(storedAlphabets(state.path).has("soon")).toBe(false);
      vi.advanceTimersByTime(1);
      expect(storedAlphabets(state.path)).toEqual(new Set(["soon", "later"]));
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      store.close();
      vi.useRealTimers();
    }
  });
});
