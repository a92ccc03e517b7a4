/**
 * Replication status: `GET /sys/replication/performance/status`, the one replication endpoint that
 * needs no token. Also the read of every replication resource, and what the acting functions return.
 */
import { isAmbiguous } from "../../http";
import { PartialFailure, type Context, type Props } from "../../core/definition";
import { type FunctionDefinition } from "../../core/fn";
import { fieldSet, nested, output, reportedText, type Field, type FieldSet, type ReadOf } from "../../core/fields";
import { forms } from "../../core/forms";
import { dataOf } from "../envelope";
import { REPLICATION_ROUTES as R } from "./routes";

const text = reportedText;
const count = () => output<number>({ default: 0, decode: Number });
const texts = () => output<string[]>({ default: [], decode: (v) => (Array.isArray(v) ? v.map(String) : []) });

// What a status says of the cluster at the other end of a replication connection, from either end.
const peerFields = {
  /** Its API address. */
  apiAddress: text(),
  /** Its cluster address. */
  clusterAddress: text(),
  /** `connected` or `disconnected`. */
  connectionStatus: text(),
  /** Timestamp of the last heartbeat, "" before the first. */
  lastHeartbeat: text(),
};

const secondaryOwnFields = {
  /** The `id` its activation token was issued for. */
  secondaryId: text(),
  /** The secondary's own cluster id (the key of its paths filter). */
  clusterId: text(),
  /** The secondary's active node. */
  nodeId: text(),
};

const secondaryInfoFields: typeof secondaryOwnFields & typeof peerFields = { ...secondaryOwnFields, ...peerFields };

/** A secondary as its primary's status lists it. */
export interface ReplicationSecondaryInfo extends ReadOf<typeof secondaryInfoFields> {}

const primaryInfoFields = peerFields;

/** The primary as a secondary's status names it. */
export interface ReplicationPrimaryInfo extends ReadOf<typeof primaryInfoFields> {}

const statusFields = {
  /** `disabled`, `primary` or `secondary`. */
  mode: output<string>({ default: "disabled", decode: (v) => (typeof v === "string" && v !== "" ? v : "disabled") }),
  /** The cluster id; "" while disabled. */
  clusterId: text(),
  /** `running` on a primary; `stream-wals`, `connecting` or `idle` on a secondary; "" while disabled. */
  state: text(),
  /** Primary: the address it gives secondaries. Secondary: the address of its primary ("" when none). */
  primaryClusterAddr: text(),
  /** Primary: ids of its activated secondaries. */
  knownSecondaries: texts(),
  /** Primary: its secondaries and their connections. */
  secondaries: nested(secondaryInfoFields, { list: true }) as Field<ReplicationSecondaryInfo[], "output">,
  /** Primary: the last write-ahead-log index. */
  lastWal: count(),
  /** Hash of the replicated storage; equal on a primary and an unfiltered, caught-up secondary. */
  merkleRoot: text(),
  /** Primary: whether the merkle tree is corrupted. */
  corruptedMerkleTree: output<boolean>({ default: false, decode: (v) => v === true }),
  /** Primary: Unix seconds of the last corruption check, as text. */
  lastCorruptionCheckEpoch: text(),
  /** Secondary: cluster addresses of the primaries it knows. */
  knownPrimaryClusterAddrs: texts(),
  /** Secondary: the last WAL index streamed from the primary. */
  lastRemoteWal: count(),
  /** Secondary: its primary and the connection to it. */
  primaries: nested(primaryInfoFields, { list: true }) as Field<ReplicationPrimaryInfo[], "output">,
  /** Secondary: the `id` it activated with ("" when no primary is known). */
  secondaryId: text(),
};

/** A cluster's performance-replication status; fields of the other modes are empty. */
export interface ReplicationStatus extends ReadOf<typeof statusFields> {}

const statusSet = fieldSet(statusFields);

export function statusOf(d: Record<string, unknown>): ReplicationStatus {
  return statusSet.decode(d, {}) as ReplicationStatus;
}

export async function fetchStatus(ctx: Context): Promise<ReplicationStatus> {
  const res = await ctx.client("secrets").request({ route: R.status.read });
  return statusOf(dataOf(res.body));
}

/**
 * A mode change (enable, disable) whose outcome is unknown (lost response, 5xx, 429) is read back
 * from the status, which needs no token: when the cluster reached the mode, the change happened
 * and is not repeated (a second enable or disable would be refused). Otherwise the failure stands.
 */
export async function transition(ctx: Context, route: string, body: Record<string, unknown>, reached: (s: ReplicationStatus) => boolean,
  what: string, notReached?: string): Promise<void> {
  try {
    await ctx.client("secrets").request({ route, body });
  } catch (e) {
    if (!isAmbiguous(e)) throw e;
    let now: ReplicationStatus;
    try {
      now = await fetchStatus(ctx);
    } catch {
      throw e;
    }
    if (!reached(now)) {
      if (notReached) (e as Error).message += ` (${notReached})`;
      throw e;
    }
    ctx.log(`${what}: the response was lost (${(e as Error).message}), but the status shows it done (the cluster is ${now.mode})`);
  }
}

/**
 * A resource's outputs read from the status after `what` changed the cluster's role. The cluster
 * has changed by then, so a status that cannot be read, or that does not report the `role`, keeps
 * the resource in state as `id` with `recorded` (a partial failure).
 */
export async function statusAfter<S extends Props>(ctx: Context, what: string, role: string, id: string, recorded: S,
  fromStatus: (s: ReplicationStatus, p: S) => S | undefined): Promise<S> {
  try {
    const out = fromStatus(await fetchStatus(ctx), recorded);
    if (!out) throw new Error(`${what} succeeded but the status does not report a ${role}`);
    return out;
  } catch (e) {
    throw new PartialFailure(id, recorded, e as Error);
  }
}

/**
 * A replication resource's state from a status read: each field as state knew it (the program's
 * inputs with their defaults, a write-only token, what the service does not report), then each of
 * the record's outputs the status reports under the same name.
 */
export function withStatus<S extends Props>(set: FieldSet, s: ReplicationStatus, known: S): S {
  const out = set.decode({}, known);
  const reported = s as unknown as Props;
  for (const k of set.outputs) if (k in reported) out[k] = reported[k];
  return out as S;
}

/**
 * The body of a replication request from a record's fields: the inputs given, but those never sent
 * (`notInBody`: they steer the resource only), and no empty text or list (the service would take
 * `""` as a value).
 */
export function sentBody(set: FieldSet, p: Props): Record<string, unknown> {
  return Object.fromEntries(Object.entries(set.body(p)).filter(([, v]) => v !== "" && !(Array.isArray(v) && v.length === 0)));
}

/**
 * A function that acts on replication with one request (demote, promote, update-primary, revoke)
 * and resolves to the cluster's status afterwards. It acts: no request during preview.
 */
export function actingFunction<A>(def: Pick<FunctionDefinition<A, ReplicationStatus>, "name" | "fields" | "schema">, route: string,
  body: (args: A) => Record<string, unknown>): FunctionDefinition<A, ReplicationStatus> {
  return {
    ...def,
    sideEffects: true,
    service: "secrets",
    async run(ctx, args) {
      await ctx.client("secrets").request({ route, body: body(args) });
      return fetchStatus(ctx);
    },
  };
}

const statusFn: FunctionDefinition<Record<string, never>, ReplicationStatus> = {
  name: "getReplicationStatus",
  fields: {},
  sideEffects: false,
  service: "secrets",
  tokenless: true,
  run: (ctx) => fetchStatus(ctx),
};

/**
 * The performance-replication status of the cluster the connection names. Needs no token: a
 * connection with only a `url` (or `svc:secretsUrl` alone) is enough. Fields of the other modes
 * (a primary's secondaries, a secondary's primaries) are empty.
 */
export const getReplicationStatus = forms(statusFn, { argsOptional: true }).promise;

/** Output form of {@link getReplicationStatus}. */
export const getReplicationStatusOutput = forms(statusFn, { argsOptional: true }).output;
