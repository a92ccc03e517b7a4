/**
 * A cluster's role as performance primary: `sys/replication/performance/primary/enable`. Demoting it
 * is a function ({@link demotePrimary}); disabling it happens on delete only when asked for, because
 * a disabled primary cuts every secondary off for good.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { ConnectionArgs } from "../../core/connection";
import type { Context, ResourceDefinition } from "../../core/definition";
import { PartialFailure } from "../../core/definition";
import { invoke, invokeOutput, type FunctionDefinition, type InputsOf, type SvcInvokeOptions, type SvcInvokeOutputOptions } from "../../core/fn";
import { SvcResource } from "../../core/resource";
import { fetchStatus, noArgs, transition, type ReplicationStatus } from "./status";
import { REPLICATION_ROUTES as R } from "./routes";

export interface PerformancePrimaryState {
  primaryClusterAddr?: string;
  disableOnDelete?: boolean;
  clusterId?: string;
  [key: string]: unknown;
}

/** An http(s) address such as `https://10.0.0.1:8201`. @internal */
export const clusterAddr = () => z.string({ error: "must be a string" }).regex(/^https?:\/\/[^/\s]+\/?$/, "must be an address such as https://10.0.0.1:8201");

let schema: z.ZodType | undefined;
function buildSchema(): z.ZodType {
  return z.object({
    primaryClusterAddr: clusterAddr().optional(),
    disableOnDelete: z.boolean({ error: "must be a boolean" }).optional(),
  });
}

/** Status → outputs; undefined when the cluster is not a primary any more (gone, for refresh). */
function fromStatus(s: ReplicationStatus, p: PerformancePrimaryState): PerformancePrimaryState | undefined {
  if (s.mode !== "primary") return undefined;
  const out: PerformancePrimaryState = { clusterId: s.clusterId, disableOnDelete: p.disableOnDelete ?? false };
  // The service reports its own address when none was given: kept out of state unless the program set one.
  if (p.primaryClusterAddr !== undefined) out.primaryClusterAddr = sameAddr(p.primaryClusterAddr, s.primaryClusterAddr) ? p.primaryClusterAddr : s.primaryClusterAddr;
  return out;
}

const sameAddr = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

async function readPrimary(ctx: Context, p: PerformancePrimaryState): Promise<PerformancePrimaryState | undefined> {
  return fromStatus(await fetchStatus(ctx), p);
}

const addrBody = (p: PerformancePrimaryState) => (p.primaryClusterAddr ? { primary_cluster_addr: p.primaryClusterAddr } : {});

export const performancePrimaryDefinition: ResourceDefinition<PerformancePrimaryState, PerformancePrimaryState> = {
  kind: "secrets:ReplicationPerformancePrimary",
  schema: () => (schema ??= buildSchema()),
  defaults: { disableOnDelete: false },
  outputs: ["clusterId"],
  async create(ctx, inputs) {
    await transition(ctx, R.primaryEnable, addrBody(inputs), (st) => st.mode === "primary", "primary/enable");
    const id = "sys/replication/performance/primary";
    try {
      const out = await readPrimary(ctx, inputs);
      if (!out) throw new Error("primary/enable succeeded but the status does not report a primary");
      return { id: out.clusterId as string, outs: out };
    } catch (e) {
      throw new PartialFailure(id, inputs, e as Error);
    }
  },
  read: (ctx, _id, props) => readPrimary(ctx, props),
  /**
   * The service has no call that changes a primary's cluster address, but a demoted primary can be
   * promoted back with one: the cluster id, the secondaries and their filters are kept.
   */
  async update(ctx, _id, olds, news) {
    const before = olds.primaryClusterAddr ?? "";
    const after = news.primaryClusterAddr ?? "";
    if (!sameAddr(before, after)) {
      await ctx.client("secrets").request({ route: R.primaryDemote, body: {} });
      await ctx.client("secrets").request({ route: R.secondaryPromote, body: after ? { primary_cluster_addr: after } : {} });
    }
    const out = await readPrimary(ctx, news);
    if (!out) throw new Error("the cluster is no longer a performance primary");
    return out;
  },
  async delete(ctx, _id, props) {
    if (!props.disableOnDelete) return;
    // Already disabled (an earlier destroy whose response was lost) is what delete wants.
    if ((await fetchStatus(ctx)).mode === "disabled") return;
    await transition(ctx, R.primaryDisable, {}, (st) => st.mode === "disabled", "primary/disable");
  },
};

export interface PerformancePrimaryArgs extends ConnectionArgs<"secrets"> {
  /**
   * Address given to secondaries (`primary_cluster_addr`), such as `https://10.0.0.1:8201`; default:
   * the cluster's configured address. Changing it demotes the primary and promotes it back with the
   * new address: the cluster id, its secondaries and their filters stay.
   */
  primaryClusterAddr?: pulumi.Input<string>;
  /**
   * Disable replication on the cluster when this resource is deleted. Default false: deleting the
   * resource only forgets it and the cluster stays primary. Disabling is final for the replication
   * set: every secondary loses its primary, a later enable gets a new cluster id, and the old
   * secondaries can only rejoin by being disabled and enabled again with a new token, which wipes
   * their storage.
   */
  disableOnDelete?: pulumi.Input<boolean>;
}

/**
 * Makes the cluster of its connection the performance primary: `sys/replication/performance/primary/enable`.
 * Only one primary may be active in a replication set; enabling a second one is refused.
 *
 * @example
 * ```ts
 * const east = svc.secrets.connection({ url: "https://east.example.com/v1", token: cfg.requireSecret("eastToken") });
 * const primary = new svc.secrets.replication.PerformancePrimary("east", { connection: east });
 * export const clusterId = primary.clusterId;
 * ```
 */
export class PerformancePrimary extends SvcResource {
  /** Address given to secondaries, when set. */
  declare readonly primaryClusterAddr: pulumi.Output<string | undefined>;
  /** Whether deleting the resource disables replication on the cluster. */
  declare readonly disableOnDelete: pulumi.Output<boolean>;
  /** The primary's cluster id, from the replication status. */
  declare readonly clusterId: pulumi.Output<string>;

  constructor(name: string, args: PerformancePrimaryArgs = {}, opts?: pulumi.CustomResourceOptions) {
    super(performancePrimaryDefinition, name, args, opts);
  }
}

// ---- functions ----

const demoteFn: FunctionDefinition<Record<string, never>, ReplicationStatus> = {
  name: "demotePrimary",
  schema: noArgs,
  sideEffects: true,
  service: "secrets",
  async run(ctx) {
    await ctx.client("secrets").request({ route: R.primaryDemote, body: {} });
    return fetchStatus(ctx);
  },
};

/**
 * Demotes the primary of the connection to a secondary connected to no primary. It keeps its cluster
 * id and can rejoin the set (update-primary, no wipe) or be promoted back. No request during preview.
 * Resolves to the cluster's status after the demotion. A {@link PerformancePrimary} on it reads as
 * gone afterwards.
 */
export function demotePrimary(args: Record<string, never> = {}, opts?: SvcInvokeOptions<"secrets">): Promise<ReplicationStatus> {
  return invoke(demoteFn, args, opts);
}

/** Output form of {@link demotePrimary}: unknown during preview. */
export function demotePrimaryOutput(args: InputsOf<Record<string, never>> = {}, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<ReplicationStatus> {
  return invokeOutput(demoteFn, args, opts);
}
