// `engine: "cli"`: the same calls through the real Pulumi CLI, by the Automation API with an inline
// program, on a file backend in the stack's folder with every network feature off. What testStack
// reports comes from the engine's events, as the double's comes from its steps: one step a
// resource (a replacement's three events are one `replace`), the stack and provider resources left
// out, and a failure's one line from the failed resource's error diagnostic.
import * as fs from "node:fs";
import * as path from "node:path";
import type * as auto from "@pulumi/pulumi/automation";
import type { Operation, PolicyPackOption, PolicyRemediation, PolicyViolation, StepOp } from "../engine/types";
import type { Outcome, StackStep } from "./types";
import { isProviderUrn, isStackUrn, urnName } from "../core/urn";

export interface CliOptions {
  /** The stack's folder: backend, PULUMI_HOME and the workspace live under it. */
  dir: string;
  project: string;
  stack: string;
  /** Where `@pulumi/pulumi` and `pulumi-svc` resolve from. */
  cwd: string;
  /** The bin folder of a Pulumi installation (holding `pulumi`); else the `pulumi` on PATH. */
  cli?: string;
  program: () => unknown;
  /** Policy packs that preview and up run (`policyPacks` and `policyPackConfigs` of the Automation API). */
  policyPacks?: PolicyPackOption[];
}

const REPLACE_OPS = new Set(["replace", "create-replacement", "delete-replaced", "discard-replaced"]);

export class CliEngine {
  private stack?: Promise<auto.Stack>;
  private readonly automation: typeof auto;
  private readonly sdkDir: string;

  constructor(private readonly o: CliOptions) {
    const entry = require.resolve("@pulumi/pulumi/automation", { paths: [o.cwd] });
    this.automation = require(entry) as typeof auto;
    this.sdkDir = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [o.cwd] }));
  }

  setProgram(program: () => unknown): void {
    this.o.program = program;
  }

  /** The URNs of the resources the stack holds. */
  async urns(): Promise<string[]> {
    const stack = await (this.stack ??= this.open());
    return ((await stack.exportStack()).deployment?.resources ?? []).map((r: { urn: string }) => r.urn);
  }

  async run(operation: Operation, config: Record<string, string>, secretConfig: Record<string, string>, replace: string[] = []): Promise<Outcome> {
    const stack = await (this.stack ??= this.open());
    const values: auto.ConfigMap = {};
    for (const [k, v] of Object.entries(config)) values[k] = { value: v };
    for (const [k, v] of Object.entries(secretConfig)) values[k] = { value: v, secret: true };
    await stack.setAllConfig(values);
    const events: auto.EngineEvent[] = [];
    const onEvent = (e: auto.EngineEvent) => void events.push(e);
    let outputs: auto.OutputMap | undefined;
    let failure: unknown;
    const packs = this.o.policyPacks ?? [];
    // The Automation API pairs configs with packs by place; a pack without one gets none.
    const policy = packs.length ? { policyPacks: packs.map((p) => p.dir), ...(packs.some((p) => p.config) ? { policyPackConfigs: packs.map((p) => p.config ?? "") } : {}) } : {};
    try {
      if (operation === "up") outputs = (await stack.up({ onEvent, replace, ...policy })).outputs;
      else if (operation === "preview") await stack.preview({ onEvent, replace, ...policy });
      else if (operation === "refresh") await stack.refresh({ onEvent });
      else await stack.destroy({ onEvent });
    } catch (e) {
      failure = e;
    }
    const steps = stepsOf(events);
    const diagnostics = events.flatMap((e) => (e.diagnosticEvent && e.diagnosticEvent.severity !== "error" ? [e.diagnosticEvent.message.trimEnd()] : []));
    const outcome: Outcome = { steps, diagnostics, ...policyOutcome(events) };
    if (outputs) outcome.outputs = Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, { value: v.value as unknown, secret: v.secret }]));
    if (failure !== undefined) outcome.error = failureLine(events, steps, failure);
    return outcome;
  }

  private async open(): Promise<auto.Stack> {
    // The Automation API takes an installation's root and runs <root>/bin/pulumi.
    if (this.o.cli && (path.basename(this.o.cli) !== "bin" || !fs.existsSync(path.join(this.o.cli, "pulumi")))) {
      throw new Error(`testStack: cli must be the bin folder of a Pulumi installation, holding pulumi (got ${this.o.cli})`);
    }
    const command = await this.automation.PulumiCommand.get({ ...(this.o.cli ? { root: path.dirname(this.o.cli) } : {}), skipVersionCheck: true });
    const work = path.join(this.o.dir, "workspace");
    for (const d of [work, path.join(this.o.dir, "backend")]) fs.mkdirSync(d, { recursive: true });
    return this.automation.LocalWorkspace.createOrSelectStack(
      { projectName: this.o.project, stackName: this.o.stack, program: () => Promise.resolve(this.o.program()) as Promise<Record<string, unknown> | void> },
      {
        workDir: work,
        pulumiCommand: command,
        envVars: {
          PULUMI_BACKEND_URL: `file://${path.join(this.o.dir, "backend")}`,
          PULUMI_HOME: path.join(this.o.dir, "home"),
          PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? "pulumi-svc-testing",
          PULUMI_SKIP_UPDATE_CHECK: "true",
          PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
          // The dynamic-provider plugin ships in the SDK's folder; it runs the Node that runs this.
          PATH: [...(this.o.cli ? [this.o.cli] : []), this.sdkDir, path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter),
        },
      },
    );
  }
}

/** The engine's policy events: each violation (its message without the line end the engine adds), each remediation's changed inputs. */
function policyOutcome(events: auto.EngineEvent[]): Pick<Outcome, "policyViolations" | "policyRemediations"> {
  const policyViolations: PolicyViolation[] = [];
  const policyRemediations: PolicyRemediation[] = [];
  for (const e of events) {
    const v = e.policyEvent;
    if (v) {
      const urn = v.resourceUrn ?? "";
      policyViolations.push({ policyName: v.policyName, policyPackName: v.policyPackName, policyPackVersion: v.policyPackVersion, enforcementLevel: v.enforcementLevel === "mandatory" ? "mandatory" : "advisory", message: v.message.replace(/\n$/, ""), urn, name: urnName(urn) });
    }
    const r = (e as { policyRemediationEvent?: { resourceUrn: string; policyName: string; policyPackName: string; policyPackVersion: string; before?: Record<string, unknown>; after?: Record<string, unknown> } }).policyRemediationEvent;
    if (r) {
      const before = r.before ?? {};
      const after = r.after ?? {};
      const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !k.startsWith("__") && JSON.stringify(before[k]) !== JSON.stringify(after[k]));
      policyRemediations.push({ policyName: r.policyName, policyPackName: r.policyPackName, policyPackVersion: r.policyPackVersion, urn: r.resourceUrn, name: urnName(r.resourceUrn), changed });
    }
  }
  return { policyViolations, policyRemediations };
}

const skipped = (urn: string) => isStackUrn(urn) || isProviderUrn(urn);

/** One step a resource, in the order the engine started them. */
function stepsOf(events: auto.EngineEvent[]): StackStep[] {
  const byUrn = new Map<string, { metas: auto.StepEventMetadata[] }>();
  for (const e of events) {
    const m = e.resourcePreEvent?.metadata;
    if (!m || skipped(m.urn)) continue;
    const entry = byUrn.get(m.urn) ?? { metas: [] };
    entry.metas.push(m);
    byUrn.set(m.urn, entry);
  }
  return [...byUrn].map(([urn, { metas }]) => {
    const ops = metas.map((m) => m.op as string);
    const replaced = ops.some((op) => REPLACE_OPS.has(op));
    const main = metas.find((m) => (replaced ? m.op === "replace" : true)) ?? metas[0]!;
    const deleted = ops.indexOf("delete-replaced");
    const created = ops.indexOf("create-replacement");
    return {
      op: (replaced ? "replace" : main.op) as StepOp,
      name: urnName(urn),
      type: main.type,
      urn,
      changed: main.op === "update" || replaced ? changedInputs(main) : [],
      replaceReasons: replaced ? [...(main.keys ?? [])] : [],
      deleteBeforeReplace: replaced && deleted >= 0 && created >= 0 && deleted < created,
    };
  });
}

/**
 * The top-level inputs that differ between the old and new state: a dynamic provider's diff
 * reaches the engine without the keys that changed (`diffs` is empty), so the CLI's display, like
 * the double, compares the inputs.
 */
function changedInputs(m: auto.StepEventMetadata): string[] {
  const olds = m.old?.inputs ?? {};
  const news = m.new?.inputs ?? {};
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  keys.delete("__provider");
  return [...keys].filter((k) => JSON.stringify(olds[k]) !== JSON.stringify(news[k])).sort();
}

/** The one line: the first error diagnostic of a resource, as the double words it; else the first error. */
function failureLine(events: auto.EngineEvent[], steps: StackStep[], failure: unknown): string {
  const errors = events.flatMap((e) => (e.diagnosticEvent?.severity === "error" ? [e.diagnosticEvent] : []));
  const own = errors.find((d) => d.urn && !skipped(d.urn));
  const first = (text: string) => text.trim().split("\n")[0]!.trim();
  if (own) {
    const message = first(own.message);
    // A check failure of a top-level property: the CLI prints its value, which may be a secret's;
    // the line names the property as it does for a nested one, and as the double does.
    const top = /^(.* resource '[^']*'): property (\S+) value \{.*\} has a problem: (.*)$/.exec(message);
    if (top) return `${top[1]} has a problem: ${top[2]}: ${top[3]}`;
    if (/ resource '[^']*' has a problem: /.test(message)) return message;
    const step = steps.find((s) => s.urn === own.urn);
    return `${step?.op ?? "update"} ${urnName(own.urn!)}: ${message}`;
  }
  if (errors[0]) return first(errors[0].message);
  return first(failure instanceof Error ? failure.message : String(failure));
}
