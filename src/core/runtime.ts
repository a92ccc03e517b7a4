/**
 * The runtime entry (`pulumi-svc/runtime`): what the serialized trampoline requires in the provider
 * host. It dispatches a method call for a kind to the machinery in provider.ts.
 */
import type { ConfigSource } from "../config";
import { KINDS } from "../kinds";
import { makeContext } from "./context";
import type { Props, ResourceDefinition } from "./definition";
import * as machinery from "./provider";

let source: ConfigSource | undefined;

/** Called once per provider text by the host with the whole stack config (namespaced keys). */
export async function configure(req: { config: { get(key: string): unknown } }): Promise<void> {
  source = (key) => {
    const v = req.config.get(key);
    return v === undefined || v === null ? undefined : String(v);
  };
}

export function definition(kind: string): ResourceDefinition {
  const def = KINDS[kind];
  if (!def) throw new Error(`pulumi-svc: unknown resource kind "${kind}" (is the installed pulumi-svc older than the program's?)`);
  return def;
}

type Method = "check" | "diff" | "create" | "read" | "update" | "delete";

export async function call(kind: string, method: Method, args: unknown[]): Promise<unknown> {
  const def = definition(kind);
  const ctx = makeContext(source);
  switch (method) {
    case "check": return machinery.check(def, args[1] as Props);
    case "diff": return machinery.diff(def, args[1] as Props, args[2] as Props);
    case "create": return machinery.create(def, ctx, args[0] as Props);
    case "read": return machinery.read(def, ctx, args[0] as string, args[1] as Props);
    case "update": return machinery.update(def, ctx, args[0] as string, args[1] as Props, args[2] as Props);
    case "delete": return machinery.remove(def, ctx, args[0] as string, args[1] as Props);
  }
}
