/**
 * A route as the route tables write it (src/runs/routes.ts, src/secrets/<area>/routes.ts),
 * `"GET /{mount}/template/{name}"`, read in one place: its method, its path, the parameters the
 * path names. The client sends it, a path-keyed object's id is its path, and the import and the
 * reference pages list its parameters; all of them read it here.
 */

/** `METHOD /path`: the method in letters, then the path from its slash. */
const ROUTE = /^([A-Za-z]+)\s+(\/\S*)$/;

/** A parameter of a route's path, `{name}`. */
const PARAM = /\{(\w+)\}/;

/** The method (upper case) and the path of a route; undefined for text that is not one. */
export function parseRoute(route: string): { method: string; path: string } | undefined {
  const m = ROUTE.exec(route.trim());
  return m ? { method: m[1]!.toUpperCase(), path: m[2]! } : undefined;
}

/**
 * A route's path as an object's id writes it: without the method and the leading slash
 * (`{mount}/template/{name}`). A text that is no route is kept as it is.
 */
export function routeTarget(route: string): string {
  return remembered(targets, route, () => parseRoute(route)?.path.slice(1) ?? route);
}

/** A path (or a route) split at its parameters: literal text at even indexes, parameter names at odd ones. */
export function pathPieces(path: string): readonly string[] {
  return remembered(pieces, path, () => Object.freeze(path.split(PARAM)));
}

/** The names of the parameters a route's path names, in order. */
export function routeParams(route: string): readonly string[] {
  return remembered(params, route, () => Object.freeze(pathPieces(route).filter((_, i) => i % 2 === 1)));
}

// Each operation reads its routes again (an object's path, the parameters of each request): the
// routes are the tables' few texts, read once each. Bounded all the same, for paths passed in.
const targets = new Map<string, string>();
const pieces = new Map<string, readonly string[]>();
const params = new Map<string, readonly string[]>();

function remembered<V>(map: Map<string, V>, key: string, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    if (map.size < 512) map.set(key, v);
  }
  return v;
}

/** The literal segments of a route's path (`template` of `GET /{mount}/template/{name}`). */
export function routeWords(route: string): string[] {
  return pathPieces(routeTarget(route)).filter((_, i) => i % 2 === 0).join("/").split("/").filter((w) => w !== "");
}
