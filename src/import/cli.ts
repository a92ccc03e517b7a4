#!/usr/bin/env node
/**
 * pulumi-svc-import: reads every object of both services and writes the Pulumi program that takes
 * them over (docs/adopting.md). Reads only; writes two files.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ConfigError, serviceSettings, SETTINGS, type ConfigSource } from "../core/config";
import { readOptions, runCommand, UsageError } from "../core/command";
import { makeContext } from "../core/context";
import { nearest } from "../core/validate";
import { isSvcError, type Service } from "../http";
import { closeAgents } from "../http";
import { PLACEHOLDER, writeProgram } from "./program";
import { oneLine } from "../core/text";
import { seedText } from "./seed";
import { engineMounts, NotTheService, walk, type Scope } from "./walk";

const USAGE = `Usage: pulumi-svc-import [--workspace ID ...] [--mount ENGINE=PATH ...] [--out DIR] [--seed FILE] [--force]

Reads every object of every kind this package manages from the servers that the settings
name (SVC_SECRETS_URL and SVC_SECRETS_TOKEN, SVC_RUN_URL and SVC_RUN_TOKEN, or the svc:* keys
of a stack's config in those variables' place), and writes DIR/index.ts: a Pulumi program
declaring each object with the values read back, taking each over on the first pulumi up
(adopt or adoptId). Values the servers never return (tokens, passwords, credentials) and
secrets they do return (a dual-factor method's keys), which the import writes into no file,
are read from stack config: DIR/pulumi-config.sh holds the pulumi config set lines to fill in.
It never writes to a server. It stops, writing nothing, when a URL is not its service or a
service refuses the token on every request; kinds a token may not read are named and left out.
  --workspace ID   a run-service workspace whose notification configurations to import
                   (the service has no list of workspaces); repeat for more
  --mount E=PATH   walk the engine whose default mount is E (transform, keymgmt, directory,
                   registry) at PATH too (refused when no such engine is mounted there); repeat
                   for more
  --out DIR        where to write (default: the current folder)
  --seed FILE      also write FILE: every object read, by kind and id, with its values and no
                   secret, for a test of the program to seed its emulator with (testStack's seed)
  --force          overwrite DIR/index.ts, DIR/pulumi-config.sh and the seed file when they exist
  --help           show this text`;


export interface ImportArgs { workspaces: string[]; mounts: Record<string, string[]>; out: string; force: boolean; seed?: string }

/** The engine names `--mount` takes are checked by main, which loads the kinds that declare them. */
export function parseArgs(argv: string[]): ImportArgs | "help" {
  const args: ImportArgs = { workspaces: [], mounts: {}, out: ".", force: false };
  return readOptions(argv, ["--workspace", "--mount", "--out", "--seed", "--force"], (option, value) => {
    if (option === "--workspace") args.workspaces.push(value());
    else if (option === "--out") args.out = value();
    else if (option === "--seed") args.seed = value();
    else if (option === "--force") args.force = true;
    else {
      const m = /^([\w-]+)=([\w-]+(?:\/[\w-]+)*)$/.exec(value());
      if (!m) throw new UsageError(`--mount takes ENGINE=PATH, such as transform=transform-eu`);
      const mounts = (args.mounts[m[1]!] ??= [m[1]!]);
      if (!mounts.includes(m[2]!)) mounts.push(m[2]!);
    }
  }) ?? args;
}

/** `--mount` naming an engine the kinds do not know (a misspelling walks nothing, silently). */
async function checkMounts(mounts: Readonly<Record<string, readonly string[]>>): Promise<void> {
  const engines = await engineMounts();
  for (const [engine, paths] of Object.entries(mounts)) {
    if (engines.includes(engine)) continue;
    const near = nearest(engine, engines);
    throw new UsageError(`--mount ${engine}=${paths[paths.length - 1]}: ${engine} is not an engine${near ? `; did you mean ${near}?` : ""} (the engines: ${engines.join(", ")})`);
  }
}

/** A refused token, an unknown workspace or a URL that is not its service, said with the setting to look at. */
function explain(e: unknown, env: NodeJS.ProcessEnv): Error {
  if (e instanceof NotTheService) {
    const url = SETTINGS[serviceSettings(e.service).url];
    return new Error(`${url.env} (${oneLine(env[url.env] ?? "")}) is not the ${e.service === "runs" ? "run" : "secrets"} service: ${e.answer}; ` +
      `give the ${url.about} (${url.example})`);
  }
  if (!isSvcError(e)) return e as Error;
  const service = e.service as Service;
  const token = serviceSettings(service).token;
  if (e.code === "forbidden") return new Error(`the ${service === "runs" ? "run" : "secrets"} service refused the token: ${e.message}`);
  if (e.code === "not_found" && service === "runs") {
    return new Error(`${e.message}: the run service answers 404 for a workspace that does not exist or that the token may not see; check --workspace and ${SETTINGS[token].env}`);
  }
  return e;
}

/**
 * Runs the import; `env` holds the settings (the process's environment unless given), `log` gets
 * the progress lines (standard error unless given).
 */
export async function main(argv: string[], log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
  env: NodeJS.ProcessEnv = process.env): Promise<{ out: string; code: number }> {
  const args = parseArgs(argv);
  if (args === "help") return { out: `${USAGE}\n`, code: 0 };
  await checkMounts(args.mounts);
  const files = { program: path.join(args.out, "index.ts"), script: path.join(args.out, "pulumi-config.sh"), ...(args.seed ? { seed: args.seed } : {}) };
  if (!args.force) {
    for (const f of Object.values(files)) if (fs.existsSync(f)) throw new UsageError(`${f} exists: give --force to overwrite it, or another --out`);
  }
  const urlOf = (service: Service) => env[SETTINGS[serviceSettings(service).url].env] || undefined;
  const secretsUrl = urlOf("secrets");
  const runUrl = urlOf("runs");
  if (!secretsUrl && !runUrl) throw new ConfigError(`neither ${SETTINGS.secretsUrl.env} nor ${SETTINGS.runUrl.env} is set: name the servers to import from`);
  if (args.workspaces.length && !runUrl) throw new ConfigError(`--workspace needs the run service: ${SETTINGS.runUrl.env} is not set`);
  const scope: Scope = { workspaces: args.workspaces, mounts: args.mounts };
  const settingOf = (key: string) => Object.values(SETTINGS).find((x) => x.key === key);
  const source: ConfigSource = (key) => env[settingOf(key)?.env ?? ""] || undefined;
  // Messages name where a value came from: here always a variable, never a stack's config.
  source.origin = (key) => (settingOf(key) ? `environment variable ${settingOf(key)!.env}` : undefined);
  const ctx = makeContext(source);
  log(`pulumi-svc-import: reading ${[secretsUrl, runUrl].filter(Boolean).join(" and ")}`);
  let walked;
  try {
    walked = await walk(ctx, scope, (line) => log(`pulumi-svc-import: ${line}`), { runs: runUrl !== undefined, secrets: secretsUrl !== undefined });
  } catch (e) {
    throw explain(e, env);
  }
  const written = await writeProgram(walked.found, { secretsUrl, runUrl, workspaces: args.workspaces });
  fs.mkdirSync(args.out, { recursive: true });
  fs.writeFileSync(files.program, written.program);
  fs.writeFileSync(files.script, written.script);
  if (files.seed) fs.writeFileSync(files.seed, seedText(walked.found, [secretsUrl, runUrl].filter(Boolean).join(" and "), args.workspaces));
  for (const s of walked.skipped) log(`pulumi-svc-import: not imported: ${s.kind}: ${oneLine(s.why)}`);
  // Kinds the token may not read are not in the program: said with the result, not only among the progress lines.
  const refused = walked.skipped.filter((s) => s.refused).map((s) => s.kind);
  const lines = [
    walked.found.length === 0
      ? `Nothing found on the servers: ${files.program} declares no object.`
      : `Wrote ${files.program}: ${walked.found.length} object${walked.found.length === 1 ? "" : "s"} to take over.`,
    ...(files.seed ? [`Wrote ${files.seed}: what was read, for a test of the program (testStack({ seed: ${JSON.stringify(files.seed)} }), docs/testing.md).`] : []),
    ...(refused.length ? [`Not read, the token may not read them (the lines above say why): ${refused.join(", ")}; their objects are not in the program.`] : []),
    `Before pulumi up, replace each ${PLACEHOLDER} in ${files.script} and run it (bash ${files.script}); it sets:`,
    written.settings.split("\n").filter((l) => l !== "").map((l) => `  ${l}`).join("\n"),
  ];
  return { out: `${lines.join("\n")}\n`, code: 0 };
}

if (require.main === module) runCommand("pulumi-svc-import", USAGE, () => main(process.argv.slice(2)).finally(closeAgents));
