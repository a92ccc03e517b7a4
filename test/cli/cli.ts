// The real Pulumi CLI for the tests: where it is, one stack per temporary folder on a local file
// backend, fully offline. Commands run asynchronously, because the emulator lives in this process.
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, it } from "vitest";
import type { Emulator } from "../../src/emulator";
import { cacheBase } from "../support/cache";
import { root } from "../support/dist";
import { kmsSecretsProvider } from "../support/kms";
import { requireReal, requiredButMissing } from "../support/real";
import { useEmulator } from "../support/emulator";

export const CLI_VERSION = "v3.259.0";

/** The passphrase secrets provider's passphrase of every test stack: it must never reach a backend. */
export const CLI_PASSPHRASE = "pulumi-svc-cli-tests";

function onPath(cmd: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, cmd))) return dir;
  }
  return undefined;
}

/** The folder holding `pulumi`: SVC_PULUMI_BIN, the cache of scripts/pulumi-cli.sh, or PATH. */
export const cliDir: string | undefined = [process.env.SVC_PULUMI_BIN, path.join(cacheBase, "pulumi-cli", CLI_VERSION, "bin"), onPath("pulumi")]
  .find((d): d is string => !!d && fs.existsSync(path.join(d, "pulumi")));

/** The installed @pulumi/pulumi: its folder holds pulumi-resource-pulumi-nodejs, the dynamic-provider plugin. */
export const sdkDir = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [root] }));

/** Its version. */
export const sdkVersion = (): string => (JSON.parse(fs.readFileSync(path.join(sdkDir, "package.json"), "utf8")) as { version: string }).version;

/**
 * What a user sees when the engine's import reads an object through the SDK's dynamic-provider
 * host (the `import` resource option, `pulumi import`): the engine's import read (ImportStep) sends
 * the id alone, neither the program's inputs nor a state, so the serialized provider
 * (`__provider`) is in neither. @pulumi/pulumi 3.248's host (observed with CLI v3.259.0) reads the
 * absent properties and throws; 3.276's (with CLI v3.276.0) takes them as empty, falls back to the
 * inputs, absent too, and hands `undefined` to require-from-string as the provider's code.
 */
export function importReadMessage(): string {
  const version = sdkVersion();
  const known: Record<string, string> = {
    "3.248.0": "Cannot read properties of undefined (reading 'toJavaScript')",
    "3.276.0": "code must be a string, not undefined",
  };
  if (known[version]) return known[version];
  // Another SDK: told by whether its host reads absent properties unguarded, as 3.248's does.
  const host = fs.readFileSync(path.join(sdkDir, "cmd/dynamic-provider/index.js"), "utf8");
  const read = host.slice(host.indexOf("async read(call, callback)"), host.indexOf("list(call)"));
  return read.includes("req.getProperties().toJavaScript()") ? known["3.248.0"]! : known["3.276.0"]!;
}

/**
 * Which Node.js language host the CLI starts: Pulumi's official `pulumi-language-nodejs`, what every
 * installation ships, or ours (langhost, src/cli/langhost.ts), the fallback where the
 * official one cannot be had (docs/real-cli.md#which-language-host).
 */
export type LangHost = "official" | "ours";

/**
 * The official host's binary: beside the CLI, or where ../shared/tools/official-langhost/build.sh
 * puts it (its source is v3.259.0's, so it pairs with that CLI only).
 */
function officialHostBin(): string | undefined {
  const beside = cliDir && path.join(cliDir, "pulumi-language-nodejs");
  if (beside && fs.existsSync(beside)) return beside;
  const built = path.join(cacheBase, "official-langhost", CLI_VERSION, "pulumi-language-nodejs");
  return cliDir && cliVersion() === CLI_VERSION && fs.existsSync(built) ? built : undefined;
}

let version: string | undefined;
/** `pulumi version` of the CLI found. */
export function cliVersion(): string {
  version ??= execFileSync(path.join(cliDir!, "pulumi"), ["version"], { encoding: "utf8" }).trim();
  return version;
}

/** SVC_LANGHOST (official or ours), else the official host where it can be had. */
export const langHost: LangHost = process.env.SVC_LANGHOST === "ours" || process.env.SVC_LANGHOST === "official"
  ? process.env.SVC_LANGHOST : cliDir && officialHostBin() ? "official" : "ours";

/** Why a host cannot be used here, or undefined. */
export function hostMissing(host: LangHost): string | undefined {
  if (host === "ours") return fs.existsSync(path.join(root, "dist/src/cli/langhost.js")) ? undefined : "dist/src/cli/langhost.js is missing: run npm run build";
  return officialHostBin() ? undefined
    : `no official pulumi-language-nodejs beside ${cliDir ?? "the CLI"} or from ../shared/tools/official-langhost/build.sh (it pairs with CLI ${CLI_VERSION})`;
}

/**
 * The bin/ folder of a Pulumi installation: `pulumi`, the language host `host` and the
 * dynamic-provider plugin `pulumi-resource-pulumi-nodejs` side by side, as the CLI finds its
 * bundled plugins. Hard links where the file system allows. One folder per set of parts, kept in
 * the temp folder and shared by every test process (made under another name, then renamed).
 */
export function installation(host: LangHost = langHost): string {
  const ours = `#!/bin/sh\nexec "${process.execPath}" "${path.join(root, "dist/src/cli/langhost.js")}" "$@"\n`;
  const files = [path.join(cliDir!, "pulumi"), ...(host === "official" ? [officialHostBin()!] : []), path.join(sdkDir, "pulumi-resource-pulumi-nodejs")];
  // A rebuilt CLI or host is a new file: a new folder.
  const parts = [host, ours, ...files.map((f) => `${f} ${fs.statSync(f).mtimeMs}`)];
  const key = createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 16);
  const top = path.join(os.tmpdir(), "pulumi-svc-installs", `${host}-${key}`);
  const dir = path.join(top, "bin");
  if (fs.existsSync(path.join(dir, "pulumi-resource-pulumi-nodejs"))) return dir;
  fs.mkdirSync(path.dirname(top), { recursive: true });
  const draft = fs.mkdtempSync(`${top}.draft-`);
  fs.mkdirSync(path.join(draft, "bin"));
  const place = (from: string, name: string) => {
    const to = path.join(draft, "bin", name);
    try { fs.linkSync(from, to); } catch { fs.copyFileSync(from, to); }
    fs.chmodSync(to, 0o755);
  };
  place(path.join(cliDir!, "pulumi"), "pulumi");
  if (host === "official") place(officialHostBin()!, "pulumi-language-nodejs");
  else fs.writeFileSync(path.join(draft, "bin", "pulumi-language-nodejs"), ours, { mode: 0o755 });
  place(path.join(sdkDir, "pulumi-resource-pulumi-nodejs"), "pulumi-resource-pulumi-nodejs");
  try {
    fs.renameSync(draft, top);
  } catch {
    // Another test process made it first.
    fs.rmSync(draft, { recursive: true, force: true });
  }
  return dir;
}

/** PATH for the CLI of `host`'s installation: it first, then the Node that runs the tests, then the rest. */
export function cliPath(host: LangHost = langHost, rest = process.env.PATH ?? ""): string {
  return [installation(host), path.dirname(process.execPath), rest].join(path.delimiter);
}

/** What keeps a real-CLI suite from running here, or undefined. */
export function cliMissing(host: LangHost): string | undefined {
  if (!cliDir) return "no Pulumi CLI: run scripts/pulumi-cli.sh (or put pulumi on PATH, or set SVC_PULUMI_BIN), and npm run build";
  return hostMissing(host);
}

/**
 * `describe` when the CLI and the language host are there; otherwise a skipped suite with the
 * reason printed, or, under SVC_REQUIRE_REAL (CI), one failing test saying what is missing.
 */
export function describeCli(name: string, body: () => void, host: LangHost = langHost): void {
  const reason = cliMissing(host);
  if (!reason) {
    // One CLI operation takes seconds; a test runs several in a row, on 2 shared cores.
    describe(name, { timeout: 600_000 }, body);
    return;
  }
  if (requireReal) {
    describe(name, () => it("needs the real Pulumi CLI and its language host", () => { throw requiredButMissing(reason); }));
  } else {
    console.log(`skipping "${name}": ${reason}`);
    describe.skip(name, body);
  }
}

export interface CliResult { code: number; stdout: string; stderr: string }

export interface JsonStep { op: string; urn: string; oldState?: { id?: string }; newState?: { id?: string; outputs?: Record<string, unknown> } }
export interface JsonResult {
  steps: JsonStep[];
  changeSummary?: Record<string, number>;
  diagnostics?: { message: string; severity: string; urn?: string }[];
  /**
   * What each step did, per resource name, from the engine's resOutputsEvents: a refresh reports
   * every resource as a `refresh` step and says here whether it was `same`, `update` or `delete`.
   */
  outcomes?: Record<string, string>;
}

export const nameOf = (urn: string) => urn.split("::").pop()!;

/**
 * Operation per resource (the stack itself left out); a replacement counts once as `replace`.
 * The CLI leaves most unchanged resources out of its JSON, so `same` entries are dropped.
 */
export function ops(r: JsonResult): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of r.steps) {
    // The stack and the default provider (the event log, unlike --json, has its steps too).
    if (s.urn.includes("::pulumi:pulumi:Stack::") || s.urn.includes("::pulumi:providers:")) continue;
    const name = nameOf(s.urn);
    const op = ["create-replacement", "delete-replaced", "replace"].includes(s.op) ? "replace" : s.op;
    if (out[name] !== "replace") out[name] = op;
  }
  for (const [k, v] of Object.entries(out)) if (v === "same") delete out[k];
  return out;
}

/** The property names marked changed (`~`, `+`, `-`) per resource in `pulumi preview --diff` text. */
export function changedProperties(text: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let current: string | undefined;
  for (const line of text.split("\n")) {
    const urn = /\[urn=(\S+)\]/.exec(line);
    if (urn) {
      current = nameOf(urn[1]);
      continue;
    }
    if (/^\s*(\+-|\+\+|-\+|[~+-])?\s*[\w-]+:[\w/-]+:\w+: \(/.test(line) || /--outputs:--/.test(line)) current = undefined;
    const prop = /^\s+[~+-]\s+([A-Za-z_][\w]*)\s*:/.exec(line);
    if (current && prop) (out[current] ??= []).includes(prop[1]) || out[current].push(prop[1]);
  }
  return out;
}

export interface StackOptions {
  project: string;
  /**
   * The program: a compiled program file, run from a Pulumi.yaml of the stack's own whose `main`
   * names it; or `{ example }`, examples/<example> run from its own folder as
   * docs/examples.md says (its step2 from step2/, see `step2`).
   */
  program: string | { example: string };
  config?: Record<string, string>;
  secretConfig?: Record<string, string>;
  env?: Record<string, string | undefined>;
  /** A state backend other than the stack folder's own file backend (test/cli/backends.test.ts). */
  backendUrl?: string;
  /** The language host the CLI runs the program with; `langHost` unless given. */
  host?: LangHost;
  /**
   * The passphrase secrets provider instead of the suites' KMS key (test/support/kms.ts), where
   * the suite is about what the passphrase provider stores.
   */
  passphrase?: boolean;
  /**
   * Whether the CLI's ts-node type-checks a TypeScript program, as it does for a user. Off unless
   * given: it only transpiles (PULUMI_NODEJS_TRANSPILE_ONLY), since test/docs/examples.test.ts
   * type-checks every example under its own tsconfig.json once, and the check cost each test file's
   * first run of a program 3–4 s of CPU. The quickstart's lifecycle keeps it on in both combinations.
   */
  typeCheck?: boolean;
}

/** Commands that run from the program's folder and take the stack's config file (the others need only the backend). */
const PROGRAM_COMMANDS = new Set(["up", "preview", "refresh", "destroy", "config"]);

/**
 * TypeScript programs (the examples) compile once per test process: ts-node keeps what it compiled
 * here, one folder per process, so that two processes never write the same file at once.
 */
const tsNodeCaches = path.join(os.tmpdir(), "pulumi-svc-ts-node");
const tsNodeCache = path.join(tsNodeCaches, String(process.pid));
process.once("exit", () => fs.rmSync(tsNodeCache, { recursive: true, force: true }));
// A worker the runner killed never saw "exit": the folders of processes gone are removed here.
for (const pid of fs.existsSync(tsNodeCaches) ? fs.readdirSync(tsNodeCaches) : []) {
  if (!alive(Number(pid))) fs.rmSync(path.join(tsNodeCaches, pid), { recursive: true, force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to another user.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * One stack `dev` of one project in its own temporary folder (PULUMI_HOME, Pulumi.yaml, the stack's
 * config file and the file backend unless `backendUrl` names another). An example runs from its
 * own folder in the checkout, as docs/examples.md says, with `--config-file` naming the stack's
 * config file in the temporary folder, so stacks of one example never share a file.
 */
export class CliStack {
  readonly dir: string;
  /** The program's folder: the stack's own for a compiled program, examples/<name> for an example. */
  readonly cwd: string;
  private readonly example: boolean;
  private readonly env: NodeJS.ProcessEnv;
  private inStep2 = false;
  private eventLogs = 0;

  private constructor(private readonly options: StackOptions) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), `cli-${options.project}-`));
    fs.mkdirSync(path.join(this.dir, "backend"));
    this.example = typeof options.program !== "string";
    if (typeof options.program !== "string") {
      this.cwd = path.join(root, "examples", options.program.example);
      // The project's name, for the commands that need only the backend (stack init, export, output).
      fs.writeFileSync(path.join(this.dir, "Pulumi.yaml"), `name: ${options.project}\nruntime: nodejs\n`);
    } else {
      this.cwd = this.dir;
      this.setProgram(options.program);
    }
    const env: NodeJS.ProcessEnv = { ...process.env };
    // Only stack config counts, as for a user with a clean shell.
    for (const k of Object.keys(env)) if (k.startsWith("SVC_") || k.startsWith("PULUMI_")) delete env[k];
    this.env = {
      ...env,
      ...options.env,
      // The Node that runs the tests runs the language host, the program and the provider host.
      PATH: cliPath(options.host),
      PULUMI_BACKEND_URL: options.backendUrl ?? `file://${path.join(this.dir, "backend")}`,
      PULUMI_HOME: path.join(this.dir, "home"),
      PULUMI_CONFIG_PASSPHRASE: CLI_PASSPHRASE,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_SKIP_CONFIRMATIONS: "true",
      // Only for --event-log (see events).
      PULUMI_DEBUG_COMMANDS: "true",
      TS_NODE_CACHE_DIRECTORY: tsNodeCache,
      PULUMI_NODEJS_TRANSPILE_ONLY: options.typeCheck ? undefined : "true",
    };
  }

  static async create(options: StackOptions): Promise<CliStack> {
    const stack = new CliStack(options);
    const kms = options.passphrase ? undefined : await kmsSecretsProvider();
    if (kms) Object.assign(stack.env, kms.env);
    await stack.ok(["stack", "init", ...(kms ? ["--secrets-provider", kms.url] : [])]);
    await stack.setConfig(options.config ?? {}, options.secretConfig ?? {});
    return stack;
  }

  /** A compiled program file as the project's `main` (the official host runs a folder's package.json main instead). */
  setProgram(program: string): void {
    if (!fs.statSync(program).isFile()) throw new Error(`${program}: a program file, not a folder`);
    fs.writeFileSync(path.join(this.dir, "Pulumi.yaml"), `name: ${this.options.project}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: ${program}\n`);
  }

  /** For an example: run its step2 from now on (from examples/<name>/step2, the same stack and config file), or step 1 again. */
  step2(on = true): void {
    this.inStep2 = on;
  }

  async setConfig(plain: Record<string, string>, secret: Record<string, string> = {}): Promise<void> {
    const args = [
      ...Object.entries(plain).flatMap(([k, v]) => ["--plaintext", `${k}=${v}`]),
      ...Object.entries(secret).flatMap(([k, v]) => ["--secret", `${k}=${v}`]),
    ];
    if (args.length) await this.ok(["config", "set-all", ...args]);
  }

  /** Runs `pulumi <args> --stack dev --non-interactive`: a command that runs the program from its folder. */
  /** `env` overrides the stack's environment for this command (undefined removes a variable). */
  run(args: string[], timeoutMs = 300_000, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
    return this.start(args, timeoutMs, env).done;
  }

  /** Like run, in the background: the CLI's pid, to stop it as CI stops a job (stopTree). */
  start(args: string[], timeoutMs = 300_000, env: NodeJS.ProcessEnv = {}): { pid: number; done: Promise<CliResult> } {
    const program = this.example && PROGRAM_COMMANDS.has(args[0]!);
    const cwd = !program ? this.dir : this.inStep2 ? path.join(this.cwd, "step2") : this.cwd;
    const configFile = program ? ["--config-file", path.join(this.dir, "Pulumi.dev.yaml")] : [];
    return spawned(path.join(installation(this.options.host), "pulumi"), [...args, ...configFile, "--stack", "dev", "--non-interactive"], { cwd, env: { ...this.env, ...env } }, timeoutMs);
  }

  /** Another command (pulumi-svc-recover) as a user runs it beside the CLI: the stack's folder and environment. */
  command(file: string, args: string[]): Promise<CliResult> {
    return spawned(file, args, { cwd: this.dir, env: this.env }, 120_000).done;
  }

  /** Like run, but a non-zero exit is an error carrying the CLI's output. */
  async ok(args: string[]): Promise<CliResult> {
    const r = await this.run(args);
    if (r.code !== 0) throw new Error(`pulumi ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
    return r;
  }

  /** A preview with --json: one summary object with its steps. */
  async json(args: string[]): Promise<JsonResult & { code: number; text: string }> {
    const r = await this.run([...args, "--json"]);
    const text = r.stdout + r.stderr;
    try {
      return { ...(JSON.parse(r.stdout) as JsonResult), code: r.code, text };
    } catch {
      throw new Error(`pulumi ${args.join(" ")} printed no JSON (exit ${r.code})\n${text}`);
    }
  }

  /**
   * An update (up, refresh, destroy) as a user sees it, with the engine's events written to a file
   * beside (`--event-log`, the Automation API's way; the CLI offers it with PULUMI_DEBUG_COMMANDS):
   * the resourcePreEvents are the steps in the order the engine started them. A failed operation
   * still writes them. `text` is what the CLI printed.
   */
  async events(args: string[]): Promise<JsonResult & { code: number; text: string }> {
    const log = path.join(this.dir, `events-${++this.eventLogs}.jsonl`);
    const r = await this.run([...args, "--event-log", log]);
    const text = r.stdout + r.stderr;
    const lines = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n") : [];
    fs.rmSync(log, { force: true });
    const steps: JsonStep[] = [];
    const diagnostics: NonNullable<JsonResult["diagnostics"]> = [];
    const outcomes: Record<string, string> = {};
    let changeSummary: Record<string, number> | undefined;
    for (const line of lines) {
      if (!line.startsWith("{")) continue;
      const e = JSON.parse(line) as Record<string, any>;
      if (e.resourcePreEvent) steps.push({ op: e.resourcePreEvent.metadata.op, urn: e.resourcePreEvent.metadata.urn });
      const done = e.resOutputsEvent?.metadata;
      if (done && !done.urn.includes("::pulumi:pulumi:Stack::") && !done.urn.includes("::pulumi:providers:")) outcomes[nameOf(done.urn)] = done.op;
      if (e.diagnosticEvent) diagnostics.push(e.diagnosticEvent);
      if (e.summaryEvent) changeSummary = e.summaryEvent.resourceChanges;
    }
    if (!steps.length && !changeSummary) throw new Error(`pulumi ${args.join(" ")} wrote no events (exit ${r.code})\n${text}`);
    return { steps, diagnostics, changeSummary, outcomes, code: r.code, text };
  }

  preview(extra: string[] = []) { return this.json(["preview", ...extra]); }
  up(extra: string[] = []) { return this.events(["up", "--yes", "--skip-preview", ...extra]); }
  refresh(extra: string[] = []) { return this.events(["refresh", "--yes", "--skip-preview", ...extra]); }
  destroy(extra: string[] = []) { return this.events(["destroy", "--yes", "--skip-preview", ...extra]); }

  /** `pulumi stack export` (secrets stay encrypted, as stored). */
  async exportText(): Promise<string> {
    return (await this.ok(["stack", "export"])).stdout;
  }

  async state(): Promise<{ resources: { urn: string; id?: string; type: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown>; dependencies?: string[]; protect?: boolean; retainOnDelete?: boolean; initErrors?: string[] }[] }> {
    return (JSON.parse(await this.exportText()) as { deployment: { resources: never[] } }).deployment as never;
  }

  /** Stack outputs; with `showSecrets: false` a secret one reads `"[secret]"`. */
  async outputs(showSecrets = true): Promise<Record<string, unknown>> {
    return JSON.parse((await this.ok(["stack", "output", "--json", ...(showSecrets ? ["--show-secrets"] : [])])).stdout) as Record<string, unknown>;
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A child process, its output gathered; killed when it runs past `timeoutMs`. */
function spawned(file: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }, timeoutMs: number): { pid: number; done: Promise<CliResult> } {
  const child = spawn(file, args, opts);
  const done = new Promise<CliResult>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on("data", (d: Buffer) => { stderr += d.toString(); });
    // Its plugins too: a provider host left behind would go on polling a run for ever.
    const timer = setTimeout(() => stopTree(child.pid!), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
  return { pid: child.pid!, done };
}

/**
 * Stops a process and every process it started, as a runner stops a cancelled job: the CLI's
 * plugins (language host, provider host) run in sessions of their own, so its process group is
 * not enough. The tree is read from /proc before any is killed (an orphan's parent changes).
 */
export function stopTree(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name (2nd field) is in parentheses and may hold spaces: the parent pid follows the last ")".
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  for (const p of tree) {
    try {
      process.kill(p, signal);
    } catch {
      // gone meanwhile
    }
  }
}

/** One emulator for a file's real-CLI scenarios, and the stacks a test made, removed after it. */
export function cliScenarios(): { emu: () => Emulator; stacks: CliStack[] } {
  // Stack config names the emulator; each scenario resets what it uses.
  const { emu } = useEmulator({ reset: false, env: false });
  const stacks: CliStack[] = [];
  afterEach(() => {
    for (const s of stacks.splice(0)) s.remove();
  });
  return { emu: () => emu, stacks };
}
