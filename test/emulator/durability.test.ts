import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { DEFAULT_FLUSH_MS, readStateFile } from "../../src/emulator";
import { call, svcToken, useStateFile } from "./helpers";

/**
 * The documented window: a write is on disk at most flushMs after it was answered, plus the time
 * to write one snapshot. The slack covers that write on a loaded CI machine.
 */
const SNAPSHOT_SLACK_MS = 300;
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

function storedAlphabets(path: string): Set<string> {
  const doc = readStateFile(path) as { data: { secrets: { mounts: { transform: { objects: { alphabet?: Record<string, unknown> } } } } } };
  return new Set(Object.keys(doc.data.secrets.mounts.transform.objects.alphabet ?? {}));
}

describe("--state durability", () => {
  test("SIGKILL mid-load: the file loads and nothing older than the durability window is lost", async () => {
    const cli = await startCli(state.path);
    const load = writeLoad(cli, 8);
    await new Promise((r) => setTimeout(r, 2 * DEFAULT_FLUSH_MS + 700));
    const killedAt = Date.now();
    cli.child.kill("SIGKILL");
    await cli.exited;
    await load.stop();

    const stored = storedAlphabets(state.path);
    const cutoff = killedAt - DEFAULT_FLUSH_MS - SNAPSHOT_SLACK_MS;
    const mustSurvive = [...load.acked].filter(([, at]) => at <= cutoff).map(([name]) => name);
    expect(mustSurvive.length).toBeGreaterThan(0);
    expect(mustSurvive.filter((name) => !stored.has(name))).toEqual([]);

    // And the emulator itself starts on it and serves what it holds.
    const again = await state.start();
    const name = mustSurvive[0];
    const res = await call("GET", `${again.secretsUrl}/transform/alphabet/${name}`, { headers: svcToken(again.tokens.secretsRoot) });
    expect(res.status).toBe(200);
  });

  test.each(["SIGTERM", "SIGINT"] as const)("%s writes every acknowledged write before exit", async (signal) => {
    // A window far longer than the test: only the signal can have written the file.
    const cli = await startCli(state.path, ["--flush-ms", "600000"]);
    const load = writeLoad(cli, 4);
    await new Promise((r) => setTimeout(r, 400));
    await load.stop();
    cli.child.kill(signal);
    await cli.exited;
    expect(load.acked.size).toBeGreaterThan(0);
    const stored = storedAlphabets(state.path);
    expect([...load.acked.keys()].filter((name) => !stored.has(name))).toEqual([]);
  });

  test("a write reaches the file within the window without any close", async () => {
    const emu = await state.start({ flushMs: 200 });
    await call("POST", `${emu.secretsUrl}/transform/alphabet/soon`, { headers: svcToken(emu.tokens.secretsRoot), body: { alphabet: "ab" } });
    expect(storedAlphabets(state.path).has("soon")).toBe(false);
    await new Promise((r) => setTimeout(r, 200 + SNAPSHOT_SLACK_MS));
    expect(storedAlphabets(state.path).has("soon")).toBe(true);
  });
});
