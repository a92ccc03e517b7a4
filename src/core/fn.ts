import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { InvalidInputError } from "../http";
import { makeContext } from "./context";
import type { Context } from "./definition";
import { validate } from "./validate";

export interface FunctionDefinition<A, R> {
  /** The function's name as users call it, for messages. */
  name: string;
  schema(): z.ZodType;
  /** A side-effecting function makes no request during preview and yields an unknown Output. */
  sideEffects: boolean;
  run(ctx: Context, args: A): Promise<R>;
}

/** Stack config of the running program (`svc:*`), read at call time; environment variables follow. */
function programConfig(key: string): string | undefined {
  try {
    return pulumi.runtime.getConfig(key);
  } catch {
    return undefined;
  }
}

function inPreview(): boolean {
  try {
    return pulumi.runtime.isDryRun();
  } catch {
    return false;
  }
}

/** Validates with the same rules as check: the error names the property. */
export function validated<A>(def: FunctionDefinition<A, unknown>, args: A): A {
  const failures = validate(def.schema(), args);
  if (failures.length > 0) throw new InvalidInputError(failures.map((f) => ({ path: f.property, message: f.reason })), { method: def.name });
  return args;
}

/** A Context for program-side forms that are neither Promise nor Output (async iterators). */
export function programContext(): Context {
  return makeContext(programConfig);
}

/**
 * The Promise form. During preview a side-effecting function makes no request and resolves to
 * undefined; the Output form is the one to use where the result feeds other resources.
 */
export function invoke<A, R>(def: FunctionDefinition<A, R>, args: A): Promise<R> {
  if (def.sideEffects && inPreview()) return Promise.resolve(undefined as R);
  return Promise.resolve().then(() => def.run(makeContext(programConfig), validated(def, args)));
}

/** The Output form: waits for its Input arguments; unknown during preview when it has side effects. */
export function invokeOutput<A, R>(def: FunctionDefinition<A, R>, args: pulumi.Input<A> | pulumi.Inputs): pulumi.Output<R> {
  return pulumi.output(args as pulumi.Input<A>).apply((plain) => {
    if (def.sideEffects && inPreview()) return pulumi.unknown as unknown as R;
    return def.run(makeContext(programConfig), validated(def, plain as A));
  }) as pulumi.Output<R>;
}
