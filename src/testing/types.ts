// The shapes testStack returns, shared by its two engines (the double, index.ts; the CLI, cli.ts).
import type { PolicyRemediation, PolicyViolation, StepOp } from "../engine/types";

export type { PolicyRemediation, PolicyViolation } from "../engine/types";

/** One planned or performed step. */
export interface StackStep {
  /**
   * What the step does: `create`, `update`, `replace`, `delete`, `same`; of a refresh, `refresh` or
   * `read-gone`; of a read resource (`get`), `read`, and `discard` once the program drops it.
   */
  op: StepOp;
  /** The resource's name, as the program gave it. */
  name: string;
  /** The resource's type token (`pulumi-nodejs:dynamic/secrets:TransformTemplate`). */
  type: string;
  /** The resource's URN. */
  urn: string;
  /** Top-level input properties that change (an update or replace; of a refresh, what the read changed). */
  changed: string[];
  /** The properties that force the replacement (a replace only). */
  replaceReasons: string[];
  /** A replace: true when the old object is deleted before the new one is created (the identity is reused). */
  deleteBeforeReplace: boolean;
  /** The step failed with this message. */
  error?: string;
}

/** Operations per kind (`{ create: 3 }`, `{ same: 3 }`), as the Automation API's change summary. */
export type ChangeSummary = Partial<Record<StepOp, number>>;

/** A stack output: its value, readable in the test, and whether the engine keeps it as a secret. */
export interface OutputValue {
  /** The value, a secret's in plain text (for the test; the state keeps it encrypted). */
  value: unknown;
  /** True when the engine keeps the output as a secret. */
  secret: boolean;
}

/** What an operation planned or did. */
export interface PreviewResult {
  /** Steps per operation (`{ create: 3 }`). */
  changes: ChangeSummary;
  /** Every step, in the order the engine took them. */
  steps: StackStep[];
  /** The program's console output and the provider host's warnings. */
  diagnostics: string[];
  /** With `policyPacks`: every policy violation, mandatory and advisory, as the engine reported it. */
  policyViolations: PolicyViolation[];
  /** With `policyPacks`: the changes the packs' remediations made to resources' inputs. */
  policyRemediations: PolicyRemediation[];
}

/** What an `up` did, and the stack outputs after it. */
export interface UpResult extends PreviewResult {
  /** Each stack output, secrets readable and marked. */
  outputs: Record<string, OutputValue>;
}

/** What one operation of either engine gives back, before it becomes a result or a StackError. */
export interface Outcome {
  steps: StackStep[];
  diagnostics: string[];
  /** Stack outputs, when the engine reports them with the operation (the CLI's up). */
  outputs?: Record<string, OutputValue>;
  /** The one line of a failure. */
  error?: string;
  policyViolations?: PolicyViolation[];
  policyRemediations?: PolicyRemediation[];
}
