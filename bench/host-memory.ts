/**
 * Peak resident memory of the dynamic-provider hosts a deployment starts: the `node` processes
 * running `@pulumi/pulumi/cmd/dynamic-provider` below this process (bench → CLI → plugin → node).
 * Each is found by walking /proc's parent links and sampled a few times a second; its VmHWM (the
 * kernel's high-water mark of its resident set) only grows, so the last sample before it exits is
 * its peak, short of what it adds in its last moments. Linux only: elsewhere nothing is found.
 */
import * as fs from "node:fs";

const HOST_MARK = "cmd/dynamic-provider";

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined; // the process ended between listing and reading
  }
}

/** Every process's parent, from /proc/<pid>/stat (the comm field may hold spaces and parentheses). */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  let pids: string[];
  try {
    pids = fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return out;
  }
  for (const pid of pids) {
    const stat = read(`/proc/${pid}/stat`);
    if (!stat) continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.set(Number(pid), Number(fields[1]));
  }
  return out;
}

function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents()) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

function highWaterKb(pid: number): number | undefined {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(read(`/proc/${pid}/status`) ?? "");
  return match ? Number(match[1]) : undefined;
}

export const hostMemorySupported = (): boolean => fs.existsSync("/proc/self/status");

/** Samples the provider hosts below `root` until stopped; the peaks come back in bytes, one per host. */
export function watchHosts(root = process.pid, intervalMs = 200): { stop(): number[] } {
  const peaks = new Map<number, number>();
  const sample = () => {
    for (const pid of descendants(root)) {
      // argv[1] is the host's script; the plugin's wrapper also runs a `node -e` naming it, briefly.
      if (!peaks.has(pid) && !((read(`/proc/${pid}/cmdline`) ?? "").split("\0")[1] ?? "").includes(HOST_MARK)) continue;
      const kb = highWaterKb(pid);
      if (kb !== undefined) peaks.set(pid, Math.max(peaks.get(pid) ?? 0, kb));
    }
  };
  const timer = setInterval(sample, intervalMs);
  sample();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return [...peaks.values()].map((kb) => kb * 1024);
    },
  };
}

export const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
export const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
