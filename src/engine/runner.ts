// One deployment, inside the child process started by cli.ts.
//
// PULUMI_CONFIG and PULUMI_CONFIG_SECRET_KEYS must be in the environment before
// @pulumi/pulumi is first loaded (its store reads them once), so cli.ts sets them and only
// then loads this file; nothing here imports @pulumi/pulumi at module level.
import * as path from "path";
import { Deployment } from "./deployment";
import { ProviderHost } from "./host";
import type { StackInfo } from "./analyzer";
import { Policies } from "./policies";
import type { HostPool } from "./reuse";
import { installEngine, loadPulumi } from "./monitor";
import { StackState, loadState, passphrase, saveState } from "./state";
import { Result, RunOptions, programDir } from "./types";
import { Json, PropertyMap, redact } from "./values";

/**
 * A program that runs in this process instead of `RunOptions.program` (pulumi-svc/testing): the
 * caller has put it in an async context of its own (the SDK's withLocalStorage), so setMocks and
 * the stack config reach only its registrations, and hands over the unhandled rejections of that
 * context through `listen`.
 */
export interface InlineProgram {
  program: () => unknown;
  listen(onRejection: (reason: unknown) => void): void;
}

/**
 * With `hosts` (pulumi-svc/testing), the provider host comes from that pool and goes back to it,
 * ready for the next deployment (src/engine/reuse.ts); without, one is started and ended here.
 */
export async function runOperation(opts: RunOptions, diagnostics: string[], inline?: InlineProgram, hosts?: HostPool): Promise<Result> {
  const project = opts.project ?? "project";
  const stack = opts.stack ?? "dev";
  const { state, box } = loadState(opts.state, passphrase());
  const config = { ...opts.config, ...opts.secretConfig };
  // The environment the engine gives the pulumi-nodejs plugin: its own, plus the project
  // name and the stack config as JSON (no secret-key list: the plugin sees plain values).
  const hostOptions = {
    cwd: opts.cwd,
    env: {
      ...opts.env,
      PULUMI_CONFIG: JSON.stringify(config),
      PULUMI_CONFIG_SECRET_KEYS: undefined,
      PULUMI_NODEJS_PROJECT: project,
      PULUMI_PROJECT: project,
      PULUMI_NODEJS_STACK: undefined,
      PULUMI_NODEJS_DRY_RUN: undefined,
    },
  };
  const host = hosts ? await hosts.acquire(hostOptions, config) : await ProviderHost.start(hostOptions);
  // A kept host has printed before: this deployment's diagnostics start here.
  const printed = host.stderr().length;
  let result: Result;
  let policies: Policies | undefined;
  try {
    if (!hosts) await host.configure(config);
    const preview = opts.operation === "preview";
    policies = await startPolicies(opts, { project, stack, organization: "organization", dryRun: preview, config, secretKeys: Object.keys(opts.secretConfig ?? {}) });
    const deployment = new Deployment(host, state, preview, policies, opts.replace);
    let outputs = state.outputs;
    let programError: string | undefined;
    if (opts.operation === "refresh") await deployment.refresh();
    else if (opts.operation === "destroy") {
      await deployment.destroy(opts.skipPreview);
      outputs = {};
    } else {
      const ran = await runProgram(opts, deployment, { project, stack, preview }, diagnostics, inline);
      programError = ran.error;
      if (ran.outputs) outputs = ran.outputs;
      if (!programError) await deployment.finish();
      if (!programError && !deployment.error) await policies?.stack((urn) => deployment.snapshot().find((r) => r.urn === urn && !r.delete)?.outputs);
    }
    const refused = policies?.failed ? `${preview ? "preview" : "update"} failed: a mandatory policy was violated` : undefined;
    const error = deployment.error ?? programError ?? refused;
    if (!preview) {
      const next: StackState = { resources: deployment.snapshot(), outputs: error && opts.operation === "up" ? state.outputs : outputs };
      saveState(opts.state, next, await box.ready(), { stack, project });
    }
    result = { operation: opts.operation, steps: deployment.steps, outputs: redact(outputs) as Record<string, Json>, diagnostics };
    if (policies) Object.assign(result, { policyViolations: policies.violations, policyRemediations: policies.remediations });
    if (error) result.error = error;
  } finally {
    await closePolicies(policies, diagnostics);
    if (hosts) await hosts.release(host, hostOptions);
    else await host.close();
    const text = host.stderr().slice(printed).trim();
    if (text) diagnostics.push(`provider host stderr:\n${text}`);
  }
  return result;
}

/** The policy packs of a preview or an update, started and configured; none for the other operations, as the CLI runs none. */
function startPolicies(opts: RunOptions, info: StackInfo): Promise<Policies | undefined> {
  if (!opts.policyPacks?.length || (opts.operation !== "preview" && opts.operation !== "up")) return Promise.resolve(undefined);
  return Policies.start(opts.policyPacks, info);
}

/** Ends the policy packs' analyzers, their output a diagnostic. */
async function closePolicies(policies: Policies | undefined, diagnostics: string[]): Promise<void> {
  await policies?.close();
  const packs = policies?.stderr().trim();
  if (packs) diagnostics.push(`policy pack stderr:\n${packs}`);
}

/** Loads the program under mocks wired to the deployment; returns its stack outputs. */
async function runProgram(
  opts: RunOptions,
  deployment: Deployment,
  monitorOpts: { project: string; stack: string; preview: boolean },
  diagnostics: string[],
  inline?: InlineProgram,
): Promise<{ outputs?: PropertyMap; error?: string }> {
  const programPath = opts.program && path.resolve(opts.program);
  const load = inline?.program ?? (programPath ? () => require(programPath) as unknown : undefined);
  if (!load) return { error: "no --program given" };
  const { pulumi, dir } = loadPulumi(programDir(opts));
  await installEngine(pulumi, dir, deployment, { ...monitorOpts, organization: "organization", holdFailed: inline !== undefined });

  // Under the real language host an unhandled rejection ends the program, and a failed step
  // makes the engine stop: either way nothing more is waited for (a resource whose dependency
  // failed would otherwise wait forever on the dependency's URN).
  const rejections: string[] = [];
  let stop!: () => void;
  const stopped = new Promise<"stopped">((resolve) => (stop = () => resolve("stopped")));
  const onRejection = (e: unknown): void => {
    rejections.push(e instanceof Error ? e.message : String(e));
    stop();
  };
  if (inline) inline.listen(onRejection);
  else process.on("unhandledRejection", onRejection);
  void deployment.stopped.then(stop);

  const settings = require(path.join(dir, "runtime/settings")) as { waitForRPCs(): Promise<void> };
  const program = (async (): Promise<PropertyMap> => {
    let exported: unknown = load();
    // As the Node.js language host does: an exported function is the program, its result the outputs.
    if (typeof exported === "function") exported = await (exported as () => unknown)();
    else if (exported && typeof (exported as PromiseLike<unknown>).then === "function") exported = await exported;
    const outputs = (await pulumi.runtime.serializeProperties("stack outputs", (exported ?? {}) as Record<string, unknown>)) as PropertyMap;
    // Let every registration the program started reach the deployment.
    await settings.waitForRPCs();
    return outputs;
  })();
  program.catch(() => undefined); // its failure is read through the race below
  let outputs: PropertyMap | undefined;
  let error: string | undefined;
  try {
    const ended = await Promise.race([program, stopped]);
    if (ended !== "stopped") outputs = ended;
  } catch (e) {
    error = `program failed: ${e instanceof Error ? e.message : String(e)}`;
  }
  await deployment.close();
  await new Promise((resolve) => setImmediate(resolve));
  // The handler stays: rejections that come after this (outputs of dropped registrations) must
  // not crash the process before it reports.
  const seen = [...new Set(rejections.splice(0))];
  for (const m of seen) diagnostics.push(`error: ${m}`);
  if (error) diagnostics.push(`error: ${error}`);
  else if (seen.length > 0 && !deployment.failed) error = `program failed: ${seen[0]}`;
  return { outputs, error };
}
