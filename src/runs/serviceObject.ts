/**
 * Objects of the run service whose id the service assigns (`nc-...`): created by a POST under their
 * container (a workspace), which also lists them, then read, updated and deleted by their id. From
 * the object's field record and its rows in the area's route table, `serviceObject` gives the whole
 * definition, as `pathObject` does for the secrets service's path-keyed objects:
 *
 * - the JSON:API document of a write and the decoding of a read (src/runs/jsonapi.ts): attributes
 *   and relationships from the record, the container in the create's path and never in the body;
 * - a create made once (src/core/createOnce.ts): a lost response is looked for among the
 *   container's objects, never blindly repeated;
 * - a read, update and delete by id, where a 404 proves nothing until the token is shown to see
 *   the container (src/runs/visibility.ts);
 * - the lookalikes a create refuses to duplicate (src/core/leftovers.ts), compared on every
 *   attribute the record sends, and the list the import reads.
 *
 * Its declaration states only what is its own: its fields (with their cross-field rules) and what a
 * change of it puts at risk.
 */
import { createOnce, firstNew } from "../core/createOnce";
import { ADOPT_ID, type Context, type Props, type ResourceDefinition } from "../core/definition";
import { snake, type Field, type FieldSet } from "../core/fields";
import { deepEqual } from "../core/json";
import { kindName } from "../core/token";
import { isSvcError } from "../http/errors";
import { routeParams } from "../http/route";
import { allIds, membersOf, one, pages, relationshipsOf, type JsonApiResource } from "./jsonapi";
import { confirmGoneIn } from "./visibility";

/**
 * Its rows in the area's route table (`RUNS_ROUTES.notificationConfiguration`); those it sends
 * become the definition's routes, and any other row (an action) is its function's.
 */
export interface ServiceRoutes {
  /** The POST under the container, whose path parameters name the container's fields (`{workspace_id}`). */
  create: string;
  /** The container's objects, page by page, under the same parameters. */
  list: string;
  /** One object by its id, the route's one parameter. */
  read: string;
  update: string;
  delete: string;
}

export interface ServiceObjectSpec<S extends Props>
  extends Pick<ResourceDefinition<S, S>, "kind" | "risk"> {
  /** The object's field record in the run service's kebab case. */
  fields: FieldSet;
  routes: ServiceRoutes;
}

/** Its attributes a lookalike must hold as sent: every input the service stores and reports back (not local, not write-only), but `skip` (the container a list is of). */
export function comparedKeys(set: FieldSet, skip: readonly string[]): string[] {
  return set.inputs.filter((k) => !set.local.includes(k) && !set.writeOnly.includes(k) && !skip.includes(k));
}

/** Two lists as sets are compared: the same members in any order; anything that is no list counts as an empty one. */
export function sameList(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (Array.isArray(v) ? [...v].map((x) => JSON.stringify(x)).sort().join("\n") : "");
  return norm(a) === norm(b);
}

/** Whether the object uses the field under these values (Field.usedOnlyIf: the users of an email configuration only). */
function uses(f: Field, p: Props): boolean {
  return !f.usedOnlyIf || Object.entries(f.usedOnlyIf).every(([input, values]) => values.includes(p[input]));
}

/** `notification configuration` of `runs:NotificationConfiguration`: how messages name one. */
const wordsOf = (kind: string) => kindName(kind).replace(/(?<!^)([A-Z])/g, " $1").toLowerCase();

/** The fields a route's parameters name (`{workspace_id}` → workspaceId); a parameter no field names is a declaration left out. */
function fieldsOfParams(set: FieldSet, route: string, kind: string): string[] {
  return routeParams(route).map((p) => {
    const k = set.inputs.find((i) => snake(i) === p);
    if (k === undefined) throw new Error(`${kind}: no field of its record names {${p}} of ${route}`);
    return k;
  });
}

/** The JSON:API side: a write's document, a read's state, and whether a listed object holds every attribute of a create. */
function codecOf(set: FieldSet, container: readonly string[], type: string) {
  const rels = set.relationships.filter((k) => !container.includes(k));
  const compared = comparedKeys(set, container);
  /** The values with the relationships as the object has them: one it does not use left out, one it uses and the values lack as its `absent`. */
  const related = (p: Props): Props => {
    const out = { ...p };
    for (const k of rels) {
      const f = set.fields[k] as Field & { absent?: unknown };
      if (!uses(f, p)) delete out[k];
      else if (f.absent !== undefined) out[k] ??= structuredClone(f.absent);
    }
    return out;
  };
  const fromResource = (res: JsonApiResource, prior: Props): Props => {
    const state = set.decode(membersOf(set, res), prior);
    // A read by id alone learns its container from the object, or not at all.
    for (const k of container) state[k] ??= "";
    return related(state);
  };
  return {
    fromResource,
    /**
     * A create's or update's document: the attributes given; with `olds`, a write-only one the old
     * state had and the new lacks as null (cleared: an update keeps what it is not sent); the
     * relationships the object uses, one the program leaves out as its `absent` (cleared too).
     */
    document(p: Props, olds?: Props): unknown {
      const attributes = set.body(p);
      for (const k of set.writeOnly) if (olds && p[k] === undefined && olds[k] !== undefined) attributes[set.wire[k]!] = null;
      const relationships = relationshipsOf(set, related(p), container);
      return { data: { type, attributes, ...(Object.keys(relationships).length > 0 ? { relationships } : {}) } };
    },
    /** A listed object is a lookalike when it holds every attribute a create with these inputs sends, a set's as a set. */
    holdsAll(res: JsonApiResource, inputs: Props): boolean {
      // Decoded with only the container known: an attribute the listed one lacks must not match by default.
      const got = fromResource(res, Object.fromEntries(container.map((k) => [k, inputs[k]])));
      return compared.every((k) => !uses(set.fields[k]!, inputs) ||
        (set.sets.includes(k) ? sameList(got[k], inputs[k]) : deepEqual(got[k], inputs[k])));
    },
  };
}

/** The container's objects: the lost create's search, and the lookalikes a create refuses. */
function searchesOf(kind: string, routes: ServiceRoutes, container: readonly string[], holdsAll: (res: JsonApiResource, inputs: Props) => boolean) {
  const names = container.map((k) => [snake(k), k] as const);
  const spec = (inputs: Props) => {
    const params: Record<string, string> = {};
    for (const [p, k] of names) params[p] = String(inputs[k]);
    return { route: routes.list, params };
  };
  /** What `list` answers, or `none` when the container cannot be listed (404: a create then fails with the server's own message). */
  const unlisted = async <T>(list: () => Promise<T>, none: T): Promise<T> => {
    try {
      return await list();
    } catch (e) {
      if (!isSvcError(e, "not_found")) throw e;
      return none;
    }
  };
  return {
    spec,
    /** The container's objects before the first attempt; undefined when it cannot be listed (a lookup then takes nothing). */
    before: (ctx: Context, inputs: Props) => unlisted<Set<string> | undefined>(() => allIds(ctx.client("runs"), spec(inputs)), undefined),
    /** The object a lost create made: new since the first attempt, owned by no other create of this process, holding every attribute sent. */
    created: async (ctx: Context, inputs: Props, before: Set<string> | undefined, owned: (id: string) => boolean) =>
      before && firstNew(pages(ctx.client("runs"), spec(inputs)), (res) => res.id, before, owned, (res) => holdsAll(res, inputs)),
    /** The container's objects with every attribute of these inputs; none when it cannot be listed. */
    lookalikes: async (ctx: Context, inputs: Props): Promise<string[]> =>
      [...await unlisted(() => allIds(ctx.client("runs"), spec(inputs), 100, (res) => holdsAll(res, inputs)), new Set<string>())],
    scope: (ctx: Context, inputs: Props) => `${kind}:${ctx.client("runs").baseUrl}:${container.map((k) => String(inputs[k])).join(":")}`,
  };
}

/** The one parameter read, update and delete share: the id; rows that differ would address another object. */
function idParam(kind: string, routes: ServiceRoutes): string {
  const each = [routes.read, routes.update, routes.delete].map((r) => routeParams(r).join(","));
  if (new Set(each).size !== 1 || each[0]!.includes(",") || each[0] === "") {
    throw new Error(`${kind}: read, update and delete must take the one id parameter alike (${[routes.read, routes.update, routes.delete].join(", ")})`);
  }
  return each[0]!;
}

/** The definition of a run-service object whose id the service assigns, from its record and route rows (see the top of this file). */
export function serviceObject<S extends Props>(spec: ServiceObjectSpec<S>): ResourceDefinition<S, S> {
  const { fields: set, routes, ...own } = spec;
  const kind = own.kind;
  const what = wordsOf(kind);
  const container = fieldsOfParams(set, routes.create, kind);
  // A create refuses a twin and offers to take it over instead, which only adoptId can.
  if (!set.local.includes(ADOPT_ID)) throw new Error(`${kind}: its record declares no ${ADOPT_ID}, the way a refused create offers to take its twin over`);
  const codec = codecOf(set, container, what.replace(/ /g, "-"));
  const search = searchesOf(kind, routes, container, codec.holdsAll);
  const idName = idParam(kind, routes);
  const byId = (id: string) => ({ [idName]: id });
  const decoded = (res: JsonApiResource, prior: Props) => codec.fromResource(res, prior) as S;
  return {
    // The record's lists are the definition's: it is the record of these same state values.
    ...(set as unknown as Omit<FieldSet, "defaults"> & { defaults: Partial<S> }),
    ...own,
    routes: { create: routes.create, read: routes.read, update: routes.update, delete: routes.delete, list: routes.list },
    discover: { list: routes.list },
    leftovers: { find: search.lookalikes, otherwise: `to take over one made another way, set ${ADOPT_ID}: "<its id>"` },
    confirmGone: confirmGoneIn(routes.list, what),
    async create(ctx, inputs) {
      const client = ctx.client("runs");
      const before = await search.before(ctx, inputs);
      const res = await createOnce({
        scope: search.scope(ctx, inputs),
        attempt: async () => one((await client.request({ route: routes.create, params: search.spec(inputs).params, body: codec.document(inputs) })).body),
        find: (owned) => search.created(ctx, inputs, before, owned),
        idOf: (created) => created.id,
        log: (m) => ctx.log(`${what}${typeof inputs.name === "string" ? ` ${inputs.name}` : ""}: ${m}`),
      });
      return { id: res.id, outs: decoded(res, inputs) };
    },
    async read(ctx, id, props) {
      return decoded(one((await ctx.client("runs").request({ route: routes.read, params: byId(id) })).body), props);
    },
    async update(ctx, id, olds, news) {
      // Setting the same attributes twice has the same result, so a retried PATCH is safe.
      const res = await ctx.client("runs").request({ route: routes.update, params: byId(id), body: codec.document(news, olds), retry: "safe" });
      return decoded(one(res.body), news);
    },
    async delete(ctx, id) {
      await ctx.client("runs").request({ route: routes.delete, params: byId(id) });
    },
  };
}
