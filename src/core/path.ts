/**
 * The path of an object whose id is its path, from a route and its parameters, or from its inputs
 * by its kind's path rule (ResourceDefinition.path): the id a create records, the path a review
 * shows for an object a preview creates, the object `adopt` takes over.
 */
import { pathPieces, routeParams, routeTarget } from "../http/route";
import type { ResourceDefinition } from "./definition";
import { kindName } from "./token";
import { isUnknown } from "./unknown";

/** `transform/template/x` from `GET /{mount}/template/{name}` and its parameters. */
export function pathOf(route: string, params: Record<string, string>): string {
  return pathPieces(routeTarget(route)).map((piece, i) => (i % 2 === 1 ? params[piece] ?? "" : piece)).join("");
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
  for (const param of routeParams(rule.route)) {
    const key = rule.inputs?.[param] ?? param;
    const value = inputs[key] ?? defaults[key];
    if (typeof value !== "string" || value === "" || isUnknown(value) || value === "[secret]") return undefined;
    params[param] = value;
  }
  return pathOf(rule.route, params);
}

/**
 * The path on its service of the object of `def` with this id: the id itself where it is a path
 * (a path-keyed object, a replication role, a lease), else the kind's `read` route with the id as
 * its one parameter (`runs/run-…`). Undefined for another provider's object, an id not known yet,
 * or a kind whose read does not take the id alone.
 */
export function pathOfId(def: ResourceDefinition | undefined, id: string | undefined): string | undefined {
  if (!def || !id || isUnknown(id)) return undefined;
  if (id.includes("/")) return id;
  const read = def.routes?.read;
  const params = read === undefined ? [] : routeParams(read);
  return read !== undefined && params.length === 1 ? pathOf(read, { [params[0]!]: id }) : undefined;
}

/** The input that fills a path parameter of the kind. */
export const inputOf = (def: ResourceDefinition, param: string): string => def.path?.inputs?.[param] ?? param;

/** The input that names an object among its kind (the last parameter of its path): what other objects refer to it by. */
export function keyInput(def: ResourceDefinition): string | undefined {
  const params = def.path ? routeParams(def.path.route) : [];
  return params.length ? inputOf(def, params[params.length - 1]!) : undefined;
}

/** Route parameters that may span several segments: a mount path (`teams/transform`). */
const MULTI_SEGMENT = new Set(["mount"]);

/** The id form of a kind's objects, `{mount}/alphabet/{name}`: what an id that does not fit is told. */
export function pathForm(def: ResourceDefinition): string | undefined {
  return def.path === undefined ? undefined : routeTarget(def.path.route);
}

/**
 * The inputs an id names, by the kind's path rule (the inverse of pathFromInputs): `keymgmt/key/signing`
 * is a key's `{ mount: "keymgmt", name: "signing" }`. Undefined when the kind has no path rule (the
 * service assigns its ids); throws, naming the form, for an id that is not such a path.
 */
export function inputsFromPath(def: ResourceDefinition, id: string): Record<string, string> | undefined {
  const rule = def.path;
  const form = pathForm(def);
  if (!rule || form === undefined) return undefined;
  const params: string[] = [];
  const pattern = pathPieces(form).map((piece, i) => {
    if (i % 2 === 0) return piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    params.push(piece);
    return MULTI_SEGMENT.has(rule.inputs?.[piece] ?? piece) ? "(.+)" : "([^/]+)";
  }).join("");
  const match = new RegExp(`^${pattern}$`).exec(id);
  if (!match) throw new Error(`id ${JSON.stringify(id)} is not the path of a ${kindName(def.kind)}: its id has the form ${form}`);
  return Object.fromEntries(params.map((param, i) => [rule.inputs?.[param] ?? param, match[i + 1]!]));
}
