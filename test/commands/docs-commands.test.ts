// Every command of the shell blocks (```sh, ```bash, ```shell) of the README, the CHANGELOG and
// docs/*.md works as written. Each command is either run here, for real, or listed in EXEMPT by its
// exact text with the place that proves it instead; a command that is neither fails the suite.
//
// What runs, block by block in the order of the files: the emulator commands (their port replaced by
// a free one, their printed exports read), then the block's other commands as one bash script
// (`set -euo pipefail`) in a temporary HOME, file backend and stack, with the Pulumi CLI of
// test/cli/cli.ts: the `pulumi` lines exactly as written, `curl` lines against the emulator (failing
// on an HTTP error), `psql` lines against a throwaway PostgreSQL. The emulator a block means is the
// one its own page started last, else the README's: a URL's 127.0.0.1 port is that emulator's, and
// `$VARS` come from its exports and ENV_FOR_DOCS; `<…>` placeholders come from PLACEHOLDERS (a block
// using a `<postgres-…>` one, or running `psql`, gets a throwaway PostgreSQL: with
// SVC_REQUIRE_REAL=1 a missing one fails, else the block is skipped with the reason printed). After
// each `pulumi config set`, `pulumi config get` must return the value, as a secret where `--secret`
// was given (tokens, passwords and keys must be).
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../support/dist";
import { codeBlocks, commandFiles, shellBlocks, splitCommand, type ShellBlock, type ShellCommand } from "../support/markdown";
import { onFreePort, PortTaken } from "../support/ports";
import { postgresUnavailable, startPostgres, type Postgres } from "../support/postgres";
import { requireReal, requiredButMissing } from "../support/real";
import { cliPath, describeCli, installation, sdkDir } from "../cli/cli";

/**
 * Commands not run here, by their exact text (the trailing comment aside): an edited command loses
 * its exemption and must be run or listed again. Each says why, and where it is proven instead.
 */
const EXEMPT: Record<string, string> = {
  "npm ci && npm run build && npm pack":
    "installs from the registry and rebuilds dist/ under the running suite; .ci/run runs npm ci, `npm test` builds, test/package/pack.test.ts runs npm pack",
  "cd /path/to/your/program": "a placeholder for the reader's own folder; test/package/pack.test.ts sets up such a program",
  "npm install @pulumi/pulumi typescript /path/to/pulumi-svc-0.1.0.tgz":
    "installs into the reader's program; test/package/install.test.ts runs it in a fresh project on Node 22 with the newest @pulumi/pulumi (.ci/run's second combination)",
  "npm install @pulumi/pulumi@3.248.0 typescript /path/to/pulumi-svc-0.1.0.tgz":
    "installs into the reader's program; test/package/install.test.ts runs it in a fresh project on Node 20 (npm test)",
  "npm install --save-dev vitest":
    "installs into the reader's project from the registry; test/package/testing.test.ts installs vitest and jest beside the packed package in a fresh folder and runs the guide's two tests",
  "npm install": "needs the npm registry (no network here); .ci/run installs with npm ci before every run",
  "npm start": "rebuilds dist/ (npm run build) under the running suite; test/cli/start.test.ts runs its script with the real CLI",
  "npm test": "what CI runs: .ci/run runs it",
  "bash pulumi-config.sh":
    "runs the script the import wrote, after the reader put in their values; test/package/install.test.ts runs it as written with the real CLI, and test/integration/import-untrusted.test.ts with a stub pulumi and every command traced",
  "pulumi preview --refresh --show-sames --json > drift.json":
    "needs a deployed stack with drift on its server; test/cli/review-risk.test.ts runs it on one under the real CLI (both combinations), with a plain CLI's environment (no PULUMI_DEBUG_COMMANDS)",
  "pulumi-svc-review --drift drift.json": "reads the JSON of the preview above; test/cli/review-risk.test.ts runs the built command on a real one",
  'export PATH="$PWD/node_modules/pulumi-svc/langhost:$PATH"':
    "for a project with the package installed from its tarball; test/package/install.test.ts runs pulumi preview that way, with a CLI folder that holds only pulumi",
  "export SVC_SECRETS_URL=https://secrets.example.com/v1 SVC_SECRETS_TOKEN=...":
    "the reader's own server; test/package/install.test.ts runs the installed pulumi-svc-import with these variables set for an emulator",
  "export SVC_RUN_URL=https://runs.example.com/api/v2 SVC_RUN_TOKEN=...":
    "the reader's own server; test/package/install.test.ts runs the installed pulumi-svc-import with these variables set for an emulator",
  "mkdir infra && cd infra && pulumi new typescript --yes && npm install pulumi-svc":
    "needs Pulumi's templates and the npm registry; test/package/install.test.ts lays out the project pulumi new typescript makes, with the package from its tarball",
  "npx pulumi-svc-import --workspace ws-prod0000000001 --workspace ws-stage000000001 --out . --force":
    "reads the reader's servers; test/package/install.test.ts runs the installed command (with --workspace and --out) and deploys what it writes under the real CLI",
  "npx pulumi-svc-import --workspace ws-prod0000000001 --out . --seed seed.json":
    "reads the reader's servers; test/engine/testing-import.test.ts runs the built command with --seed and tests what it wrote through testStack with the seed",
  "npm run test:fast": "the `fast` project of vitest.config.mts, a part of what `npm test` runs in .ci/run; a suite cannot run itself",
  "scripts/pulumi-cli.sh": "builds the Pulumi CLI from the Go module proxy (minutes); .ci/run runs it before the tests, which use what it built",
  "npx vitest run test/cli": "the real-CLI suite, a part of what `npm test` runs in .ci/run; a suite cannot run itself",
  "npx vitest run test/cli/examples/quickstart.test.ts": "one example's lifecycles, a part of what `npm test` runs in .ci/run; a suite cannot run itself",
  'out="$(scripts/node22.sh)"; bin="$(echo "$out" | sed -n 1p)"; tree="$(echo "$out" | sed -n 2p)"':
    "downloads Node 22 and the newest @pulumi/pulumi; .ci/run runs scripts/node22.sh for its second combination",
  'cli="$(PULUMI_CLI_VERSION=newest scripts/pulumi-cli.sh)"':
    "builds the newest Pulumi CLI from the Go module proxy (minutes); .ci/run runs it for its second combination",
  '(cd "$tree" && SVC_PULUMI_BIN="$cli" SVC_LANGHOST=ours SVC_EXAMPLES_CLI_ONLY=1 PATH="$bin:$PATH" node node_modules/vitest/vitest.mjs run test/protocol test/program test/cli test/package/install.test.ts test/engine/testing.test.ts test/engine/get.test.ts test/engine/testing-import.test.ts test/unit/cold-start.test.ts --exclude test/cli/fanout.test.ts --exclude test/cli/ui-deploy.test.ts --exclude test/cli/hosts.test.ts --exclude test/cli/differential.test.ts --exclude test/cli/policy.test.ts)':
    ".ci/run runs exactly these suites as its second combination (Node 22, newest CLI); a suite cannot run itself",
  "pulumi preview --policy-pack ../policy":
    "needs the pack's own node_modules (npm install in examples/policy); test/cli/policy.test.ts runs it with the example pack, its node_modules laid out as npm installs them, on the quickstart",
  "pulumi preview --policy-pack ../policy --policy-pack-config ../policy/policy-config.json":
    "needs the pack's own node_modules; test/cli/policy.test.ts runs it on the quickstart and checks the threshold the config file moves",
  "PULUMI_DEBUG_COMMANDS=true pulumi preview --policy-pack ../policy --json --event-log events.jsonl > preview.json":
    "needs the pack's own node_modules; test/cli/policy.test.ts runs the preview with --json and --event-log under the real CLI and reviews both files",
  "npx pulumi-svc-review --policy events.jsonl --fail-on-policy preview.json > review.md":
    "reads the two files of the preview above; test/cli/policy.test.ts runs the built command on real ones, and test/unit/review-policy.test.ts checks --fail-on-policy",
  "cd examples/policy && npm install": "installs the pack's dependencies from the registry; test/support/policyPack.ts lays out the same node_modules for test/cli/policy.test.ts",
  "cd ../quickstart && pulumi preview --policy-pack ../policy": "needs the pack's own node_modules; test/cli/policy.test.ts runs the example pack on the quickstart under the real CLI",
};

/** What a block's placeholders draw on: the throwaway PostgreSQL, started when a block needs it. */
interface Services { postgres?: Postgres }

/** Values for `<…>` placeholders in runnable commands, and the service each needs. */
const PLACEHOLDERS: Record<string, { needs: "postgres"; value: (s: Services) => string }> = {
  "postgres-port": { needs: "postgres", value: (s) => String(s.postgres!.port) },
  "postgres-superuser": { needs: "postgres", value: (s) => s.postgres!.admin.username },
  "postgres-password": { needs: "postgres", value: (s) => s.postgres!.admin.password },
};

/** Variables the docs leave to the reader, by name: the value each gets here from the emulator's exports. */
const ENV_FOR_DOCS: Record<string, string> = {
  RUN_TOKEN: "SVC_RUN_TOKEN",
  SECRETS_TOKEN: "SVC_SECRETS_TOKEN",
};

type Kind = "emulator" | "pulumi" | "curl" | "psql" | "setup";
/** What runs: a command (each part of a `;`/`&&`/`|` chain) must match one of these or be exempt. */
const RUN_RULES: { kind: Kind; pattern: RegExp }[] = [
  { kind: "emulator", pattern: /^(npx\s+)?pulumi-svc-emulator(\s|$)/ },
  { kind: "pulumi", pattern: /^pulumi\s/ },
  { kind: "curl", pattern: /^curl\s.*(127\.0\.0\.1|localhost|\$\{?SVC_)/ },
  // Against the throwaway PostgreSQL of the block (see PLACEHOLDERS).
  { kind: "psql", pattern: /^psql\s/ },
  // Shell set-up, run as part of its block.
  { kind: "setup", pattern: /^(export\s+[A-Za-z_]\w*=|mkdir\s+-p\s|cd\s)/ },
];

interface Classified { command: ShellCommand; exempt?: string; kinds: Kind[]; unknown: string[] }

function classify(command: ShellCommand): Classified {
  const exempt = EXEMPT[command.text];
  if (exempt) return { command, exempt, kinds: [], unknown: [] };
  const kinds: Kind[] = [];
  const unknown: string[] = [];
  for (const part of splitCommand(command.text, [";", "&&", "||", "|"])) {
    const rule = RUN_RULES.find((r) => r.pattern.test(part));
    if (rule) kinds.push(rule.kind);
    else unknown.push(part);
  }
  return { command, kinds, unknown };
}

const where = (c: ShellCommand) => `${c.file}:${c.line}: \`${c.text}\``;
const blocks: ShellBlock[] = commandFiles().flatMap((f) => shellBlocks(f));
const classified = blocks.map((b) => ({ block: b, commands: b.commands.map(classify) }));

describe("the shell commands of the README and docs/", () => {
  it("finds the shell blocks, among them the README's emulator and configuration", () => {
    const all = blocks.flatMap((b) => b.commands.map((c) => c.text));
    expect(all).toContain("npx pulumi-svc-emulator --port 8300");
    expect(all.filter((c) => c.startsWith("pulumi config set")).length).toBeGreaterThanOrEqual(4);
  });

  it("every command is run by this suite or exempt with its reason", () => {
    const unmatched = classified.flatMap((b) => b.commands)
      .filter((c) => c.unknown.length > 0)
      .map((c) => `${where(c.command)} matches no rule (${c.unknown.map((u) => `\`${u}\``).join(", ")}): make RUN_RULES run it, or add it to EXEMPT with the reason and where it is proven`);
    expect(unmatched, unmatched.join("\n")).toEqual([]);
  });

  it("every exemption names a command of the docs, and says where it is proven", () => {
    const texts = new Set(blocks.flatMap((b) => b.commands.map((c) => c.text)));
    const stale = Object.keys(EXEMPT).filter((t) => !texts.has(t));
    expect(stale, `exemptions whose command is no longer in the docs: ${stale.join(" | ")}`).toEqual([]);
    for (const [text, reason] of Object.entries(EXEMPT)) expect(reason.length, text).toBeGreaterThan(20);
  });
});

// ---------------------------------------------------------------------------------------------------
// Running them.

const BASE_ENV: Record<string, string | undefined> = {};
for (const [k, v] of Object.entries(process.env)) {
  if (!k.startsWith("SVC_") && !k.startsWith("PULUMI_") && !k.startsWith("npm_")) BASE_ENV[k] = v;
}

/** A reader's shell: a HOME of its own (curl fails on an HTTP error there), the CLI on PATH, no network for npm. */
function readerEnv(dir: string, extra: Record<string, string>): Record<string, string> {
  const home = path.join(dir, "home");
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, ".curlrc"), "--fail\n--silent\n--show-error\n");
  fs.mkdirSync(path.join(dir, "backend"), { recursive: true });
  return {
    ...(BASE_ENV as Record<string, string>),
    HOME: home,
    PATH: cliPath(),
    PULUMI_BACKEND_URL: `file://${path.join(dir, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "docs-commands",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    // The reader answering "yes" to `pulumi up`'s question.
    PULUMI_SKIP_CONFIRMATIONS: "true",
    // The SDK's ts-node only transpiles: TypeScript's check of a program is what the reader's
    // `pulumi up` adds, and the suites make it once each (every example and step2 in
    // test/docs/examples.test.ts, the README's program in test/docs/snippets.test.ts, the check
    // under the CLI in the quickstart's lifecycle and the installed package's `pulumi up`); here
    // it cost 12 of the suite's 27 runs of a program 3–4 s of CPU each (docs/contributing.md#the-real-cli).
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
    npm_config_offline: "true",
    npm_config_update_notifier: "false",
    ...extra,
  };
}

/** The README's own program (its "Write `index.ts`" block) in a folder where pulumi-svc is installed. */
function readerProgram(dir: string): string {
  const readme = codeBlocks("README.md");
  const heading = fs.readFileSync(path.join(root, "README.md"), "utf8").split("\n").findIndex((l) => /\*\*Write\*\* `index\.ts`/.test(l)) + 1;
  const program = readme.find((b) => b.lang === "ts" && b.line > heading);
  if (heading === 0 || !program) throw new Error("README.md: no ```ts block after **Write** `index.ts`");
  const modules = path.join(dir, "node_modules");
  fs.mkdirSync(path.join(modules, "@pulumi"), { recursive: true });
  fs.mkdirSync(path.join(modules, ".bin"));
  // What `npm install <tarball>` leaves: the package (here the built checkout) and its commands.
  fs.symlinkSync(root, path.join(modules, "pulumi-svc"), "dir");
  fs.symlinkSync(sdkDir, path.join(modules, "@pulumi/pulumi"), "dir");
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { bin: Record<string, string> };
  for (const [name, file] of Object.entries(pkg.bin)) {
    fs.symlinkSync(path.join("..", "pulumi-svc", file), path.join(modules, ".bin", name));
    // npm install makes a package's bin targets executable; a fresh build leaves them 0644.
    fs.chmodSync(path.join(root, file), 0o755);
  }
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "reader-program", private: true }));
  // Pulumi's TypeScript template: the SDK's ts-node compiles and type-checks index.ts.
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), "name: reader-program\nruntime:\n  name: nodejs\n");
  fs.writeFileSync(path.join(dir, "index.ts"), `${program.text}\n`);
  return dir;
}

/** A checkout after `npm ci && npm run build`: package.json, node_modules and dist/, and the folders a block cds into. */
function checkout(dir: string, folders: string[]): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(root, "package.json"), path.join(dir, "package.json"));
  fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
  fs.symlinkSync(path.join(root, "dist"), path.join(dir, "dist"), "dir");
  for (const f of folders) {
    if (fs.existsSync(path.join(root, f))) fs.cpSync(path.join(root, f), path.join(dir, f), { recursive: true });
  }
  return dir;
}

/** Shell words of a command, as written (quotes kept), for finding a `pulumi config set`'s key and value. */
function words(text: string): string[] {
  const out: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      current += c;
      if (c === "\\" && quote === '"') current += text[++i] ?? "";
      else if (c === quote) quote = undefined;
    } else if (/\s/.test(c)) {
      if (current) out.push(current);
      current = "";
    } else {
      current += c;
      if (c === "'" || c === '"') quote = c;
      else if (c === "\\") current += text[++i] ?? "";
    }
  }
  if (current) out.push(current);
  return out;
}

interface ConfigSet { key: string; value: string; secret: boolean; options: string[] }

/** `pulumi config set [flags] KEY VALUE`: key and value as written, and the flags that pick the stack. */
function configSet(part: string): ConfigSet | undefined {
  const w = words(part);
  if (w[0] !== "pulumi" || w[1] !== "config" || w[2] !== "set") return undefined;
  const positional: string[] = [];
  const options: string[] = [];
  let secret = false;
  for (let i = 3; i < w.length; i++) {
    if (w[i] === "--secret") secret = true;
    else if (w[i] === "--plaintext" || w[i] === "--path") continue;
    else if (["--stack", "-s", "--config-file", "--cwd", "-C"].includes(w[i]!)) options.push(w[i]!, w[++i]!);
    else if (w[i]!.startsWith("-")) continue;
    else positional.push(w[i]!);
  }
  return positional.length === 2 ? { key: positional[0]!, value: positional[1]!, secret, options } : undefined;
}

const LOOKS_SECRET = /(token|password|secret|key)$/i;

/**
 * A documented emulator: `child` is the `bash -c` running the command, the leader of its process
 * group; `closed` once every process holding its output has exited (for `… &` the shell itself
 * exits at once, the emulator in the background keeps the output open).
 */
interface Emulator { command: ShellCommand; port: number; exports: Record<string, string>; child: ChildProcess; closed: Promise<void>; isClosed: () => boolean; cwd: string; state?: string }
const emulators: Emulator[] = [];
let tmp: string;

/**
 * Runs a documented emulator command with its port replaced by a free one (another when that one
 * was taken before the emulator listened: onFreePort); resolves once it printed its exports.
 */
function startDocumented(command: ShellCommand): Promise<Emulator> {
  return onFreePort((port) => startOn(command, port));
}

async function startOn(command: ShellCommand, port: number): Promise<Emulator> {
  const docPort = /--port[ =](\d+)/.exec(command.text)?.[1];
  const text = docPort ? command.text.replace(/--port([ =])\d+/, `--port$1${port}`) : command.text;
  const dir = fs.mkdtempSync(path.join(tmp, "emulator-"));
  const cwd = readerProgram(path.join(dir, "program"));
  const child = spawn("bash", ["-c", text], { cwd, env: readerEnv(dir, {}), detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let isClosed = false;
  const closed = new Promise<void>((resolve) => child.once("close", () => { isClosed = true; resolve(); }));
  let out = "";
  child.stdout!.on("data", (d: Buffer) => { out += d.toString(); });
  child.stderr!.on("data", (d: Buffer) => { out += d.toString(); });
  const exports = await new Promise<Record<string, string>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${where(command)} printed no exports within 30 s:\n${out}`)), 30_000);
    const check = () => {
      if (!/^# pulumi-svc emulator on /m.test(out)) return;
      clearTimeout(timer);
      resolve(Object.fromEntries([...out.matchAll(/^export (\w+)=(\S*)$/gm)].map((m) => [m[1]!, m[2]!])));
    };
    child.stdout!.on("data", check);
    child.on("close", (code) => {
      clearTimeout(timer);
      const message = `${where(command)} exited ${code} (run as \`${text}\`):\n${out}`;
      reject(docPort && out.includes(`EADDRINUSE: address already in use 127.0.0.1:${port}`) ? new PortTaken(message) : new Error(message));
    });
  });
  const state = /--state[ =](\S+)/.exec(text)?.[1];
  const emu: Emulator = { command, port, exports, child, closed, isClosed: () => isClosed, cwd, state };
  emulators.push(emu);
  return emu;
}

/**
 * SIGTERM to the command's process group (the background emulator of a `… &` too), SIGKILL after
 * 10 s; whether it had stopped on SIGTERM.
 */
async function stop(emu: Emulator): Promise<boolean> {
  if (emu.isClosed()) return true;
  try { process.kill(-emu.child.pid!, "SIGTERM"); } catch { /* gone */ }
  const stopped = await Promise.race([emu.closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
  if (!stopped) try { process.kill(-emu.child.pid!, "SIGKILL"); } catch { /* gone */ }
  return stopped;
}

/**
 * The emulator a block of `file` means: the latest one started from that page (a guide that starts
 * its own, e.g. with `--clusters 2`), else the README's.
 */
function emulatorFor(file: string): Emulator | undefined {
  return emulators.filter((e) => e.command.file === file).at(-1) ?? emulators.find((e) => e.command.file === "README.md");
}

/** A documented `127.0.0.1:<port>` (or localhost) is the block's emulator, on the port it really has. */
function substitutePorts(text: string, emu: Emulator): string {
  return text.replace(/\b(127\.0\.0\.1|localhost):(\d+)/g, (_m, host: string) => `${host}:${emu.port}`);
}

const PLACEHOLDER = /<([^<>\s][^<>]*)>/g;

function fillPlaceholders(c: ShellCommand, text: string, services: Services): string {
  return text.replace(PLACEHOLDER, (m, name: string) => {
    const p = PLACEHOLDERS[name];
    if (p === undefined) throw new Error(`${where(c)}: the placeholder ${m} has no value in PLACEHOLDERS`);
    return p.value(services);
  });
}

/** Whether a block's commands need a PostgreSQL: a `psql` line, or a placeholder only one fills. */
function needsPostgres(commands: Classified[]): boolean {
  return commands.some((c) => c.kinds.includes("psql")
    || [...c.command.text.matchAll(PLACEHOLDER)].some((m) => PLACEHOLDERS[m[1]!]?.needs === "postgres"));
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

interface Step { command: ShellCommand; part: string; check?: ConfigSet }

/** A value that runs a command (`"$(openssl rand -hex 32)"`) gives another result when evaluated again. */
const evaluatesOnce = (value: string) => /\$\(|`/.test(value);

/**
 * One block as a bash script, each part of each line after a marker, each `pulumi config set`
 * followed by its `pulumi config get`. Fails naming the file, line and command that failed.
 */
async function runBlock(block: ShellBlock, commands: Classified[], dir: string, cwd: string, env: Record<string, string>, emu: Emulator, services: Services): Promise<{ checks: { step: Step; got: { value?: string; secret?: boolean }; expected?: string }[]; output: string }> {
  const steps: Step[] = [];
  for (const c of commands) {
    if (c.exempt) continue;
    const text = fillPlaceholders(c.command, substitutePorts(c.command.text, emu), services);
    for (const part of splitCommand(text, [";"])) steps.push({ command: c.command, part, check: configSet(part) });
  }
  const log = path.join(dir, "log");
  const checks = path.join(dir, "checks");
  fs.mkdirSync(checks, { recursive: true });
  const lines = ["set -euo pipefail", `exec >${q(log)} 2>&1`];
  steps.forEach((s, i) => {
    lines.push(`echo "::step ${i}"`, s.part);
    if (s.check) {
      lines.push(`pulumi config get ${s.check.key} --json ${s.check.options.join(" ")} > ${q(path.join(checks, `${i}.json`))}`);
      if (!evaluatesOnce(s.check.value)) lines.push(`printf '%s' ${s.check.value} > ${q(path.join(checks, `${i}.expected`))}`);
    }
  });
  lines.push(`echo "::step done"`);
  const script = path.join(dir, "block.sh");
  fs.writeFileSync(script, `${lines.join("\n")}\n`);
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn("bash", [script], { cwd, env, stdio: "ignore" });
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("error", reject);
    child.on("close", (c) => { clearTimeout(timer); resolve(c ?? -1); });
  });
  const output = fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "";
  if (code !== 0) {
    const marks = [...output.matchAll(/^::step (\d+)$/gm)];
    const last = marks.at(-1);
    const step = last ? steps[Number(last[1])] : undefined;
    const own = last ? output.slice(last.index! + last[0].length).trim() : output;
    const what = step ? `${where(step.command)} failed (exit ${code})${step.part !== step.command.text ? ` at \`${step.part}\`` : ""}`
      : `${block.file}:${block.line}: the block failed (exit ${code})`;
    throw new Error(`${what}; it ran in ${cwd}:\n${own.split("\n").slice(-40).join("\n")}`);
  }
  return {
    output,
    checks: steps.flatMap((step, i) => step.check ? [{
      step,
      got: JSON.parse(fs.readFileSync(path.join(checks, `${i}.json`), "utf8")) as { value?: string; secret?: boolean },
      expected: evaluatesOnce(step.check.value) ? undefined : fs.readFileSync(path.join(checks, `${i}.expected`), "utf8"),
    }] : []),
  };
}

function pulumi(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(installation(), "pulumi"), [...args, "--non-interactive"], { cwd, env });
    let out = "";
    child.stdout.on("data", (d: Buffer) => { out += d.toString(); });
    child.stderr.on("data", (d: Buffer) => { out += d.toString(); });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, out }));
  });
}

const runnable = classified.filter((b) => b.commands.some((c) => !c.exempt && c.unknown.length === 0));
const title = (b: ShellBlock) => `${b.file}:${b.line}: ${b.commands.map((c) => c.text).join(" / ").slice(0, 100)}`;
let postgres: Postgres | undefined;

/**
 * A block's commands other than its emulators (those of a block without one, or the rest of one
 * that starts one), run as one script against the emulator `emu`, then checked.
 */
async function runCommands(block: ShellBlock, commands: Classified[], emu: Emulator, skip: (note: string) => void): Promise<void> {
  const services: Services = {};
  if (needsPostgres(commands)) {
    const reason = postgresUnavailable();
    if (reason) {
      if (requireReal) throw requiredButMissing(`${block.file}:${block.line} needs a PostgreSQL: ${reason}`);
      console.warn(`skipping ${block.file}:${block.line} (needs a PostgreSQL): ${reason}`);
      skip(reason);
      return;
    }
    postgres ??= await startPostgres();
    services.postgres = postgres;
  }
  const dir = fs.mkdtempSync(path.join(tmp, "block-"));
  const fromDocs = Object.fromEntries(Object.entries(ENV_FOR_DOCS).map(([k, v]) => [k, emu.exports[v]!]));
  const env = readerEnv(dir, { ...emu.exports, ...fromDocs });
  const parts = commands.filter((c) => !c.exempt).flatMap((c) => splitCommand(c.command.text, [";", "&&"]));
  // Folders of the repository the block cds into (not `cd ../..`, back to the root).
  const cds = parts.filter((p) => /^cd\s+[^/$~]/.test(p)).map((p) => p.replace(/^cd\s+/, ""))
    .filter((f) => !path.relative(root, path.resolve(root, f)).startsWith("..") && path.resolve(root, f) !== root);
  // A block that cds into the repository runs from a checkout; any other is run in the reader's program.
  const cwd = cds.length > 0 ? checkout(path.join(dir, "checkout"), cds) : readerProgram(path.join(dir, "program"));
  const pulumiParts = parts.filter((p) => p.startsWith("pulumi "));
  const initsStack = pulumiParts.some((p) => /^pulumi stack (init|select)\b/.test(p));
  if (pulumiParts.length > 0 && !initsStack) {
    const init = await pulumi(["stack", "init", "dev"], cwd, env);
    expect(init.code, init.out).toBe(0);
  }

  const { checks } = await runBlock(block, commands, dir, cwd, env, emu, services);

  for (const { step, got, expected } of checks) {
    const what = `${where(step.command)}: pulumi config get ${step.check!.key}`;
    if (expected === undefined) expect(got.value ?? "", `${what}: the value ${step.check!.value} is empty`).not.toBe("");
    else {
      expect(expected, `${what}: the value ${step.check!.value} is empty`).not.toBe("");
      expect(got.value, what).toBe(expected);
    }
    expect(got.secret ?? false, `${what}: stored as a secret`).toBe(step.check!.secret);
    if (LOOKS_SECRET.test(step.check!.key)) expect(step.check!.secret, `${what}: a token, password or key is set with --secret`).toBe(true);
  }

  // Configuration that names a running emulator, and no deployment in the block: the README's
  // program deploys with it alone (no SVC_* variable), on the server configured.
  const urls = checks.filter((c) => c.step.check!.key === "svc:secretsUrl" && emulators.some((e) => c.expected?.startsWith(`http://127.0.0.1:${e.port}/`)));
  const deploys = pulumiParts.some((p) => /^pulumi (up|preview|refresh|destroy)\b/.test(p));
  if (urls.length > 0 && !deploys && cds.length === 0) {
    const clean = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith("SVC_")));
    const preview = await pulumi(["preview", "--diff"], cwd, clean);
    expect(preview.code, `${block.file}:${block.line}: pulumi preview --diff with this configuration:\n${preview.out}`).toBe(0);
    const up = await pulumi(["up"], cwd, clean);
    expect(up.code, `${block.file}:${block.line}: pulumi up with this configuration:\n${up.out}`).toBe(0);
    const out = await pulumi(["stack", "output", "serverUrl"], cwd, clean);
    expect(out.out.trim(), `${block.file}:${block.line}: the program's server`).toBe(urls.at(-1)!.expected);
  }
}

describeCli("the shell commands of the README and docs/, run", () => {
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "docs-commands-"));
  });

  afterAll(async () => {
    for (const e of emulators) await stop(e);
    await postgres?.stop();
    // SVC_DOCS_KEEP=1 keeps each block's folder (its block.sh and log) to look at.
    if (tmp && process.env.SVC_DOCS_KEEP !== "1") fs.rmSync(tmp, { recursive: true, force: true });
    else if (tmp) console.log(`kept ${tmp}`);
  });

  // In the order of the files: a page's emulator starts before the page's blocks that use it.
  for (const { block, commands } of runnable) {
    const starts = commands.filter((c) => c.kinds.includes("emulator"));
    const rest = commands.filter((c) => !c.exempt && !c.kinds.includes("emulator"));
    it(starts.length > 0 ? `${title(block)} (the emulator on a free port, then the rest)` : title(block), async (ctx) => {
      for (const c of starts) {
        expect(c.kinds, `${where(c.command)}: an emulator command runs alone on its line`).toEqual(["emulator"]);
        const emu = await startDocumented(c.command);
        expect(Object.keys(emu.exports), where(c.command)).toEqual(expect.arrayContaining(["SVC_RUN_URL", "SVC_RUN_TOKEN", "SVC_SECRETS_URL", "SVC_SECRETS_TOKEN"]));
        expect(emu.exports.SVC_SECRETS_URL, where(c.command)).toBe(`http://127.0.0.1:${emu.port}/v1`);
        expect(emu.exports.SVC_RUN_URL, where(c.command)).toBe(`http://127.0.0.1:${emu.port}/api/v2`);
        const requests = await fetch(`http://127.0.0.1:${emu.port}/_emulator/requests`);
        expect(requests.status, `${where(c.command)}: GET /_emulator/requests`).toBe(200);
      }
      if (rest.length === 0) return;
      const emu = emulatorFor(block.file);
      expect(emu, `${block.file}:${block.line}: no emulator started before this block, on its page or in the README (npx pulumi-svc-emulator)`).toBeDefined();
      await runCommands(block, rest, emu!, (note) => ctx.skip(note));
    });
  }

  // Stopped last: a documented --state file is written when the emulator stops.
  it("the emulators stop on SIGTERM (those started in the background too), writing their documented --state file", async () => {
    expect(emulators.length).toBeGreaterThan(0);
    for (const e of emulators) {
      expect(await stop(e), `${where(e.command)}: stopped within 10 s of SIGTERM`).toBe(true);
      await expect(fetch(`http://127.0.0.1:${e.port}/_emulator/requests`), `${where(e.command)}: port ${e.port} closed`).rejects.toThrow();
      if (e.state) expect(fs.existsSync(path.resolve(e.cwd, e.state)), `${where(e.command)}: ${e.state} after SIGTERM`).toBe(true);
    }
  });
});
