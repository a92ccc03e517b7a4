#!/usr/bin/env node
/**
 * pulumi-svc-recover: after a `pulumi up` stopped while a create was in flight (a CI job cancelled
 * or killed), records in the stack what each such create made on the servers, so the next `up`
 * neither makes it again nor stops on it (docs/behaviour.md, "When a deploy is cancelled").
 */
import { spawnSync } from "node:child_process";
import { readOptions, runCommand } from "../core/command";
import { leftoversAt } from "../core/connected";
import { closeAgents, registerSecret } from "../http";
import { kindDefinition } from "../kinds";
import type { ConfigSource } from "../core/config";
import { settle, settleCleared, type Deployment, type Finder, type PlannedCreate } from "./pending";

const USAGE = `Usage: pulumi-svc-recover [--stack NAME] [--cwd DIR] [--cleared]

Run in a Pulumi project after a pulumi up was stopped (a CI job cancelled, a runner killed)
while it created objects of this package, once the stack's lock is gone (pulumi cancel).
For each create the stack still lists as pending (pulumi stack export), it asks the servers
what the create made: the one object that was not there before it (the create's check
recorded what was) and that no resource of the stack holds. That object is recorded as the
resource (pulumi stack import), and the next pulumi up completes it; a create that made
nothing is dropped, and the next pulumi up creates it. Nothing is ever written to a server,
and an object that was there before is never recorded. It uses the pulumi on PATH and the
stack's config (svc:* keys, else the SVC_* variables) to reach the servers.

With --cleared, for a stack whose pending creates were cleared since (pulumi refresh
--clear-pending-creates, or the interactive refresh's "clear"): that dropped every record of
what the stopped pulumi up made, so nothing can tell its objects from others any more, and you
say which way it was. It previews the program (pulumi preview) and records, for each create
the next pulumi up would refuse, the one object of the server that the create would duplicate
(or the one at its path) and that no resource of the stack holds; the next pulumi up completes
it. Two such objects are said, not taken. Use it only for objects a stopped pulumi up made.
  --stack NAME   the stack (default: the current one)
  --cwd DIR      the project's folder (default: the current one)
  --cleared      the stopped up's pending creates were cleared (see above)
  --help         show this text`;

export interface RecoverArgs { stack?: string; cwd?: string; cleared?: boolean }

export function parseArgs(argv: string[]): RecoverArgs | "help" {
  const args: RecoverArgs = {};
  const rest = argv.filter((a) => a !== "--cleared");
  if (rest.length < argv.length) args.cleared = true;
  return readOptions(rest, ["--stack", "--cwd"], (option, value) => {
    if (option === "--stack") args.stack = value();
    else args.cwd = value();
  }) ?? args;
}

/** Runs `pulumi <args>` with `input` on standard input: its standard output, or an error with its last line. */
export type Pulumi = (args: string[], input?: string) => string;

const pulumiOnPath = (cwd: string | undefined): Pulumi => (args, input) => {
  const r = spawnSync("pulumi", [...args, "--non-interactive"], { cwd, input, encoding: "utf8", maxBuffer: 1 << 30 });
  if (r.error) throw new Error(`could not run pulumi (${r.error.message}): put the Pulumi CLI on PATH`);
  if (r.status !== 0) {
    const said = `${r.stderr}\n${r.stdout}`.split("\n").map((l) => l.trim()).filter(Boolean).find((l) => /error/i.test(l)) ?? `exit ${r.status}`;
    throw new Error(`pulumi ${args.filter((a) => a !== "--show-secrets").join(" ")} failed: ${said}`);
  }
  return r.stdout;
};

/** The stack's config as the provider sees it: `pulumi config --json --show-secrets`, secrets registered for redaction. */
function stackConfig(pulumi: Pulumi, stack: string[]): ConfigSource {
  const values = JSON.parse(pulumi(["config", "--json", "--show-secrets", ...stack])) as Record<string, { value?: unknown; secret?: boolean }>;
  for (const v of Object.values(values)) if (v.secret && typeof v.value === "string") registerSecret(v.value);
  const source: ConfigSource = (key) => {
    const v = values[key]?.value;
    return v === undefined || v === null ? undefined : String(v);
  };
  source.origin = (key) => (values[key] !== undefined ? `stack config ${key}` : undefined);
  return source;
}

/** What each kind's objects a create may have made are, and whether its ids are paths (src/core/leftovers.ts). */
function finder(source: ConfigSource): Finder {
  return async (kind, inputs) => {
    const def = await kindDefinition(kind);
    return def ? { ids: await leftoversAt(def, source, inputs), byPath: def.path !== undefined } : "unknown kind";
  };
}

/** The creates the next up plans, from `pulumi preview --json` (which shows no secret value). */
function plannedCreates(run: Pulumi, stack: string[]): PlannedCreate[] {
  const text = run(["preview", "--json", ...stack]);
  return ((JSON.parse(text) as { steps?: PlannedCreate[] }).steps ?? []);
}

const NOTHING = "No create was left pending: nothing to recover. If a pulumi up that was stopped made an object and its pending " +
  "create was cleared since (pulumi refresh --clear-pending-creates), run npx pulumi-svc-recover --cleared.\n";

export async function main(argv: string[], pulumi?: Pulumi): Promise<{ out: string; code: number }> {
  const args = parseArgs(argv);
  if (args === "help") return { out: `${USAGE}\n`, code: 0 };
  const run = pulumi ?? pulumiOnPath(args.cwd);
  const stack = args.stack ? ["--stack", args.stack] : [];
  const exported = (show: boolean) => (JSON.parse(run(["stack", "export", ...(show ? ["--show-secrets"] : []), ...stack])) as { version: number; deployment: Deployment });
  const sealed = exported(false);
  const creates = (sealed.deployment.pending_operations ?? []).filter((op) => op.type === "creating");
  if (creates.length === 0 && !args.cleared) return { out: NOTHING, code: 0 };
  const source = stackConfig(run, stack);
  const { deployment, outcomes } = creates.length > 0
    ? await settle(sealed.deployment, exported(true).deployment, finder(source))
    : await settleCleared(sealed.deployment, plannedCreates(run, stack), finder(source));
  if (deployment) run(["stack", "import", ...stack], JSON.stringify({ ...sealed, deployment }));
  const kept = outcomes.filter((o) => o.what === "kept").length;
  const lines = [...outcomes.map((o) => o.why),
    deployment ? "The stack records this now; run pulumi up." : outcomes.length > 0 ? "The stack is unchanged." : "No create of the program meets an object it would duplicate: nothing to recover."];
  return { out: `${lines.join("\n")}\n`, code: kept > 0 ? 1 : 0 };
}

if (require.main === module) runCommand("pulumi-svc-recover", USAGE, () => main(process.argv.slice(2)).finally(closeAgents));
