// Shapes shared by the engine double's parent side (program.ts) and child side (cli.ts).
import * as path from "path";
import type { Json } from "./values";

export type Operation = "preview" | "up" | "refresh" | "destroy";

/**
 * As the engine names its steps. A read resource (`get`, `id` in the options) is read on every
 * preview and `up` (`read`), and left out of the state without a delete once the program no longer
 * declares it (`discard`).
 */
export type StepOp = "create" | "update" | "replace" | "delete" | "same" | "refresh" | "read-gone" | "read" | "discard";

export interface Step {
  op: StepOp;
  urn: string;
  type: string;
  name: string;
  /**
   * Top-level input keys that differ (update/replace); of a refresh, the input keys the read
   * changed, where the provider's diff finds a change (the engine's rule for a refresh's update).
   */
  changedKeys?: string[];
  /** Keys the provider said force a replacement. */
  replaceKeys?: string[];
  /** Set on a replace: true when the old object was deleted before the new one was created. */
  deleteBeforeReplace?: boolean;
  /** The step failed; the deployment stopped after it. */
  error?: string;
}

/** A policy violation, as the engine reports it. */
export interface PolicyViolation {
  policyName: string;
  policyPackName: string;
  policyPackVersion: string;
  /** `mandatory` fails the operation; `advisory` warns. */
  enforcementLevel: "advisory" | "mandatory";
  /** The policy's description, then the message it reported (as CrossGuard joins them). */
  message: string;
  /** The resource it is about (the stack's own URN for a stack policy that named none). */
  urn: string;
  /** That resource's name. */
  name: string;
  severity?: string;
}

/** A remediation a policy made to a resource's inputs before the engine used them. */
export interface PolicyRemediation {
  policyName: string;
  policyPackName: string;
  policyPackVersion: string;
  urn: string;
  name: string;
  /** The top-level inputs it changed. */
  changed: string[];
}

/** A pack to run: its folder, and its config file (`--policy-pack-config`). */
export interface PolicyPackOption { dir: string; config?: string }

export interface Result {
  operation: Operation;
  steps: Step[];
  /** Stack outputs (the program's exports); secrets shown as "[secret]", unknowns as UNKNOWN. */
  outputs: Record<string, Json>;
  /** Program console output, provider host stderr, warnings and errors. */
  diagnostics: string[];
  /** Set when the deployment failed (a step, the program or the host). */
  error?: string;
  /** With policy packs: the violations the engine reported, in the order it met them. */
  policyViolations?: PolicyViolation[];
  /** With policy packs: the remediations the packs made to resources' inputs. */
  policyRemediations?: PolicyRemediation[];
}

/** What an up whose preview failed gives, as `pulumi up`: the preview's steps and diagnostics, nothing changed. */
export function stoppedByPreview(preview: Result): Result {
  return { ...preview, operation: "up", outputs: {}, error: `preview failed: ${preview.error}` };
}

export interface RunOptions {
  operation: Operation;
  /** Compiled CommonJS module of the Pulumi program. */
  program?: string;
  /** State file (JSON); absent means an empty stack. */
  state: string;
  stack?: string;
  project?: string;
  /** Program directory: the host's require() of serialized providers resolves from here. */
  cwd: string;
  /** Plain stack config, namespaced keys ("svc:runUrl"). */
  config?: Record<string, string>;
  /** Secret stack config; the program sees these as secrets, the provider as plain values. */
  secretConfig?: Record<string, string>;
  /** Extra environment for the child process and the provider host; an undefined value removes the variable. */
  env?: Record<string, string | undefined>;
  /** Kill the run after this long (default: no limit). */
  timeoutMs?: number;
  /**
   * As the CLI's --skip-preview. Without it, `up` previews first (in a process of its own) and
   * changes nothing when the preview fails, and `destroy` refuses a protected resource before
   * deleting anything, as `pulumi up` and `pulumi destroy` do. With it, `up` goes straight to the
   * update, and `destroy` deletes all but a protected resource and what it depends on.
   */
  skipPreview?: boolean;
  /**
   * As the CLI's --replace (and --target-replace, a tainted resource): URNs the engine replaces
   * though nothing changed. It checks them without their old inputs and asks no diff, so their
   * order comes from the deleteBeforeReplace option alone (create first when it is unset).
   */
  replace?: string[];
  /** Policy packs to run, as the CLI's --policy-pack (and --policy-pack-config) do: preview and up only. */
  policyPacks?: PolicyPackOption[];
}

/** The folder a run's program resolves its packages from: the program file's, else the working directory. */
export function programDir(o: RunOptions): string {
  return o.program ? path.dirname(path.resolve(o.program)) : o.cwd;
}
