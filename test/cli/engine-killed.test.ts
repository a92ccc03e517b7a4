// The Pulumi CLI killed outright (SIGKILL: a runner past its grace period, the kernel out of
// memory) while our language host runs a program: the host and the program end with it instead of
// living on under init (docs/behaviour.md, "Processes a killed CLI leaves behind").
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { until } from "../integration/runs-support";
import { CliStack, describeCli, stopTree, type CliResult } from "./cli";

interface Proc { ppid: number; state: string; start: string; cmdline: string }

/** A process as /proc shows it; its start time tells it from a later process given the same pid. */
function proc(pid: number): Proc | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (2nd field) may hold spaces: the fields from the 3rd on follow the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
    return { state: fields[0]!, ppid: Number(fields[1]), start: fields[19]!, cmdline };
  } catch {
    return undefined;
  }
}

/** Whether the process seen as `was` still runs (a zombie has ended). */
function running(pid: number, was: Proc): boolean {
  const now = proc(pid);
  return !!now && now.start === was.start && now.state !== "Z";
}

describeCli("the language host when the CLI is killed", () => {
  it("SIGKILL of pulumi alone while a program runs: our host and its program end too", async () => {
    const s = await CliStack.create({ project: "engine-killed", program: path.join(__dirname, "programs/engine-killed/index.js"), host: "ours" });
    const pidFile = path.join(s.dir, "pids.json");
    await s.setConfig({ "engineKilled:pidFile": pidFile });
    const up = s.start(["up", "--yes", "--skip-preview"]);
    let ended: CliResult | undefined;
    void up.done.then((r) => { ended = r; });
    const left: { name: string; pid: number; was: Proc }[] = [];
    try {
      const pids = await until("the program to run", () => {
        if (ended) throw new Error(`pulumi up ended before the program ran (exit ${ended.code})\n${ended.stdout}${ended.stderr}`);
        return fs.existsSync(pidFile) ? (JSON.parse(fs.readFileSync(pidFile, "utf8")) as { program: number; host: number }) : undefined;
      }, 120_000);
      for (const [name, pid] of [["host", pids.host], ["program", pids.program]] as const) {
        const was = proc(pid);
        if (was) left.push({ name, pid, was });
      }
      expect(left.map((p) => p.name)).toEqual(["host", "program"]);
      expect(left[0]!.was.cmdline).toContain("dist/src/cli/langhost.js");
      expect(left[0]!.was.ppid).toBe(up.pid);

      process.kill(up.pid, "SIGKILL");
      expect((await up.done).code).not.toBe(0);
      const still = () => left.filter((p) => running(p.pid, p.was)).map((p) => p.name);
      // A wait for the state: the deadline only ends a hang (the host once ran on for good).
      await until("our host and its program to end", () => still().length === 0 || undefined, 60_000).catch(() => undefined);
      expect(still(), "still running a minute after pulumi was killed").toEqual([]);
    } finally {
      stopTree(up.pid);
      for (const p of left) if (running(p.pid, p.was)) stopTree(p.pid);
      s.remove();
    }
  });
}, "ours");
