import * as pulumi from "@pulumi/pulumi";
import { invoke, invokeOutput, schemaOf, type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions } from "./fn";

/** How a function's two forms take their arguments and give their result. */
export interface FormsOptions {
  /** The Output form is secret: the result holds plaintext, tokens, tweaks or keys. */
  secret?: boolean;
  /** The arguments may be left out (every one is optional): `{}` stands for them. */
  argsOptional?: boolean;
}

/**
 * The Promise form and the Output form of a function. Each export states its own signature (as a
 * type annotation, which the declaration emit keeps) and its own TSDoc:
 *
 * ```ts
 * const getKeyForms = forms(getKeyFn);
 * export const getKey: (args: KeyRefArgs, opts?: SvcInvokeOptions<"secrets">) => Promise<KeyInfo> = getKeyForms.promise;
 * ```
 *
 * Kept beside fn.ts, not in it: the forms call `invoke` and `invokeOutput` through that module's
 * exports, where the reference generator (src/scripts/docs/surface.ts) records each form's definition.
 */
export function forms<A, R>(def: FunctionDefinition<A, R>, how: FormsOptions = {}): {
  promise: (args?: A, opts?: SvcInvokeOptions) => Promise<R>;
  output: (args?: pulumi.Input<A> | pulumi.Inputs, opts?: SvcInvokeOutputOptions) => pulumi.Output<R>;
} {
  // The schema a field record derives is made now, at load, as a field set built beside the record
  // would be: its secret field names are redacted from the start, before any call.
  schemaOf(def as FunctionDefinition<unknown, unknown>);
  const argsOf = <T>(args: T | undefined): T => (args === undefined && how.argsOptional ? {} : args) as T;
  return {
    promise: (args, opts) => invoke(def, argsOf(args), opts),
    output: (args, opts) => {
      const out = invokeOutput(def, argsOf(args), opts);
      return how.secret ? (pulumi.secret(out) as unknown as pulumi.Output<R>) : out;
    },
  };
}
