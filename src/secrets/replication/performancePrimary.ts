/**
 * A cluster's role as performance primary: `sys/replication/performance/primary/enable`. Demoting it
 * is a function ({@link demotePrimary}); disabling it happens on delete only when asked for, because
 * a disabled primary cuts every secondary off for good.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import type { ConnectionArgs } from "../../core/connection";
import type { Context, ResourceDefinition } from "../../core/definition";
import { PartialFailure, type Props } from "../../core/definition";
import { field, fieldSet, output, type ArgsOf, type OutputsOf, type StateOf } from "../../core/fields";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { isAmbiguous } from "../../http";
import { actingFunction, fetchStatus, sentBody, statusAfter, transition, withStatus, type ReplicationStatus } from "./status";
import { REPLICATION_ROUTES as R } from "./routes";

/** An http(s) address such as `https://10.0.0.1:8201`. @internal */
export const clusterAddr = () => z.string({ error: "must be a string" }).regex(/^https?:\/\/[^/\s]+\/?$/, "must be an address such as https://10.0.0.1:8201");

export const performancePrimaryFields = {
  /**
   * Address given to secondaries (`primary_cluster_addr`), such as `https://10.0.0.1:8201`; default:
   * the cluster's configured address. Changing it demotes the primary and promotes it back with the
   * new address: the cluster id, its secondaries and their filters stay. When the promote fails, the
   * cluster stays demoted and state records `""` here, so the next `pulumi up` promotes it back.
   */
  primaryClusterAddr: field(clusterAddr, { optional: true }),
  // Never sent, but not local: delete reads it from state, so a change must reach state by an update.
  /**
   * Disable replication on the cluster when this resource is deleted. Default false: deleting the
   * resource only forgets it and the cluster stays primary. Disabling is final for the replication
   * set: every secondary loses its primary, a later enable gets a new cluster id, and the old
   * secondaries can only rejoin by being disabled and enabled again with a new token, which wipes
   * their storage.
   */
  disableOnDelete: field(() => z.boolean({ error: "must be a boolean" }), { default: false, notInBody: true }),
  /** The primary's cluster id, from the replication status. (The resource id is `sys/replication/performance/primary`.) */
  clusterId: output<string>(),
};

export type PerformancePrimaryState = StateOf<typeof performancePrimaryFields>;

const primarySet = fieldSet(performancePrimaryFields);

const addrBody = (p: Props) => sentBody(primarySet, p);

/**
 * The resource's id: the role's path, not the cluster id, because it must be the same whether or
 * not the status could be read after the enable (a partial create knows no cluster id).
 */
const PRIMARY_ID = "sys/replication/performance/primary";

/**
 * What state records as `primaryClusterAddr` while the cluster is demoted: a demoted primary gives
 * secondaries no address. No program can ask for "" (check wants an address), so the next up sees a
 * change and promotes the cluster back.
 */
const DEMOTED_ADDR = "";

/**
 * Whether the status shows this resource's cluster demoted: a secondary that kept its cluster id and
 * follows no primary, as a change of address leaves it between its demote and its promote. A
 * cluster that joined a primary since is not ours to promote: it reads as gone.
 */
function demotedHere(s: ReplicationStatus, clusterId: unknown): boolean {
  return s.mode === "secondary" && typeof clusterId === "string" && clusterId !== "" && s.clusterId === clusterId &&
    s.secondaryId === "" && s.primaryClusterAddr === "";
}

/** Status → outputs; undefined when the cluster is not this primary any more (gone, for refresh). */
function fromStatus(s: ReplicationStatus, p: PerformancePrimaryState): PerformancePrimaryState | undefined {
  const out = withStatus(primarySet, s, p);
  if (demotedHere(s, p.clusterId)) return { ...out, primaryClusterAddr: DEMOTED_ADDR };
  if (s.mode !== "primary") return undefined;
  // The service reports its own address when none was given: kept out of state unless the program set one.
  if (p.primaryClusterAddr !== undefined) out.primaryClusterAddr = sameAddr(p.primaryClusterAddr, s.primaryClusterAddr) ? p.primaryClusterAddr : s.primaryClusterAddr;
  return out;
}

const sameAddr = (a: string, b: string) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "");

async function readPrimary(ctx: Context, p: PerformancePrimaryState): Promise<PerformancePrimaryState | undefined> {
  return fromStatus(await fetchStatus(ctx), p);
}

/** The status, or the failure whose outcome it was to settle when it cannot be read either. */
async function statusOr(ctx: Context, e: unknown): Promise<ReplicationStatus> {
  try {
    return await fetchStatus(ctx);
  } catch {
    throw e;
  }
}

/**
 * Promotes this resource's demoted cluster back to primary. A promote whose outcome is unknown is
 * read back; only when the status shows the cluster still demoted is it sent once more, because a
 * promote that did act would be refused the second time and leave us knowing nothing.
 */
async function promoteBack(ctx: Context, clusterId: string, addr: string): Promise<void> {
  const body = addrBody({ primaryClusterAddr: addr });
  const promoted = (st: ReplicationStatus) => st.mode === "primary" && st.clusterId === clusterId;
  try {
    await transition(ctx, R.secondary.promote, body, promoted, "secondary/promote");
    return;
  } catch (e) {
    if (!isAmbiguous(e)) throw e;
    // transition read the status back, or failed to: read it once more to know which.
    const now = await statusOr(ctx, e);
    if (promoted(now)) return;
    if (!demotedHere(now, clusterId)) throw e;
    ctx.log(`secondary/promote did not act (${(e as Error).message}): the cluster is still demoted, so it is promoted once more`);
  }
  await transition(ctx, R.secondary.promote, body, promoted, "secondary/promote");
}

/** A failure after the demote: the cluster is not a primary now, and the message says what the next up does. */
function stillDemoted(e: unknown, clusterId: string): Error {
  return new Error(`${(e as Error).message}; cluster ${clusterId} is demoted (not a primary) until the next pulumi up promotes it back`);
}

export const performancePrimaryDefinition: ResourceDefinition<PerformancePrimaryState, PerformancePrimaryState> = {
  kind: "secrets:ReplicationPerformancePrimary",
  // The cluster's mode, not an object: enabled, read from the status, moved by demote and promote, disabled.
  routes: { enable: R.primary.enable, status: R.status.read, demote: R.primary.demote, promote: R.secondary.promote, disable: R.primary.disable },
  discover: { none: "the primary role is the cluster's mode, not an object: creating the resource enables it, which the service refuses for a primary; declare it only where Pulumi enables replication" },
  risk: {
    lost: "replication is disabled on the cluster, so every secondary loses its primary and can rejoin only by being activated again, which wipes it",
    lostOnlyIf: "disableOnDelete",
    changes: { primaryClusterAddr: "the primary is demoted and promoted back at the new address, and its secondaries stop replicating until they reach it there" },
    instead: "`protect: true` on the primary; leave `disableOnDelete` false to only forget it",
  },
  ...primarySet,
  async create(ctx, inputs) {
    await transition(ctx, R.primary.enable, addrBody(inputs), (st) => st.mode === "primary", "primary/enable");
    return { id: PRIMARY_ID, outs: await statusAfter(ctx, "primary/enable", "primary", PRIMARY_ID, inputs, fromStatus) };
  },
  read: (ctx, _id, props) => readPrimary(ctx, props),
  /**
   * The service has no call that changes a primary's cluster address, but a demoted primary can be
   * promoted back with one: the cluster id, the secondaries and their filters are kept. Between the
   * two the cluster is no primary, so a failure there is recorded (partial failure) as the demoted
   * cluster it left, and the next up (or this one, when the status shows it) promotes it back.
   */
  async update(ctx, id, olds, news) {
    const now = await fetchStatus(ctx);
    const clusterId = typeof olds.clusterId === "string" && olds.clusterId !== "" ? olds.clusterId : now.clusterId;
    const wanted = news.primaryClusterAddr ?? "";
    const demoted = demotedHere(now, clusterId);
    const move = demoted || !sameAddr(olds.primaryClusterAddr ?? "", wanted);
    if (move) {
      if (!demoted) await transition(ctx, R.primary.demote, {}, (st) => demotedHere(st, clusterId), "primary/demote");
      try {
        await promoteBack(ctx, clusterId, wanted);
      } catch (e) {
        throw new PartialFailure(id, { ...news, clusterId, primaryClusterAddr: DEMOTED_ADDR }, stillDemoted(e, clusterId));
      }
    }
    let out: PerformancePrimaryState | undefined;
    try {
      out = await readPrimary(ctx, { ...news, clusterId });
    } catch (e) {
      // Promoted with the new address already: state must not keep the old one, or the next up demotes again.
      if (move) throw new PartialFailure(id, { ...news, clusterId }, e as Error);
      throw e;
    }
    if (!out) throw new Error("the cluster is no longer a performance primary");
    return out;
  },
  async delete(ctx, _id, props) {
    const recordedDemoted = props.primaryClusterAddr === DEMOTED_ADDR;
    // Deleting only forgets a primary: no request, unless state says a change of address left it demoted.
    if (!props.disableOnDelete && !recordedDemoted) return;
    const now = await fetchStatus(ctx);
    const disabled = (st: ReplicationStatus) => st.mode === "disabled";
    // Already disabled (an earlier destroy whose response was lost) is what delete wants.
    if (disabled(now)) return;
    const clusterId = props.clusterId as string;
    if (demotedHere(now, clusterId)) {
      // A demoted primary is a secondary now and is disabled as one; without disableOnDelete it is
      // promoted back, because deleting the resource leaves the cluster primary.
      if (props.disableOnDelete) await transition(ctx, R.secondary.disable, {}, disabled, "secondary/disable");
      else await promoteBack(ctx, clusterId, "");
      return;
    }
    if (props.disableOnDelete) await transition(ctx, R.primary.disable, {}, disabled, "primary/disable");
  },
};

export type PerformancePrimaryArgs = ArgsOf<typeof performancePrimaryFields> & ConnectionArgs<"secrets">;

/**
 * Makes the cluster of its connection the performance primary: `sys/replication/performance/primary/enable`.
 * Only one primary may be active in a replication set; enabling a second one fails with the
 * service's message.
 *
 * @remarks
 * The resource id is `sys/replication/performance/primary`, known even when the status cannot be
 * read after the enable. Demoting is a function (`demotePrimary`). A demoted primary reads as
 * demoted on refresh (`primaryClusterAddr` `""`) and the next `up` promotes it back; a disabled one,
 * or one that joined another primary, reads as gone. Deleting the resource while it is demoted
 * promotes it back (or, with `disableOnDelete`, disables it).
 *
 * @example
 * ```ts
 * const east = svc.secrets.connection({ url: "https://east.example.com/v1", token: cfg.requireSecret("eastToken") });
 * const primary = new svc.secrets.replication.PerformancePrimary("east", { connection: east });
 * export const clusterId = primary.clusterId;
 * ```
 */
export interface PerformancePrimary extends OutputsOf<typeof performancePrimaryFields> {}
export class PerformancePrimary extends SvcResource(performancePrimaryDefinition) { constructor(name: string, args: PerformancePrimaryArgs = {}, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

const demoteFn = actingFunction<Record<string, never>>({ name: "demotePrimary", fields: {} }, R.primary.demote, () => ({}));

/**
 * Demotes the primary of the connection to a secondary connected to no primary. It keeps its cluster
 * id and can rejoin the set (update-primary, no wipe) or be promoted back. No request during preview.
 * Resolves to the cluster's status after the demotion. A {@link PerformancePrimary} on it reads as
 * demoted afterwards (`primaryClusterAddr` `""`) and the next `pulumi up` promotes it back; once the
 * cluster joins another primary it reads as gone.
 */
export const demotePrimary = forms(demoteFn, { argsOptional: true }).promise;

/** Output form of {@link demotePrimary}: unknown during preview. */
export const demotePrimaryOutput = forms(demoteFn, { argsOptional: true }).output;
