// Shared setup for the engine-double program tests.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { runProgram } from "../../src/engine/program";
import type { Result } from "../../src/engine/types";

export const root = path.resolve(__dirname, "../..");
export const fixtures = path.join(__dirname, "fixtures");
export const PASSWORD = "hunter2-very-secret";

/**
 * runProgram spawns dist/src/engine/cli.js: compile just src/engine there when it is missing or
 * older than its sources. `npm test` has built everything already, and recompiling then would
 * rewrite files that other test files' child processes may be loading at that moment.
 */
export function buildEngine(): void {
  const cli = path.join(root, "dist/src/engine/cli.js");
  const srcDir = path.join(root, "src/engine");
  const built = fs.existsSync(cli) ? fs.statSync(cli).mtimeMs : 0;
  const stale = fs.readdirSync(srcDir).some((f) => f.endsWith(".ts") && fs.statSync(path.join(srcDir, f)).mtimeMs > built);
  if (!stale) return;
  execFileSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", path.join(__dirname, "tsconfig.build.json")], {
    cwd: root,
    stdio: "pipe",
  });
}

/** A fresh stack: its own provider store directory and state file. */
export class Stack {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), "engine-program-"));
  readonly state = path.join(this.dir, "stack.json");

  run(operation: "preview" | "up" | "refresh" | "destroy", step = "1", program = "program.js", extra: { skipPreview?: boolean } = {}): Promise<Result> {
    return runProgram({
      ...extra,
      operation,
      program: path.join(fixtures, program),
      state: this.state,
      stack: "dev",
      project: "proj",
      cwd: fixtures,
      config: { "fixture:dir": this.dir, "fixture:step": step, "fixture:greeting": "hi" },
      secretConfig: { "fixture:password": PASSWORD },
      timeoutMs: 60_000,
    });
  }

  /** Provider calls logged by the fixture (create/read/update/delete <id>). */
  calls(): string[] {
    const file = path.join(this.dir, "calls.log");
    return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : [];
  }

  /** Calls made by the block, not before it. */
  async callsDuring(f: () => Promise<unknown>): Promise<string[]> {
    const before = this.calls().length;
    await f();
    return this.calls().slice(before);
  }

  store(): Record<string, Record<string, unknown>> {
    const file = path.join(this.dir, "store.json");
    return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  }

  editStore(edit: (data: Record<string, Record<string, unknown>>) => void): void {
    const data = this.store();
    edit(data);
    fs.writeFileSync(path.join(this.dir, "store.json"), JSON.stringify(data));
  }

  /** What the fixture provider's configure(req) saw, one entry per host process. */
  configureLog(): unknown[] {
    return fs.readFileSync(path.join(this.dir, "configure.log"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  }

  stateText(): string {
    return fs.readFileSync(this.state, "utf8");
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

export const byName = (r: Result, name: string) => r.steps.find((s) => s.name === name);
