#!/usr/bin/env node
import * as fs from "node:fs";
import { runCommand, UsageError } from "../core/command";
import { DRIFT_COMMAND } from "./drift";
import { review } from "./review";

const USAGE = `Usage: pulumi-svc-review [--full] [--fail-on-risk] [--drift] [--policy EVENTS [--fail-on-policy]] [FILE]

Reads the output of \`pulumi preview --json\` from FILE (or standard input when FILE is
absent or -) and writes a Markdown review of the plan to standard output: a summary with every
replacement and delete, then each changed resource's changed properties, old → new. Secret
values are never printed. The review stays within 65,536 characters (a GitHub comment).
Changes that lose or strand data are listed first, under "Data at risk". With --drift, given
the output of \`${DRIFT_COMMAND.replace(" > drift.json", "")}\`, it reviews drift instead: what
changed on the servers outside Pulumi, old → new (the output of \`pulumi refresh --preview-only
--json\` and an engine event log of a refresh are reviewed as drift always).
A preview that failed is reviewed with its errors first, and the command exits 3.
Input that is not a preview exits 1, a wrong option 2.
  --full           list unchanged properties too
  --fail-on-risk   exit 3 when any change puts data at risk (the review is printed all the same)
  --drift          review what the refresh of \`pulumi preview --refresh\` found, not the plan
  --policy EVENTS  the event log of the same preview run with --policy-pack (\`--event-log EVENTS\`,
                   with PULUMI_DEBUG_COMMANDS=true): its policy violations, mandatory first, and
                   remediations are reviewed too (the --json output carries none)
  --fail-on-policy exit 3 when a policy is violated, advisory ones included (a mandatory one
                   fails the preview, and so the review, anyway)
  --help           show this text`;


export interface ReviewArgs { full: boolean; failOnRisk: boolean; drift?: boolean; file?: string; policy?: string; failOnPolicy?: boolean }

export function parseArgs(argv: string[]): ReviewArgs | "help" {
  const args: ReviewArgs = { full: false, failOnRisk: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--help" || a === "-h") return "help";
    if (a === "--full") args.full = true;
    else if (a === "--fail-on-risk") args.failOnRisk = true;
    else if (a === "--drift") args.drift = true;
    else if (a === "--fail-on-policy") args.failOnPolicy = true;
    else if (a === "--policy") {
      args.policy = argv[++i];
      if (args.policy === undefined) throw new UsageError("--policy needs the event log of the preview (--event-log FILE)");
    }
    else if (a.startsWith("-") && a !== "-") throw new UsageError(`unknown option ${a}`);
    else if (args.file !== undefined) throw new UsageError(`one input file only, got ${args.file} and ${a}`);
    else args.file = a;
  }
  if (args.failOnPolicy && args.policy === undefined) throw new UsageError("--fail-on-policy needs --policy EVENTS: the preview's --json carries no policy violation");
  return args;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Exit status of a review of a preview that failed, or (with --fail-on-risk) that puts data at risk, or (with --fail-on-policy) that violates a policy. */
export const FAILED_PREVIEW = 3;

export async function main(argv: string[]): Promise<{ out: string; code: number }> {
  const args = parseArgs(argv);
  if (args === "help") return { out: `${USAGE}\n`, code: 0 };
  const text = args.file === undefined || args.file === "-" ? await readStdin() : fs.readFileSync(args.file, "utf8");
  const policyEvents = args.policy === undefined ? undefined : fs.readFileSync(args.policy, "utf8");
  const { text: out, failed, atRisk, violations } = await review(text, { full: args.full, drift: args.drift, ...(policyEvents !== undefined ? { policyEvents } : {}) });
  const violated = violations.mandatory + violations.advisory > 0;
  return { out, code: failed || (args.failOnRisk && atRisk > 0) || (args.failOnPolicy && violated) ? FAILED_PREVIEW : 0 };
}

if (require.main === module) runCommand("pulumi-svc-review", USAGE, () => main(process.argv.slice(2)));
