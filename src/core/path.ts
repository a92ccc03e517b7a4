/**
 * The path of an object whose id is its path, from a route and its parameters, or from its inputs
 * by its kind's path rule (ResourceDefinition.path): the id a create records, the path a review
 * shows for an object a preview creates, the object `adopt` takes over.
 */
import type { ResourceDefinition } from "./definition";
import { isUnknown } from "./unknown";

/** `transform/template/x` from `GET /{mount}/template/{name}` and its parameters. */
export function pathOf(route: string, params: Record<string, string>): string {
  return route.replace(/^\S+ \//, "").replace(/\{(\w+)\}/g, (_m, k: string) => params[k] ?? "");
}

/**
 * The path an object of `def` has with these inputs (the kind's defaults filling absent ones, as
 * check does); undefined when the service names its objects, or an input the path needs is not
 * known yet or not plain text.
 */
export function pathFromInputs(def: ResourceDefinition | undefined, inputs: Record<string, unknown>): string | undefined {
  const rule = def?.path;
  if (!rule) return undefined;
  const defaults = (def.defaults ?? {}) as Record<string, unknown>;
  const params: Record<string, string> = {};
  for (const [, param] of rule.route.matchAll(/\{(\w+)\}/g)) {
    const key = rule.inputs?.[param] ?? param;
    const value = inputs[key] ?? defaults[key];
    if (typeof value !== "string" || value === "" || isUnknown(value) || value === "[secret]") return undefined;
    params[param] = value;
  }
  return pathOf(rule.route, params);
}
