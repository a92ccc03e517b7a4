// Parent side of the program runner: each operation runs in a fresh `node cli.js` process,
// because setMocks state is global per process and the program must be evaluated anew.
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { COMPILED_ENV } from "./typescript";
import { Result, RunOptions } from "./types";

export type { Operation, Result, RunOptions, Step, StepOp } from "./types";
export { UNKNOWN } from "./values";

const running = new Set<ChildProcess>();
// Runs live in their own process groups, so a signal to ours would not reach them.
process.once("exit", () => killAll());

// What this process's runs transpile, kept for the next ones (src/engine/typescript.ts); removed at exit.
let compiled: string | undefined;
/** @internal The folder (made on first use) where this process's runs keep what they transpiled. */
export function compiledFolder(): string {
  if (compiled === undefined) {
    compiled = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-svc-compiled-"));
    const folder = compiled;
    process.once("exit", () => fs.rmSync(folder, { recursive: true, force: true }));
  }
  return compiled;
}

/**
 * The compiled cli.js beside this file; when this file runs from TypeScript source (vitest),
 * the one tsc put under dist/ (rootDir ".", outDir "dist").
 */
export function cliPath(): string {
  if (__filename.endsWith(".js")) return path.join(__dirname, "cli.js");
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, "package.json"))) {
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return path.join(dir, "dist", path.relative(dir, __dirname), "cli.js");
}

export function cliArgs(o: RunOptions): string[] {
  const args = [o.operation, "--state", o.state, "--cwd", o.cwd, "--json"];
  if (o.program) args.push("--program", o.program);
  if (o.stack) args.push("--stack", o.stack);
  if (o.project) args.push("--project", o.project);
  if (o.skipPreview) args.push("--skip-preview");
  for (const urn of o.replace ?? []) args.push("--replace", urn);
  for (const [k, v] of Object.entries(o.config ?? {})) args.push("--config", `${k}=${v}`);
  for (const [k, v] of Object.entries(o.secretConfig ?? {})) args.push("--secret-config", `${k}=${v}`);
  for (const p of o.policyPacks ?? []) args.push("--policy-pack", p.dir);
  for (const p of o.policyPacks ?? []) args.push("--policy-pack-config", p.config ?? "");
  return args;
}

/** Runs preview/up/refresh/destroy; resolves with the Result even when the deployment failed. */
export function runProgram(options: RunOptions): Promise<Result> {
  return new Promise((resolve, reject) => {
    // Its own process group, so a timeout can end the runner and its provider host together.
    const child = spawn(process.execPath, [cliPath(), ...cliArgs(options)], {
      cwd: options.cwd,
      env: { ...process.env, [COMPILED_ENV]: compiledFolder(), ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    running.add(child);
    let out = "";
    let err = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    const timer = options.timeoutMs ? setTimeout(() => killGroup(child), options.timeoutMs) : undefined;
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      running.delete(child);
      try {
        resolve(JSON.parse(out) as Result);
      } catch {
        const why = signal ? `was killed (${signal})` : `exited with code ${code}`;
        reject(new Error(`engine double ${options.operation} ${why} without a result\n${err}${out}`));
      }
    });
  });
}

/** Ends every run still going (for test teardown). */
export function killAll(): void {
  for (const child of running) killGroup(child);
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}
