#!/usr/bin/env node
// Runs one engine-double operation in a fresh process (setMocks state is global per process
// and the program module must be evaluated anew for each run):
//
//   pulumi-svc-engine <preview|up|refresh|destroy>   (the package's bin; or node dist/src/engine/cli.js)
//   node cli.js <preview|up|refresh|destroy> --program <module.js> --state <file> --stack <name>
//     --project <name> --cwd <program dir> [--config k=v]... [--secret-config k=v]... [--json]
//
// Prints the Result as JSON (--json) or as a readable plan; exits 1 when the deployment failed.
import { spawnSync } from "child_process";
import * as path from "path";
import { deferSdkPackages, pulumiEntry } from "./deferred";
import { formatPlan } from "./plan";
import { cliArgs } from "./program";
import { Operation, Result, RunOptions, programDir, stoppedByPreview } from "./types";

const OPERATIONS: Operation[] = ["preview", "up", "refresh", "destroy"];

const USAGE = `Usage: pulumi-svc-engine <${OPERATIONS.join("|")}> --program <compiled program .js> --state <file.json>
         [--stack dev] [--project name] [--cwd <program dir>] [--config key=value]... [--secret-config key=value]...
         [--skip-preview] [--replace <urn>]... [--policy-pack DIR [--policy-pack-config FILE]]... [--json]

Runs a Pulumi program without the Pulumi CLI: the real @pulumi/pulumi dynamic-provider host driven over
gRPC the way the engine drives it. The state file is created on the first up. Secrets in it are
encrypted with PULUMI_CONFIG_PASSPHRASE (default "pulumi-svc-engine-double").

As with the Pulumi CLI, up previews first and changes nothing when the preview fails, and destroy
refuses a protected resource before deleting anything; --skip-preview does neither. A preview or up
runs each --policy-pack as the CLI does (its n-th --policy-pack-config configures the n-th pack).`;

export function parseArgs(argv: string[]): { options: RunOptions; json: boolean } | "help" {
  if (argv.includes("--help") || argv.includes("-h")) return "help";
  const [op, ...rest] = argv;
  if (!OPERATIONS.includes(op as Operation)) throw new Error(op === undefined ? USAGE : `unknown operation ${op}\n${USAGE}`);
  const options: RunOptions = { operation: op as Operation, state: "", cwd: process.cwd(), config: {}, secretConfig: {} };
  let json = false;
  const configs: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const flag = rest[i]!;
    if (flag === "--json" || flag === "--skip-preview") {
      if (flag === "--json") json = true;
      else options.skipPreview = true;
      continue;
    }
    const value = rest[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === "--program") options.program = value;
    else if (flag === "--state") options.state = value;
    else if (flag === "--stack") options.stack = value;
    else if (flag === "--project") options.project = value;
    else if (flag === "--cwd") options.cwd = path.resolve(value);
    else if (flag === "--replace") (options.replace ??= []).push(value);
    else if (flag === "--config" || flag === "--secret-config") {
      const eq = value.indexOf("=");
      if (eq <= 0) throw new Error(`${flag} expects key=value, got ${value}`);
      const target = flag === "--config" ? options.config! : options.secretConfig!;
      target[value.slice(0, eq)] = value.slice(eq + 1);
    } else if (flag === "--policy-pack") (options.policyPacks ??= []).push({ dir: path.resolve(value) });
    // An empty one keeps a pack without config in its place.
    else if (flag === "--policy-pack-config") configs.push(value === "" ? "" : path.resolve(value));
    else throw new Error(`unknown option ${flag}`);
  }
  if (configs.length > (options.policyPacks?.length ?? 0)) throw new Error("each --policy-pack-config configures the --policy-pack of its place: more configs than packs");
  configs.forEach((c, n) => {
    if (c) options.policyPacks![n]!.config = c;
  });
  if (!options.state) throw new Error("--state is required");
  return { options, json };
}

/** Sets what the Node.js language host would set before the program's first require. */
function programEnvironment(o: RunOptions): void {
  process.env.PULUMI_CONFIG = JSON.stringify({ ...o.config, ...o.secretConfig });
  process.env.PULUMI_CONFIG_SECRET_KEYS = JSON.stringify(Object.keys(o.secretConfig ?? {}));
  process.env.PULUMI_NODEJS_PROJECT = o.project ?? "project";
  process.env.PULUMI_NODEJS_STACK = o.stack ?? "dev";
  process.env.PULUMI_NODEJS_DRY_RUN = String(o.operation === "preview");
}

async function main(argv: string[]): Promise<number> {
  const write = process.stdout.write.bind(process.stdout);
  let parsed: Exclude<ReturnType<typeof parseArgs>, "help">;
  try {
    const args = parseArgs(argv);
    // Asked for, the usage is the answer: standard output, success.
    if (args === "help") {
      await new Promise<void>((resolve) => write(`${USAGE}\n`, () => resolve()));
      return 0;
    }
    parsed = args;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  const options = parsed.options;
  // As `pulumi up`: the preview runs first, in a fresh process (the program is evaluated anew),
  // and a failed preview ends the operation before any change.
  const preview = options.operation === "up" && !options.skipPreview ? previewFirst(options) : undefined;
  if (preview?.error) {
    const result = stoppedByPreview(preview);
    const text = parsed.json ? JSON.stringify(result) : formatPlan(result);
    await new Promise<void>((resolve) => process.stdout.write(`${text}\n`, () => resolve()));
    return 1;
  }
  programEnvironment(options);
  // Whatever the program prints is a diagnostic; stdout carries only our result.
  const diagnostics: string[] = [];
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    const text = String(chunk).replace(/\n$/, "");
    if (text) diagnostics.push(text);
    const cb = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    cb?.();
    return true;
  }) as typeof process.stdout.write;
  let result: Result;
  try {
    // Before the SDK's first load: what a program never runs of it waits until touched. An SDK not
    // to be found fails the run here, as loading it would have.
    deferSdkPackages(path.dirname(pulumiEntry(programDir(options))));
    if (options.program?.endsWith(".ts")) (await import("./typescript")).registerTypeScript(programDir(options));
    const { runOperation } = await import("./runner");
    result = await runOperation(parsed.options, diagnostics);
  } catch (e) {
    result = { operation: parsed.options.operation, steps: [], outputs: {}, diagnostics, error: (e as Error).stack ?? String(e) };
  }
  const text = parsed.json ? JSON.stringify(result) : formatPlan(result);
  await new Promise<void>((resolve) => write(`${text}\n`, () => resolve()));
  return result.error ? 1 : 0;
}

/** Runs `preview` with the same options in a child of this process group (a timeout's kill reaches it). */
function previewFirst(o: RunOptions): Result {
  const child = spawnSync(process.execPath, [__filename, ...cliArgs({ ...o, operation: "preview" })], {
    cwd: o.cwd, env: process.env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024,
  });
  try {
    return JSON.parse(child.stdout) as Result;
  } catch {
    return { operation: "preview", steps: [], outputs: {}, diagnostics: [child.stderr], error: `the preview exited with code ${child.status} without a result` };
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
