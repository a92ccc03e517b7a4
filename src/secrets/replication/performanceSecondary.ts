/**
 * A cluster's role as performance secondary: `sys/replication/performance/secondary/enable`.
 * Enabling wipes every mount and object of the cluster, so the resource must be told it may.
 * A new token later is an update-primary (no wipe); delete disables the secondary.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import type { ConnectionArgs } from "../../core/connection";
import type { Context, ResourceDefinition } from "../../core/definition";
import { field, fieldSet, output, pick, type ArgsOf, type Fields, type OutputsOf, type PlainArgsOf, type ReadOf, type StateOf } from "../../core/fields";
import { type FunctionDefinition } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { isUnknown } from "../../core/unknown";
import { isSvcError } from "../../http";
import { clusterAddr } from "./performancePrimary";
import { actingFunction, fetchStatus, sentBody, statusAfter, transition, withStatus, type ReplicationStatus } from "./status";
import { REPLICATION_ROUTES as R } from "./routes";

export const WIPE_NOT_ACKNOWLEDGED =
  "must be true: enabling a performance secondary wipes every mount and object of its cluster (the seed: all data in the cluster is cleared)";

const apiAddr = () => z.string({ error: "must be a string" }).regex(/^https?:\/\/[^\s]+$/, "must be an http(s) URL of the primary's API");
const text = () => z.string({ error: "must be a string" });

export const performanceSecondaryFields = {
  /**
   * Activation token: the `token` of a {@link SecondaryToken} on the primary. Secret and write-only:
   * never read back, state keeps your input as a secret. A new token on an existing secondary is
   * sent as update-primary: the secondary follows the token's primary without a wipe. The primary
   * drops the secondary's paths filter then: give {@link PerformanceSecondary.activation} to the
   * filter's `secondaryActivation` so it is written again.
   */
  token: field(() => text().min(1, "must not be empty: the token of a SecondaryToken"), { secret: true, writeOnly: true }),
  /** Address of the primary's API, overriding the one in the token. */
  primaryApiAddr: field(apiAddr, { optional: true }),
  /**
   * PEM CA file on the secondary to verify the primary's TLS. Sent with a token, so changing it
   * alone is refused (issue a new token).
   */
  caFile: field(text, { optional: true }),
  /**
   * Directory of PEM CA files on the secondary (system roots when neither CA value is given). Sent
   * with a token, so changing it alone is refused (issue a new token).
   */
  caPath: field(text, { optional: true }),
  // Checked on every run and never sent, yet not `local`: the program must give it (local inputs
  // may be left out) and the class shows it. Its only valid value is true, so it never changes.
  /**
   * Must be `true`. Enabling a performance secondary clears all data of its cluster at once: every
   * mount and every object on it is deleted before the primary's replicated data arrives. Never
   * sent: it only lets the resource be created.
   */
  acknowledgeDataWipe: field(() => z.boolean({ error: WIPE_NOT_ACKNOWLEDGED }).refine((v) => v, WIPE_NOT_ACKNOWLEDGED), { notInBody: true }),
  /** The secondary's cluster id: the key of its {@link PathsFilter} on the primary. (The resource id is `sys/replication/performance/secondary`.) */
  clusterId: output<string>(),
  /** The id its token was issued for. */
  secondaryId: output<string>(),
  /** Cluster address of its primary. */
  primaryClusterAddr: output<string>(),
  /**
   * How many tokens the secondary was activated with: 1 after the enable, one more for every new
   * token sent as update-primary. The primary drops the secondary's paths filter at each of those,
   * so give this to {@link PathsFilter}'s `secondaryActivation`: the filter is then written again in
   * the same `pulumi up`, after the secondary.
   */
  activation: output<number>(),
};

export type PerformanceSecondaryState = StateOf<typeof performanceSecondaryFields>;

const secondarySet = fieldSet(performanceSecondaryFields);

/** The inputs sent beside the token: a change of one alone cannot be sent (a token is single-use). */
const SENT_WITH_TOKEN = secondarySet.inputs.filter((k) => !(secondarySet.fields as Fields)[k]!.flags.notInBody && !secondarySet.secrets.includes(k));

const connectBody = (p: PerformanceSecondaryState) => sentBody(secondarySet, p);

// Not reported by the service: the program's values and the count of tokens sent are kept.
const fromStatus = (s: ReplicationStatus, p: PerformanceSecondaryState) => (s.mode === "secondary" ? withStatus(secondarySet, s, p) : undefined);

async function readSecondary(ctx: Context, p: PerformanceSecondaryState): Promise<PerformanceSecondaryState | undefined> {
  return fromStatus(await fetchStatus(ctx), p);
}

/**
 * Whether the secondary follows a new token, from its status before an update-primary: a token is
 * single-use (repeating a used one is refused), so state must record it once the secondary follows
 * it. It does when it names another id or primary than before, or has reconnected.
 */
function followsNewToken(before: ReplicationStatus): (now: ReplicationStatus) => boolean {
  const primaryOf = (s: ReplicationStatus) =>
    JSON.stringify([s.secondaryId, s.primaryClusterAddr, s.knownPrimaryClusterAddrs, s.primaries.map((p) => [p.apiAddress, p.clusterAddress])]);
  const connected = (s: ReplicationStatus) => s.primaries.some((p) => p.connectionStatus === "connected");
  return (now) => primaryOf(now) !== primaryOf(before) || (!connected(before) && connected(now));
}

/**
 * Whether the secondary follows another id or primary than state recorded. After an update-primary
 * is refused, that is the trace of an earlier one with this token whose outcome was never known (its
 * response and the status read after it were both lost): the token was used then.
 */
function movedSince(now: ReplicationStatus, p: PerformanceSecondaryState): boolean {
  if (now.mode !== "secondary" || p.secondaryId === undefined) return false;
  return now.secondaryId !== p.secondaryId || now.primaryClusterAddr !== (p.primaryClusterAddr ?? "");
}

/**
 * The resource's id: the role's path, not the cluster id, because it must be the same whether or
 * not the status could be read after the enable (a partial create knows no cluster id).
 */
const SECONDARY_ID = "sys/replication/performance/secondary";

/** Why a token may be refused on a create: each activates one secondary once. */
const SPENT = "a token activates a secondary once, so a secondary replaced (pulumi up --replace) needs a new one: replace the " +
  "SecondaryToken it comes from too (pulumi up --replace <that token's URN> --replace <this secondary's URN>), or give a new token";

const NOT_FOLLOWED = "the secondary's status shows no change; if the token was used anyway, the next up is refused: issue a new SecondaryToken";

export const performanceSecondaryDefinition: ResourceDefinition<PerformanceSecondaryState, PerformanceSecondaryState> = {
  kind: "secrets:ReplicationPerformanceSecondary",
  routes: { enable: R.secondary.enable, status: R.status.read, updatePrimary: R.secondary.updatePrimary, promote: R.secondary.promote, disable: R.secondary.disable },
  discover: { none: "activating a secondary wipes its data: an active secondary is left out, so that no program of the import can activate it again" },
  risk: {
    created: "activating the secondary wipes every mount and object the cluster held",
    lost: "a delete disables the secondary (it stops replicating, and enabling it again wipes it); a replacement activates it again at once, which wipes it",
    instead: "a new token in place (an update, no wipe) instead of a replacement; `protect: true` on the secondary",
  },
  ...secondarySet,
  async create(ctx, inputs) {
    try {
      await transition(ctx, R.secondary.enable, connectBody(inputs), (st) => st.mode === "secondary", "secondary/enable");
    } catch (e) {
      // A secondary replaced (pulumi up --replace) was disabled first: its token is spent.
      if (isSvcError(e, "invalid_input")) (e as Error).message += `; ${SPENT}`;
      throw e;
    }
    const activated = { ...inputs, activation: 1 };
    return { id: SECONDARY_ID, outs: await statusAfter(ctx, "secondary/enable", "secondary", SECONDARY_ID, activated, fromStatus) };
  },
  read: (ctx, _id, props) => readSecondary(ctx, props),
  /** A new token is an update-primary: the secondary follows the token's primary without a wipe. */
  async update(ctx, id, olds, news) {
    if (olds.token === news.token) {
      if (SENT_WITH_TOKEN.some((k) => (olds[k] ?? "") !== (news[k] ?? ""))) {
        throw new Error(`${SENT_WITH_TOKEN.slice(0, -1).join(", ")} and ${SENT_WITH_TOKEN.at(-1)} are sent with a token: issue a new SecondaryToken for this secondary to change them`);
      }
      const out = await readSecondary(ctx, { ...news, activation: olds.activation });
      if (!out) throw new Error("the cluster is no longer a performance secondary");
      return out;
    }
    const before = await fetchStatus(ctx);
    try {
      await transition(ctx, R.secondary.updatePrimary, connectBody(news), followsNewToken(before), "update-primary", NOT_FOLLOWED);
    } catch (e) {
      if (!(isSvcError(e, "invalid_input") && movedSince(before, olds))) throw e;
      ctx.log(`update-primary: refused (${(e as Error).message}), but the secondary already follows ${before.primaryClusterAddr} as "${before.secondaryId}" ` +
        `instead of what state recorded: an earlier update-primary with this token acted, so it is recorded as used`);
    }
    // The token is used up from here on. Whatever fails now, state must record it, or the next up
    // sends it again and is refused. The id and primary it led to are read back (unknown until then).
    const used: PerformanceSecondaryState = { ...news, activation: (olds.activation ?? 1) + 1 };
    if (olds.clusterId !== undefined) used.clusterId = olds.clusterId;
    return statusAfter(ctx, "update-primary", "secondary", id, used, fromStatus);
  },
  async delete(ctx) {
    // Already disabled (an earlier destroy whose response was lost) is what delete wants.
    if ((await fetchStatus(ctx)).mode === "disabled") return;
    await transition(ctx, R.secondary.disable, {}, (st) => st.mode === "disabled", "secondary/disable");
  },
};

export type PerformanceSecondaryArgs = ArgsOf<typeof performanceSecondaryFields> & ConnectionArgs<"secrets">;

/**
 * Makes the cluster of its connection a performance secondary of the primary that issued `token`:
 * `sys/replication/performance/secondary/enable`. **This wipes the cluster.** Deleting the resource
 * disables the secondary (its data stays, as local data; enabling it again wipes it again).
 *
 * @remarks
 * Because enabling clears all data of that cluster (every mount and object), check refuses the
 * resource unless `acknowledgeDataWipe: true`.
 *
 * @example
 * ```ts
 * const west = svc.secrets.connection({ url: "https://west.example.com/v1", token: cfg.requireSecret("westToken") });
 * const secondary = new svc.secrets.replication.PerformanceSecondary("west", {
 *   token: token.token, acknowledgeDataWipe: true, connection: west,
 * });
 * ```
 */
export interface PerformanceSecondary extends OutputsOf<typeof performanceSecondaryFields> {}
export class PerformanceSecondary extends SvcResource(performanceSecondaryDefinition) { constructor(name: string, args: PerformanceSecondaryArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

const promoteFields = {
  /** Address the new primary gives its secondaries. */
  primaryClusterAddr: field(clusterAddr, { optional: true }),
  /** Skip the safety checks (a secondary behind its primary, or whose primary is unreachable): may lose data. */
  force: field(() => z.boolean({ error: "must be a boolean" }), { optional: true }),
};

/** Arguments of {@link promoteSecondary}. */
export type PromoteSecondaryArgs = PlainArgsOf<typeof promoteFields>;

const updatePrimaryFieldsOwn = {
  /** A new activation token (secret); `""` clears the knowledge of any past primary. */
  token: field(text, { optional: true, secret: true }),
  /** Cluster addresses tried in order; the first that answers as primary becomes the primary. */
  updatePrimaryAddrs: field(() => z.array(text().min(1, "must not be empty"), { error: "must be a list of cluster addresses" }), { optional: true }),
};

const updatePrimaryFields: Pick<typeof performanceSecondaryFields, "primaryApiAddr" | "caFile" | "caPath"> & typeof updatePrimaryFieldsOwn = { ...pick(performanceSecondaryFields, "primaryApiAddr", "caFile", "caPath"), ...updatePrimaryFieldsOwn };

/** Arguments of {@link updatePrimary}: `token` or `updatePrimaryAddrs`, not both. */
export type UpdatePrimaryArgs = PlainArgsOf<typeof updatePrimaryFields>;

const publicKeyFields = {
  /** Base64 X25519 public key, for {@link SecondaryToken}'s `secondaryPublicKey`. */
  secondaryPublicKey: output<string>({ default: "", decode: String }),
};

const publicKeySet = fieldSet(publicKeyFields);

/** The secondary's key from {@link generateSecondaryPublicKey}. */
export interface SecondaryPublicKey extends ReadOf<typeof publicKeyFields> {}

const promoteSet = fieldSet(promoteFields);

const promoteFn = actingFunction<PromoteSecondaryArgs>({ name: "promoteSecondary", fields: promoteFields }, R.secondary.promote,
  (args) => sentBody(promoteSet, { ...args, force: args.force ?? false }));

/**
 * Promotes the secondary of the connection to primary. Refused while another primary is active;
 * without `force` also when it may lack writes of its primary. Other secondaries need new tokens
 * from it. No request during preview. Resolves to the cluster's status after the promotion.
 */
export const promoteSecondary = forms(promoteFn, { argsOptional: true }).promise;

/** Output form of {@link promoteSecondary}: unknown during preview. */
export const promoteSecondaryOutput = forms(promoteFn, { argsOptional: true }).output;

const updatePrimarySet = fieldSet(updatePrimaryFields, {
  refine(v, ctx) {
    const addrs = Array.isArray(v.updatePrimaryAddrs) && v.updatePrimaryAddrs.length > 0;
    if (isUnknown(v.token) || isUnknown(v.updatePrimaryAddrs)) return;
    if (v.token !== undefined && addrs) ctx.addIssue({ code: "custom", path: ["updatePrimaryAddrs"], message: "cannot be given with token: give one of them" });
    if (v.token === undefined && !addrs) ctx.addIssue({ code: "custom", path: ["token"], message: 'give token ("" forgets the past primary) or updatePrimaryAddrs' });
  },
});

const updateFn = actingFunction<UpdatePrimaryArgs>({
  name: "updatePrimary",
  schema: updatePrimarySet.schema,
  // The token is registered for redaction from these fields before any request.
  fields: updatePrimaryFields,
}, R.secondary.updatePrimary, (args) => ({
  ...sentBody(updatePrimarySet, args),
  // An empty token is sent all the same: it forgets the past primary.
  ...(args.token === "" ? { token: "" } : {}),
}));

/**
 * Points the secondary of the connection at a primary, without a wipe: with a new `token`, with
 * `updatePrimaryAddrs` (not both; checked before any request), or with `token: ""` to forget its
 * past primary. A primary whose replication
 * was disabled and enabled again leads a new set: joining it needs a wipe (a new PerformanceSecondary).
 * No request during preview. Resolves to the secondary's status afterwards.
 */
export const updatePrimary = forms(updateFn).promise;

/** Output form of {@link updatePrimary}: unknown during preview. */
export const updatePrimaryOutput = forms(updateFn).output;

const keyFn: FunctionDefinition<Record<string, never>, SecondaryPublicKey> = {
  name: "generateSecondaryPublicKey",
  fields: {},
  // The first call makes the cluster's key pair.
  sideEffects: true,
  service: "secrets",
  async run(ctx) {
    const res = await ctx.client("secrets").request({ route: R.secondary.generatePublicKey, body: {} });
    const data = (res.body as { data?: Record<string, unknown> } | undefined)?.data;
    return publicKeySet.decode(data ?? {}, {}) as SecondaryPublicKey;
  },
};

/**
 * The public key of the cluster of the connection (a future secondary), for a {@link SecondaryToken}
 * whose credentials are then encrypted to it. The first call makes the key (so it acts); later
 * calls return the same key until the cluster's secondary is disabled. No request during preview.
 */
export const generateSecondaryPublicKey = forms(keyFn, { argsOptional: true }).promise;

/** Output form of {@link generateSecondaryPublicKey}: unknown during preview. */
export const generateSecondaryPublicKeyOutput = forms(keyFn, { argsOptional: true }).output;
