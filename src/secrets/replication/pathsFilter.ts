/**
 * Which mounts replicate to one secondary: `sys/replication/performance/primary/paths-filter/{id}`,
 * written on the primary and keyed by the secondary's cluster id.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import type { ConnectionArgs } from "../../core/connection";
import type { Context } from "../../core/definition";
import { field, fieldSet, pick, type ArgsOf, type OutputsOf, type PlainArgsOf, type StateOf } from "../../core/fields";
import { type FunctionDefinition } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { dataOf } from "../envelope";
import { segment } from "../../core/segment";
import { adopt } from "../fields";
import { fetchData, pathObject, pathOf } from "../pathObject";
import { fetchStatus } from "./status";
import { REPLICATION_ROUTES as R } from "./routes";

// The id is a path segment of every filter route.
const clusterId = () => segment();

export const pathsFilterFields = {
  /**
   * The secondary's cluster id: the `clusterId` of its {@link PerformanceSecondary}, and the key of
   * its filter on the primary. Changing it replaces the filter.
   */
  secondaryClusterId: field(clusterId, { identity: true }),
  /** `allow` (default: only the listed paths replicate) or `deny` (the listed paths do not). */
  mode: field(() => z.enum(["allow", "deny"], { error: "must be allow or deny" }), { default: "allow" }),
  /** Mount or namespace paths ending in `/`, such as `transform/` (compared as a set, kept sorted). Default none. */
  paths: field(() => z.array(
    z.string({ error: "must be a string" }).regex(/^[^/\s]+(\/[^/\s]+)*\/$/, "must be a mount path ending in /, such as transform/"),
    { error: "must be a list of mount paths" },
  ), { set: true, default: [] as string[] }),
  // Not `local`: a change of it must be an update, which writes the filter again.
  /**
   * The secondary's {@link PerformanceSecondary.activation} (or any value that changes when it is
   * given a new token). Never sent. The primary drops a secondary's filter when the secondary takes
   * a new token (update-primary), and a token replaced for a new ttl revokes it first, which drops
   * the filter too; a change of this value makes the same `pulumi up` write the filter again, after
   * the secondary, so the withheld mounts never reach it. Without it the filter stays dropped until
   * a `pulumi refresh` and another `pulumi up`.
   */
  secondaryActivation: field(() => z.union([z.number(), z.string()], { error: "must be a number or a string" }), { optional: true }),
  /** Take over a filter that already exists for the secondary instead of failing. */
  adopt: field(adopt, { local: true }),
};

const pathsFilterSet = fieldSet(pathsFilterFields);

export type PathsFilterState = StateOf<typeof pathsFilterFields>;

export const pathsFilterDefinition = pathObject<PathsFilterState, PathsFilterState>({
  kind: "secrets:ReplicationPathsFilter",
  fields: pathsFilterSet,
  routes: { write: R.pathsFilter.write, read: R.pathsFilter.read, delete: R.pathsFilter.delete, list: R.pathsFilter.read },
  // The route names the cluster id `{id}`.
  params: (p) => ({ id: p.secondaryClusterId }),
  path: { route: R.pathsFilter.read, inputs: { id: "secondaryClusterId" } },
  // No list names the filters: each secondary the primary knows (by its cluster id) may have one.
  discover: {
    async find(ctx) {
      const { secondaries } = await fetchStatus(ctx);
      const found = await Promise.all(secondaries.map(({ clusterId }) => clusterId).filter(Boolean).map(async (id) => (await fetchData(ctx, R.pathsFilter.read, { id })) ? id : undefined));
      return found.filter((id) => id !== undefined).map((id) => ({ id: pathOf(R.pathsFilter.read, { id }), props: { secondaryClusterId: id } }));
    },
  },
  // The id is the path and the activation is never sent.
  body: (p) => pathsFilterSet.body(p, ["secondaryClusterId", "secondaryActivation"]),
  // A filter reads back with every field; a missing mode or list is the service's default, not the value held before.
  fromData: (d, p) => {
    const out: PathsFilterState = {
      secondaryClusterId: p.secondaryClusterId,
      mode: d.mode === "deny" ? "deny" : "allow",
      paths: Array.isArray(d.paths) ? d.paths.map(String).sort() : [],
    };
    // Never sent: its only work is to make a new activation of the secondary a change of the filter.
    if (p.secondaryActivation !== undefined) out.secondaryActivation = p.secondaryActivation;
    return out;
  },
});

export type PathsFilterArgs = ArgsOf<typeof pathsFilterFields> & ConnectionArgs<"secrets">;

/**
 * A paths filter for one secondary, on the primary of the connection. Mounts it withholds are
 * removed from the secondary and no longer replicate to it.
 *
 * The filter belongs to the secondary's activation: when the secondary is given a new token with
 * update-primary (a new token on its {@link PerformanceSecondary}), the primary drops the filter.
 * Give the secondary's `activation` as `secondaryActivation` and the same `pulumi up` writes the
 * filter again.
 *
 * @example
 * ```ts
 * new svc.secrets.replication.PathsFilter("west", {
 *   secondaryClusterId: secondary.clusterId, secondaryActivation: secondary.activation,
 *   mode: "deny", paths: ["keymgmt/"], connection: east,
 * });
 * ```
 */
export interface PathsFilter extends OutputsOf<typeof pathsFilterFields> {}
export class PathsFilter extends SvcResource(pathsFilterDefinition) { constructor(name: string, args: PathsFilterArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

const dynamicFilterFields = pick(pathsFilterFields, "secondaryClusterId");

/** Arguments of the dynamic-filter functions: the secondary's cluster id. */
export type DynamicFilterArgs = PlainArgsOf<typeof dynamicFilterFields>;

/** Mounts and namespaces a secondary's paths filter withholds from it. */
export interface DynamicFilter {
  /** Mount paths, with a trailing `/`. */
  dynamicFilteredMounts: string[];
  /** Namespace paths. */
  dynamicFilteredNamespaces: string[];
}

async function readDynamic(ctx: Context, route: string, id: string): Promise<DynamicFilter> {
  const res = await ctx.client("secrets").request({ route, params: { id } });
  const d = dataOf(res.body);
  const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
  return { dynamicFilteredMounts: list(d.dynamic_filtered_mounts), dynamicFilteredNamespaces: list(d.dynamic_filtered_namespaces) };
}

/** A function reading a secondary's dynamic filter at `route`: on the primary, or on the secondary itself. */
const dynamicFilterFn = (name: string, route: string): FunctionDefinition<DynamicFilterArgs, DynamicFilter> => ({
  name,
  fields: dynamicFilterFields,
  sideEffects: false,
  service: "secrets",
  run: (ctx, args) => readDynamic(ctx, route, args.secondaryClusterId),
});

const primaryFn = dynamicFilterFn("getPrimaryDynamicFilter", R.pathsFilter.primaryDynamic);
const secondaryFn = dynamicFilterFn("getSecondaryDynamicFilter", R.pathsFilter.secondaryDynamic);

/** The dynamic filter of a secondary, read on the primary of the connection. */
export const getPrimaryDynamicFilter = forms(primaryFn).promise;

/** Output form of {@link getPrimaryDynamicFilter}. */
export const getPrimaryDynamicFilterOutput = forms(primaryFn).output;

/** The dynamic filter read on the secondary of the connection (`secondaryClusterId` is its own cluster id). */
export const getSecondaryDynamicFilter = forms(secondaryFn).promise;

/** Output form of {@link getSecondaryDynamicFilter}. */
export const getSecondaryDynamicFilterOutput = forms(secondaryFn).output;
