/**
 * `pulumi-svc/testing`: a user's infrastructure test of a Pulumi program, with no Pulumi CLI and no
 * server. `testStack` starts an emulator of both services on a free port, wires the provider's
 * settings to it, and runs the program through the engine double (the real dynamic-provider host,
 * driven as the engine drives it) on a state of its own in a temporary folder.
 *
 * Why an inline program runs in this process: a test's program is a closure over the test's own
 * variables and imports, which cannot be handed to another process as written (serializing it
 * would fail on most of what a test captures). The SDK keeps its per-deployment settings in an
 * async context (`withLocalStorage`, as the Automation API's inline programs use), so each
 * operation gets its own mocks and config and several stacks run at once in one test file. A
 * program folder (`dir`) runs in a child process instead, evaluated anew each time, as the CLI does.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator, type EmulatorOptions } from "../emulator";
import { runProgram } from "../engine/program";
import { HostPool } from "../engine/reuse";
import { runOperation } from "../engine/runner";
import { loadState, passphrase } from "../engine/state";
import type { Operation, PolicyPackOption, Result, RunOptions, Step } from "../engine/types";
import { containsSecret, plain } from "../engine/values";
import { inContext } from "./context";
import { control } from "./control";
import { failureLine } from "./failure";
import { programEntry } from "./folder";
import { readSeed, seedEmulator } from "./seed";
import type { ChangeSummary, Outcome, OutputValue, PreviewResult, StackStep, UpResult } from "./types";
import { CliEngine } from "./cli";

export type { ChangeSummary, OutputValue, PolicyRemediation, PolicyViolation, PreviewResult, StackStep, UpResult } from "./types";

/** A stack config value: plain text, or a secret (`{ secret: "t0ken" }` or the Automation API's `{ value, secret: true }`). */
export type ConfigValue = string | { secret: string } | { value: string; secret?: boolean };

export interface TestStackOptions {
  /**
   * The program, run in this process: it declares resources and may return the stack outputs
   * (an object or a promise of one), as an Automation API inline program does. Give this or `dir`.
   */
  program?: () => unknown;
  /**
   * A program folder (its package.json `main`, else `index.js`, else `index.ts`, compiled with the
   * `typescript` package found from the folder), run in a child process. Give this or `program`.
   */
  dir?: string;
  /** Stack config. A key without a namespace gets the project's (`hookToken` → `<project>:hookToken`). */
  config?: Record<string, ConfigValue>;
  /** Project name; default `test`. */
  project?: string;
  /** Stack name; default `test`. */
  stack?: string;
  /**
   * An emulator to use instead of starting one (shared by several stacks; `close` leaves it
   * running). Its objects are the tests' to reset (`POST /_emulator/reset`).
   */
  emulator?: Emulator;
  /** Options of the emulator this stack starts (clusters, clock, tokens). */
  emulatorOptions?: EmulatorOptions;
  /**
   * A file `pulumi-svc-import --seed FILE` wrote: its objects are put into the emulator (the one
   * given as `emulator` too) under their own ids before the stack is returned, so an imported
   * program finds what its `adopt` and `adoptId` take over, as on the server it was read from.
   */
  seed?: string;
  /**
   * Where the provider host resolves `pulumi-svc` from (the folder whose node_modules holds it);
   * default: `dir`, else the current directory.
   */
  cwd?: string;
  /**
   * `"double"` (the default): the engine double, no CLI. `"cli"`: the same calls through the real
   * Pulumi CLI by the Automation API (an inline `program` only), on a file backend in the stack's
   * folder; the CLI is `pulumi` in `cli`, else the one on PATH.
   */
  engine?: "double" | "cli";
  /** With `engine: "cli"`, the bin folder of a Pulumi installation (holding `pulumi`). */
  cli?: string;
  /**
   * Policy pack folders that `preview` and `up` run, as `pulumi preview --policy-pack DIR` does:
   * each pack runs from its folder (its PulumiPolicy.yaml, package.json and node_modules), is
   * configured and called as the engine calls it, and its violations come back in
   * `policyViolations`; a mandatory one fails the operation.
   */
  policyPacks?: string[];
  /** Each pack's config file, by place (`--policy-pack-config`): `policyPackConfigs[i]` configures `policyPacks[i]`. */
  policyPackConfigs?: string[];
}

/** A failed operation; its message is the one line a user sees, `result` holds the steps up to the failure. */
export class StackError extends Error {
  constructor(
    message: string,
    /** The steps up to the failure, the failed one with its `error`. */
    readonly result: PreviewResult,
  ) {
    super(message);
    this.name = "StackError";
  }
}

/** What `up` and `preview` take, as the CLI's flags of the same names. */
export interface OperationOptions {
  /**
   * Resources to replace though nothing changed, by name (as the program gives it) or URN, as
   * `pulumi up --replace <urn>` does: the engine asks the provider for no diff, and deletes the old
   * object first unless the resource's `deleteBeforeReplace` option is false.
   */
  replace?: string[];
}

/** A stack of a program on a state of its own, deployed against an emulator. */
export interface TestStack {
  /** The emulator the stack's provider talks to: URLs, tokens and `controlUrl` (faults, clock, throttle). */
  readonly emulator: Emulator;
  /** The folder holding the stack's state; removed by `close`. */
  readonly dir: string;
  /** Creates, updates or replaces what the program declares; deletes what it no longer does. */
  up(options?: OperationOptions): Promise<UpResult>;
  /** What `up` would do, changing nothing. */
  preview(options?: OperationOptions): Promise<PreviewResult>;
  /** Reads every resource back; drops what is gone and records what changed outside the program. */
  refresh(): Promise<PreviewResult>;
  /** Deletes every resource of the stack. */
  destroy(): Promise<PreviewResult>;
  /** The program the next operation runs (an edit of the program between two `up`s). */
  setProgram(program: (() => unknown) | { dir: string }): void;
  /** Stack outputs as the state holds them after the last `up`. */
  outputs(): Record<string, OutputValue>;
  /** A request to the run service (admin token) or the secrets service (root token): what the server holds. */
  request(service: "run" | "secrets", method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** A control request to the emulator (`/faults`, `/clock/advance`, `/throttle`, `/reset`, ...); a refusal throws. */
  control(method: string, path: string, body?: unknown): Promise<any>;
  /** Stops the emulator it started and removes the state folder. */
  close(): Promise<void>;
}

type Program = { inline: () => unknown } | { dir: string };

/**
 * The provider hosts this process's stacks share: each operation of an inline program takes one
 * an earlier operation left, made ready to serve it as a fresh one would (src/engine/reuse.ts).
 */
const hosts = new HostPool();

/** Starts an emulator (unless given one) and returns a stack on a fresh temporary state. */
export async function testStack(options: TestStackOptions): Promise<TestStack> {
  const program = programOf(options);
  if (options.engine === "cli" && "dir" in program) throw new Error('testStack: engine "cli" runs an inline program; give program, not dir');
  const seed = options.seed === undefined ? undefined : readSeed(options.seed);
  const emulator = options.emulator ?? (await startEmulator(options.emulatorOptions));
  if (seed) {
    try {
      await seedEmulator(emulator, seed, options.seed!);
    } catch (e) {
      if (!options.emulator) await emulator.close();
      throw e;
    }
  }
  return new Stack(options, program, emulator, !options.emulator);
}

function programOf(o: { program?: () => unknown; dir?: string }): Program {
  if (o.program && o.dir) throw new Error("testStack: give program or dir, not both");
  if (o.program) return { inline: o.program };
  if (o.dir) return { dir: path.resolve(o.dir) };
  throw new Error("testStack: give the program (a function) or dir (a program folder)");
}

class Stack implements TestStack {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-svc-test-"));
  private readonly state = path.join(this.dir, "stack.json");
  private readonly project: string;
  private readonly stack: string;
  // One operation at a time, as the engine holds a stack's lock.
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  /** With engine "cli"; the double keeps no engine object. */
  private readonly cli?: CliEngine;
  private cliOutputs: Record<string, OutputValue> = {};

  constructor(private readonly options: TestStackOptions, private program: Program, readonly emulator: Emulator, private readonly owned: boolean) {
    this.project = options.project ?? "test";
    this.stack = options.stack ?? "test";
    if (options.engine === "cli" && "inline" in program) {
      this.cli = new CliEngine({ dir: this.dir, project: this.project, stack: this.stack, cwd: this.cwd(), program: program.inline, ...(options.cli ? { cli: options.cli } : {}), policyPacks: packsOf(options) });
    }
  }

  private cwd(): string {
    return path.resolve(this.options.cwd ?? ("dir" in this.program ? this.program.dir : process.cwd()));
  }

  async up(options?: OperationOptions): Promise<UpResult> {
    const r = await this.run("up", options);
    return { ...r, outputs: this.outputs() };
  }

  preview(options?: OperationOptions): Promise<PreviewResult> {
    return this.run("preview", options);
  }

  refresh(): Promise<PreviewResult> {
    return this.run("refresh");
  }

  destroy(): Promise<PreviewResult> {
    return this.run("destroy");
  }

  setProgram(program: (() => unknown) | { dir: string }): void {
    this.program = programOf(typeof program === "function" ? { program } : program);
    if (this.cli && "inline" in this.program) this.cli.setProgram(this.program.inline);
    else if (this.cli) throw new Error('testStack: engine "cli" runs an inline program; give a function, not { dir }');
  }

  outputs(): Record<string, OutputValue> {
    if (this.cli) return this.cliOutputs;
    if (!fs.existsSync(this.state)) return {};
    const { state } = loadState(this.state, passphrase());
    return Object.fromEntries(Object.entries(state.outputs).map(([k, v]) => [k, { value: plain(v), secret: containsSecret(v) }]));
  }

  async request(service: "run" | "secrets", method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
    const run = service === "run";
    const headers: Record<string, string> = run ? { authorization: `Bearer ${this.emulator.tokens.runAdmin}` } : { "x-svc-token": this.emulator.tokens.secretsRoot };
    if (body !== undefined) headers["content-type"] = run ? "application/vnd.api+json" : "application/json";
    const res = await fetch(`${run ? this.emulator.runUrl : this.emulator.secretsUrl}${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
  }

  control(method: string, p: string, body?: unknown): Promise<any> {
    return control(this.emulator, method, p, body);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    fs.rmSync(this.dir, { recursive: true, force: true });
    if (this.owned) await this.emulator.close();
  }

  private run(operation: Operation, options: OperationOptions = {}): Promise<PreviewResult> {
    if (this.closed) return Promise.reject(new Error(`testStack: ${operation} after close`));
    const next = this.queue.then(() => this.once(operation, options));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async once(operation: Operation, options: OperationOptions): Promise<PreviewResult> {
    const { plain: config, secret: secretConfig } = this.config();
    const replace = await this.urns(options.replace ?? []);
    const outcome = this.cli ? await this.cli.run(operation, config, secretConfig, replace)
      : outcomeOf(await this.execute(operation, config, secretConfig, replace));
    const summary: PreviewResult = { changes: summarize(outcome.steps), steps: outcome.steps, diagnostics: outcome.diagnostics, policyViolations: outcome.policyViolations ?? [], policyRemediations: outcome.policyRemediations ?? [] };
    if (outcome.error !== undefined) throw new StackError(outcome.error, summary);
    if (operation === "up" && outcome.outputs) this.cliOutputs = outcome.outputs;
    if (operation === "destroy") this.cliOutputs = {};
    return summary;
  }

  /** The URNs of the stack's resources that `names` name (a name or a URN each). */
  private async urns(names: string[]): Promise<string[]> {
    if (names.length === 0) return [];
    const held = this.cli ? await this.cli.urns() : loadState(this.state, passphrase()).state.resources.map((r) => r.urn);
    return names.map((n) => {
      const urn = held.find((u) => u === n || u.endsWith(`::${n}`));
      if (urn === undefined) throw new Error(`testStack: replace: the stack holds no resource named ${n}`);
      return urn;
    });
  }

  private execute(operation: Operation, config: Record<string, string>, secretConfig: Record<string, string>, replace: string[]): Promise<Result> {
    const program = this.program;
    const cwd = this.cwd();
    // As the Automation API runs them: no preview before an up or a destroy.
    const options: RunOptions = { operation, state: this.state, stack: this.stack, project: this.project, cwd, config, secretConfig, skipPreview: true, replace, policyPacks: packsOf(this.options) };
    if ("dir" in program) return runProgram({ ...options, program: programEntry(program.dir) });
    return inContext(cwd, { config, secretConfig }, program.inline, (inline) => runOperation(options, [], inline, hosts));
  }

  /** The user's config, namespaced, with the provider's settings for the emulator unless the user set them. */
  private config(): { plain: Record<string, string>; secret: Record<string, string> } {
    const emu = this.emulator;
    const out = { plain: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl } as Record<string, string>, secret: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsRoot } as Record<string, string> };
    for (const [key, v] of Object.entries(this.options.config ?? {})) {
      const k = key.includes(":") ? key : `${this.project}:${key}`;
      delete out.plain[k];
      delete out.secret[k];
      if (typeof v === "string") out.plain[k] = v;
      else if ("value" in v && !v.secret) out.plain[k] = v.value;
      else out.secret[k] = "value" in v ? v.value : v.secret;
    }
    return out;
  }
}

function summarize(steps: StackStep[]): ChangeSummary {
  const out: ChangeSummary = {};
  for (const s of steps) out[s.op] = (out[s.op] ?? 0) + 1;
  return out;
}

/** The packs of the options, each with its config file, as folders from the current directory. */
function packsOf(o: TestStackOptions): PolicyPackOption[] {
  const configs = o.policyPackConfigs ?? [];
  if (configs.length > (o.policyPacks?.length ?? 0)) throw new Error("testStack: policyPackConfigs[i] configures policyPacks[i]: more configs than packs");
  return (o.policyPacks ?? []).map((dir, i) => ({ dir: path.resolve(dir), ...(configs[i] ? { config: path.resolve(configs[i]!) } : {}) }));
}

function outcomeOf(r: Result): Outcome {
  const outcome: Outcome = { steps: r.steps.map(stepOf), diagnostics: r.diagnostics, policyViolations: r.policyViolations ?? [], policyRemediations: r.policyRemediations ?? [] };
  if (r.error) outcome.error = failureLine(r);
  return outcome;
}

function stepOf(s: Step): StackStep {
  const out: StackStep = {
    op: s.op, name: s.name, type: s.type, urn: s.urn,
    changed: s.changedKeys ?? [], replaceReasons: s.replaceKeys ?? [], deleteBeforeReplace: s.deleteBeforeReplace ?? false,
  };
  if (s.error !== undefined) out.error = s.error;
  return out;
}

export type { Emulator, EmulatorOptions } from "../emulator";
