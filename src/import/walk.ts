/**
 * Finds every object of every kind on the servers, as each kind's definition says (its `discover`,
 * its path rule and the fields that refer to other kinds), and reads each one the way a refresh
 * does. Nothing here writes.
 */
import type { Context, Props, ResourceDefinition } from "../core/definition";
import { KIND_NAMES, kindDefinition } from "../kinds";
import { isSvcError } from "../http";
import { allIds } from "../runs/jsonapi";
import { fetchData, listNames, pathOf } from "../secrets/pathObject";

/** Where to look: the run service's workspaces, and engine mounts beside each default one. */
export interface Scope {
  workspaces: readonly string[];
  /** A kind's default mount (`transform`) → every mount to walk for it (the default included). */
  mounts: Readonly<Record<string, readonly string[]>>;
}

/** One object found: its kind, the id a resource records for it, and its read state. */
export interface Found {
  kind: string;
  def: ResourceDefinition;
  id: string;
  props: Props;
}

export interface Walked {
  found: Found[];
  /** Kinds not imported, with the reason their definition gives. */
  skipped: Array<{ kind: string; why: string }>;
}

const paramsOf = (route: string) => [...route.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** The input that fills a path parameter of the kind. */
export const inputOf = (def: ResourceDefinition, param: string): string => def.path?.inputs?.[param] ?? param;

/** The input that names an object among its kind (the last parameter of its path): what other objects refer to it by. */
export function keyInput(def: ResourceDefinition): string | undefined {
  const params = def.path ? paramsOf(def.path.route) : [];
  return params.length ? inputOf(def, params[params.length - 1]!) : undefined;
}

/** Kinds whose objects this kind's fields name (never itself). */
export function referredKinds(def: ResourceDefinition): string[] {
  return [...new Set(Object.values(def.fields ?? {}).flatMap((f) => f.refers ?? []))].filter((k) => k !== def.kind);
}

/** Every kind, those that others refer to before them, so a found object's references are found first. */
export async function kindsInOrder(): Promise<ResourceDefinition[]> {
  const defs = new Map<string, ResourceDefinition>();
  for (const k of KIND_NAMES) defs.set(k, (await kindDefinition(k))!);
  const out: ResourceDefinition[] = [];
  const visit = (k: string, seen: Set<string>) => {
    const def = defs.get(k);
    if (!def || out.includes(def) || seen.has(k)) return;
    seen.add(k);
    for (const r of referredKinds(def)) visit(r, seen);
    out.push(def);
  };
  for (const k of KIND_NAMES) visit(k, new Set());
  return out;
}

function product(choices: Array<[string, readonly string[]]>): Array<Record<string, string>> {
  return choices.reduce<Array<Record<string, string>>>((acc, [k, vs]) => acc.flatMap((a) => vs.map((v) => ({ ...a, [k]: v }))), [{}]);
}

function matches(data: Record<string, unknown>, wanted: Readonly<Record<string, unknown>> | undefined): boolean {
  return wanted !== undefined && Object.entries(wanted).every(([k, v]) => data[k] === v);
}

/** Reads every object the definitions can find. `progress` gets a line per kind and per hundred reads. */
export async function walk(ctx: Context, scope: Scope, progress: (line: string) => void = () => {},
  services: Readonly<Record<"runs" | "secrets", boolean>> = { runs: true, secrets: true }): Promise<Walked> {
  const found: Found[] = [];
  const skipped: Walked["skipped"] = [];
  let reads = 0;
  const refused: Error[] = [];
  for (const def of await kindsInOrder()) {
    if (!services[def.kind.split(":")[0] as "runs" | "secrets"]) continue;
    try {
      await walkKind(def);
    } catch (e) {
      // A token may read some engines and not others (the plugin catalog needs sudo): the rest is
      // still imported. A token refused everywhere is the token's fault, said once below.
      if (!isSvcError(e, "forbidden")) throw e;
      refused.push(e);
      skipped.push({ kind: def.kind, why: `the token may not read it: ${e.message}` });
    }
  }
  if (found.length === 0 && refused.length > 0) throw refused[0];
  return { found, skipped };

  async function walkKind(def: ResourceDefinition): Promise<void> {
    const discover = def.discover;
    if (!discover) throw new Error(`${def.kind}: its definition does not say how the import finds its objects (discover)`);
    if ("none" in discover) {
      skipped.push({ kind: def.kind, why: discover.none });
      return;
    }
    const runs = def.kind.startsWith("runs:");
    if (runs && scope.workspaces.length === 0) {
      skipped.push({ kind: def.kind, why: "the run service lists no workspaces: name each with --workspace" });
      return;
    }
    let candidates: Array<{ id: string; props: Props; params?: Record<string, string> }>;
    if ("find" in discover) {
      candidates = await discover.find(ctx);
    } else {
      const readRoute = def.path?.route;
      const listRoute = discover.list;
      const choices: Array<[string, readonly string[]]> = [];
      for (const param of paramsOf(listRoute ?? readRoute ?? "")) {
        choices.push([param, valuesOf(def, param, scope, discover.each?.[param], found)]);
      }
      candidates = [];
      for (const at of product(choices)) {
        if (!listRoute) {
          candidates.push(fromParams(def, at));
          continue;
        }
        const names = runs
          ? [...await allIds(ctx.client("runs"), { route: listRoute, params: at })]
          : await listNames(ctx, listRoute, at);
        for (const name of names) {
          if (!def.path) {
            candidates.push({ id: name, props: propsOf(def, at) });
            continue;
          }
          const params = paramsOf(def.path.route);
          candidates.push(fromParams(def, { ...at, [params[params.length - 1]!]: name }));
        }
      }
      // Without a list, an object is there when its path answers (a read may keep what it knew instead).
      if (!listRoute || discover.where || discover.skip) {
        // All at once: the client holds requests in flight to one server to its limit (maxConcurrentRequests).
        const kept = await Promise.all(candidates.map(async (c) => {
          const data = await fetchData(ctx, def.path!.route, c.params!);
          return data !== undefined && (!discover.where || matches(data, discover.where)) && !matches(data, discover.skip);
        }));
        candidates = candidates.filter((_, i) => kept[i]);
      }
    }
    const read = await Promise.all(candidates.map(async (c) => {
      const props = await def.read(ctx, c.id, { ...(def.defaults ?? {}), ...c.props });
      if (++reads % 100 === 0) progress(`read ${reads} objects`);
      return props === undefined ? undefined : { kind: def.kind, def, id: c.id, props: { ...c.props, ...props } };
    }));
    const mine = read.filter((f): f is Found => f !== undefined);
    found.push(...mine);
    if (mine.length) progress(`${def.kind}: ${mine.length}`);
  }
}

/** A path-keyed candidate from its path parameters. */
function fromParams(def: ResourceDefinition, params: Record<string, string>): { id: string; props: Props; params: Record<string, string> } {
  return { id: pathOf(def.path!.route, params), props: propsOf(def, params), params };
}

/** Path or list parameters as the kind's inputs (`workspace_id` is a configuration's `workspaceId`). */
function propsOf(def: ResourceDefinition, params: Record<string, string>): Props {
  const props: Props = {};
  for (const [param, value] of Object.entries(params)) {
    const input = inputOf(def, param);
    const named = def.fields?.[input] ? input : Object.keys(def.fields ?? {}).find((f) => snake(f) === param);
    if (named) props[named] = value;
  }
  return props;
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The values a list parameter takes: the scope's mounts or workspaces, fixed values, or the names of the objects found that it refers to. */
function valuesOf(def: ResourceDefinition, param: string, scope: Scope, each: readonly string[] | undefined, found: readonly Found[]): readonly string[] {
  if (each) return each;
  if (param === "workspace_id") return scope.workspaces;
  const input = inputOf(def, param);
  if (input === "mount") {
    const dflt = def.fields?.mount?.default;
    return typeof dflt === "string" ? scope.mounts[dflt] ?? [dflt] : [];
  }
  const kinds = def.fields?.[input]?.refers ?? [];
  return [...new Set(found.filter((f) => kinds.includes(f.kind)).map((f) => f.props[keyInput(f.def) ?? ""]).filter((v): v is string => typeof v === "string"))];
}
