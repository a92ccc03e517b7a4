import * as pulumi from "@pulumi/pulumi";
import type { ServiceName } from "./connection";
import type { InputOf } from "./fields";
import { invoke, invokeOutput, schemaOf, type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions } from "./fn";

/** How a function's two forms take their arguments and give their result. */
export interface FormsOptions {
  /** The Output form is secret: the result holds plaintext, tokens, tweaks or keys. */
  secret?: boolean;
  /** The arguments may be left out (every one is optional): `{}` stands for them. */
  argsOptional?: boolean;
}

/** What an Output form takes: each argument an Input at any depth (as a program passes Outputs anywhere), or all of them one Input. */
export type InputArgs<A> = pulumi.Input<{ [K in keyof A]: InputOf<Exclude<A[K], undefined>> }>;

/** The two forms of a function whose arguments must be given. */
export interface Forms<A, R, S extends ServiceName> {
  promise: (args: A, opts?: SvcInvokeOptions<S>) => Promise<R>;
  output: (args: InputArgs<A>, opts?: SvcInvokeOutputOptions<S>) => pulumi.Output<R>;
}

/** The two forms of a function whose arguments may be left out. */
export interface OptionalForms<A, R, S extends ServiceName> {
  promise: (args?: A, opts?: SvcInvokeOptions<S>) => Promise<R>;
  output: (args?: InputArgs<A>, opts?: SvcInvokeOutputOptions<S>) => pulumi.Output<R>;
}

/**
 * The Promise form and the Output form of a function, typed by its definition: the arguments, the
 * result and the service whose connection the options take all come from `def`, so an export states
 * only its name and its own TSDoc (the declaration emit writes the signature out):
 *
 * ```ts
 * /** Reads a key. *\/
 * export const getKey = forms(getKeyFn).promise;
 * /** Output form of {@link getKey}. *\/
 * export const getKeyOutput = forms(getKeyFn).output;
 * ```
 *
 * Each call builds the pair anew (two closures; the schema is made once per definition), so an
 * export picks its form from its own call.
 *
 * Kept beside fn.ts, not in it: the forms call `invoke` and `invokeOutput` through that module's
 * exports, where the reference generator (src/scripts/docs/surface.ts) records each form's definition.
 */
export function forms<A, R, S extends ServiceName>(def: FunctionDefinition<A, R, S>, how: FormsOptions & { argsOptional: true }): OptionalForms<A, R, S>;
export function forms<A, R, S extends ServiceName>(def: FunctionDefinition<A, R, S>, how?: FormsOptions): Forms<A, R, S>;
export function forms<A, R, S extends ServiceName>(def: FunctionDefinition<A, R, S>, how: FormsOptions = {}): OptionalForms<A, R, S> {
  // The schema a field record derives is made now, at load, as a field set built beside the record
  // would be: its secret field names are redacted from the start, before any call.
  schemaOf(def as FunctionDefinition<unknown, unknown, ServiceName>);
  const argsOf = <T>(args: T | undefined): T => (args === undefined && how.argsOptional ? {} : args) as T;
  return {
    promise: (args, opts) => invoke(def, argsOf(args), opts),
    output: (args, opts) => {
      const out = invokeOutput(def, argsOf(args) as pulumi.Input<A>, opts);
      return how.secret ? (pulumi.secret(out) as unknown as pulumi.Output<R>) : out;
    },
  };
}
