/**
 * Finds every object of every kind on the servers, as each kind's definition says (its `discover`,
 * its path rule and the fields that refer to other kinds), and reads each one the way a refresh
 * does. Nothing here writes.
 */
import { STATUS_CODES } from "node:http";
import type { Context, Discover, Props, ResourceDefinition } from "../core/definition";
import { KIND_NAMES, kindDefinition } from "../kinds";
import { UsageError } from "../core/command";
import { inputOf, keyInput } from "../core/path";
import { snake } from "../core/fields";
import { oneLine } from "../core/text";
import { serviceOfKind } from "../core/token";
import { extractMessages, isSvcError, redact, type HttpClient, type HttpResponse, type RequestSpec, type Service, type SvcError } from "../http";
import { parseRoute, routeParams } from "../http/route";
import { allIds } from "../runs/jsonapi";
import { RUNS_ROUTES } from "../runs/routes";
import { fetchData, listNames, pathOf } from "../secrets/pathObject";
import { REPLICATION_ROUTES } from "../secrets/replication/routes";

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
  /** Kinds not imported, with the reason their definition gives, or the refusal of the token (`refused`). */
  skipped: Array<{ kind: string; why: string; refused?: boolean }>;
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

/** The engines whose mount `--mount` may name: the default mount of every kind that has one (`transform`, `keymgmt`, ...). */
export async function engineMounts(): Promise<string[]> {
  const out = new Set<string>();
  for (const def of await kindsInOrder()) {
    const dflt = def.fields?.mount?.default;
    if (typeof dflt === "string") out.add(dflt);
  }
  return [...out];
}

/**
 * A configured URL that does not answer as its service (the run service's URL given for the
 * secrets service, a proxy's page): nothing read from it would mean anything, so the walk stops.
 */
export class NotTheService extends Error {
  constructor(readonly service: Service, readonly answer: string) {
    super(`the ${service === "runs" ? "run" : "secrets"} service's URL does not answer as that service: ${answer}`);
  }
}

/**
 * Whether each URL is its service, by a request that needs no token and that only that service
 * answers so: the secrets service's replication status (seed 001: no authentication, the status in
 * `data`), the run service's ping (2xx; go-tfe and every client of its real-world equivalent calls
 * it first). Without this, every list of the run service's answers for a secrets route reads as
 * "nothing here", and the import wrote an empty program from the wrong server.
 */
export async function identify(ctx: Context, services: Readonly<Record<Service, boolean>>): Promise<void> {
  const probes: Array<[Service, string, (body: unknown) => boolean]> = [
    ["secrets", REPLICATION_ROUTES.status.read, (b) => typeof b === "object" && b !== null && typeof (b as { data?: unknown }).data === "object" && (b as { data?: unknown }).data !== null],
    ["runs", RUNS_ROUTES.service.ping, () => true],
  ];
  await Promise.all(probes.filter(([service]) => services[service]).map(async ([service, route, answers]) => {
    let body: unknown;
    try {
      body = (await ctx.client(service).request({ route })).body;
    } catch (e) {
      // A server that cannot be reached says so itself; one that answers otherwise is not the service.
      if (!isSvcError(e) || e.status === undefined) throw e;
      // Its own words, without the client's hint to check the token: this request sends none it needs.
      const messages = e.messages.filter((m) => !m.startsWith("check the token"));
      throw new NotTheService(service, `${e.method} ${e.path}: ${e.status} ${STATUS_CODES[e.status] ?? "Error"}${messages.length ? `: ${messages.join("; ")}` : ""}`);
    }
    if (!answers(body)) throw new NotTheService(service, `${route}: the answer holds no status object`);
  }));
}

/**
 * The route that tells whether an engine is mounted at a path: a list of one of its kinds at the
 * mount alone (a config's GET may be missing where the engine is there: docs/assumptions.md, item 82).
 */
async function probeRoute(engine: string): Promise<string | undefined> {
  for (const def of await kindsInOrder()) {
    const list = def.discover && "list" in def.discover ? def.discover.list : undefined;
    if (def.fields?.mount?.default === engine && list && routeParams(list).join() === "mount") return list;
  }
  return undefined;
}

/**
 * Each path `--mount` names holds its engine. A list answers 404 for an empty list too, so without
 * this a path with no engine read as an engine with nothing in it, and the import wrote an empty
 * program. The service tells the two apart: an empty list's 404 carries no message, a path that no
 * engine serves names the missing route (docs/assumptions.md, item 83). A refused token says
 * nothing either way: the walk reports it.
 */
export async function checkMounted(ctx: Context, scope: Scope): Promise<void> {
  for (const [engine, paths] of Object.entries(scope.mounts)) {
    const route = await probeRoute(engine);
    for (const mount of paths.filter((p) => p !== engine)) {
      if (!route) continue;
      const res = await ctx.client("secrets").request({ route, params: { mount }, expect: [403, 404] });
      const errors = (res.body as { errors?: unknown } | undefined)?.errors;
      const messages = res.status !== 404 || (Array.isArray(errors) && errors.length === 0) ? [] : extractMessages(res.body);
      if (messages.length === 0) continue;
      const answer = `${parseRoute(route)?.method} /${pathOf(route, { mount })}: 404 ${messages.map((m) => oneLine(redact(m))).join("; ")}`;
      throw new UsageError(`--mount ${engine}=${mount}: no ${engine} engine is mounted at ${mount} (${answer}); give the path the engine is mounted at`);
    }
  }
}

/** How a service answered the walk: requests it answered (any status but a refusal), and its refusals. */
interface Tally { answered: number; refused: SvcError[] }

/** Requests that need no token: their answer says nothing of it. */
const TOKEN_FREE: ReadonlySet<string> = new Set([REPLICATION_ROUTES.status.read, RUNS_ROUTES.service.ping]);

/** The client as the walk sees it: each request's outcome counted in `tally`. */
function counted(client: HttpClient, tally: Tally): HttpClient {
  const view = Object.create(client) as HttpClient;
  view.request = async <T>(spec: RequestSpec): Promise<HttpResponse<T>> => {
    if (TOKEN_FREE.has(spec.route)) return client.request<T>(spec);
    try {
      const res = await client.request<T>(spec);
      tally.answered++;
      return res;
    } catch (e) {
      if (isSvcError(e, "forbidden")) tally.refused.push(e);
      else if (isSvcError(e) && e.status !== undefined) tally.answered++;
      throw e;
    }
  };
  return view;
}

/**
 * Reads every object the definitions can find. `progress` gets a line per kind and per hundred
 * reads. Stops at a URL that is not its service, and at a token its service refused on every
 * request; a kind the token may not read (the plugin catalog needs sudo) is skipped with the reason.
 */
export async function walk(outer: Context, scope: Scope, progress: (line: string) => void = () => {},
  services: Readonly<Record<Service, boolean>> = { runs: true, secrets: true }): Promise<Walked> {
  await identify(outer, services);
  if (services.secrets) await checkMounted(outer, scope);
  const tallies: Record<Service, Tally> = { runs: { answered: 0, refused: [] }, secrets: { answered: 0, refused: [] } };
  const views: Partial<Record<Service, HttpClient>> = {};
  const ctx: Context = { ...outer, client: (service) => (views[service] ??= counted(outer.client(service), tallies[service])) };
  const w: Walk = { ctx, scope, progress, found: [], skipped: [], reads: 0 };
  for (const def of await kindsInOrder()) {
    if (!services[serviceOfKind(def.kind)]) continue;
    try {
      await walkKind(w, def);
    } catch (e) {
      // A token may read some engines and not others (the plugin catalog needs sudo): the rest is
      // still imported. A token refused on every request is the token's fault, said below.
      if (!isSvcError(e, "forbidden")) throw e;
      w.skipped.push({ kind: def.kind, why: `the token may not read it: ${e.message}`, refused: true });
    }
  }
  for (const service of ["secrets", "runs"] as const) {
    const t = tallies[service];
    if (t.refused.length > 0 && t.answered === 0) throw t.refused[0];
  }
  return { found: w.found, skipped: w.skipped };
}

/** A walk under way: where it reads, what it found and left out so far, and how many reads it made. */
interface Walk {
  ctx: Context;
  scope: Scope;
  progress: (line: string) => void;
  found: Found[];
  skipped: Walked["skipped"];
  reads: number;
}

/** An object a list named (or a path to try), before it is read. */
type Candidate = { id: string; props: Props; params?: Record<string, string> };

/** Finds and reads the objects of one kind, as its definition's `discover` says. */
async function walkKind(w: Walk, def: ResourceDefinition): Promise<void> {
  const discover = def.discover;
  if (!discover) throw new Error(`${def.kind}: its definition does not say how the import finds its objects (discover)`);
  if ("none" in discover) {
    w.skipped.push({ kind: def.kind, why: discover.none });
    return;
  }
  if (serviceOfKind(def.kind) === "runs" && w.scope.workspaces.length === 0) {
    w.skipped.push({ kind: def.kind, why: "the run service lists no workspaces: name each with --workspace" });
    return;
  }
  const candidates = "find" in discover ? await discover.find(w.ctx) : await listed(w, def, discover);
  const read = await Promise.all(candidates.map(async (c) => {
    const props = await def.read(w.ctx, c.id, { ...(def.defaults ?? {}), ...c.props });
    if (++w.reads % 100 === 0) w.progress(`read ${w.reads} objects`);
    return props === undefined ? undefined : { kind: def.kind, def, id: c.id, props: { ...c.props, ...props } };
  }));
  const mine = read.filter((f): f is Found => f !== undefined);
  w.found.push(...mine);
  if (mine.length) w.progress(`${def.kind}: ${mine.length}`);
}

/** The objects a list route names in each scope (or, without one, the paths that answer), filtered as `discover` says. */
async function listed(w: Walk, def: ResourceDefinition, discover: Exclude<Discover, { none: string } | { find: unknown }>): Promise<Candidate[]> {
  const listRoute = discover.list;
  const choices: Array<[string, readonly string[]]> = [];
  for (const param of routeParams(listRoute ?? def.path?.route ?? "")) {
    choices.push([param, valuesOf(def, param, w.scope, discover.each?.[param], w.found)]);
  }
  let candidates: Candidate[] = [];
  for (const at of product(choices)) {
    if (!listRoute) {
      candidates.push(fromParams(def, at));
      continue;
    }
    const names = serviceOfKind(def.kind) === "runs"
      ? [...await allIds(w.ctx.client("runs"), { route: listRoute, params: at })]
      : await listNames(w.ctx, listRoute, at);
    for (const name of names) {
      if (!def.path) {
        candidates.push({ id: name, props: propsOf(def, at) });
        continue;
      }
      const params = routeParams(def.path.route);
      candidates.push(fromParams(def, { ...at, [params[params.length - 1]!]: name }));
    }
  }
  // Without a list, an object is there when its path answers (a read may keep what it knew instead).
  if (!listRoute || discover.where || discover.skip) {
    // All at once: the client holds requests in flight to one server to its limit (maxConcurrentRequests).
    const kept = await Promise.all(candidates.map(async (c) => {
      const data = await fetchData(w.ctx, def.path!.route, c.params!);
      return data !== undefined && (!discover.where || matches(data, discover.where)) && !matches(data, discover.skip);
    }));
    candidates = candidates.filter((_, i) => kept[i]);
  }
  return candidates;
}

/** A path-keyed candidate from its path parameters. */
function fromParams(def: ResourceDefinition, params: Record<string, string>): { id: string; props: Props; params: Record<string, string> } {
  return { id: pathOf(def.path!.route, params), props: propsOf(def, params), params };
}

/** The field a path or list parameter fills (`workspace_id` is a configuration's `workspaceId`); undefined when none does. */
export function fieldOf(def: ResourceDefinition, param: string): string | undefined {
  const input = inputOf(def, param);
  return def.fields?.[input] ? input : Object.keys(def.fields ?? {}).find((f) => snake(f) === param);
}

/** Path or list parameters as the kind's inputs. */
function propsOf(def: ResourceDefinition, params: Record<string, string>): Props {
  const props: Props = {};
  for (const [param, value] of Object.entries(params)) {
    const named = fieldOf(def, param);
    if (named) props[named] = value;
  }
  return props;
}

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
