import { existsSync, readFileSync, statSync } from "node:fs";
import { X509Certificate } from "node:crypto";
import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { Mount } from "../state";
import { dict, hasOwn, nullProto } from "../../util";
import type { SystemContext } from "../context";
import { dataReply, secretsError } from "../envelope";
import { bad, body, bool, guarded, requiredStr, str, strList, type Body } from "../fields";
import { initialIdentity } from "../identity/state";
import { emptyMfa } from "../mfa/state";
import { emptyPlugins } from "../plugins/state";
import { digestMounts, freshPrimary, here, normaliseAddr, secondPrimary, stateOf, type ClusterHandle, type ReplicationNetwork, type SecretsStore } from "./network";
import { clusterAddrOf } from "./performancePrimary";
import { decryptWith, digestOf, isEncrypted, newKeyPair, readClaims } from "./secondaryToken";
import { disableReplication, idleSecondary, newClusterId, type ReplicationState, type SecondaryState } from "./state";

// Routes relative to `sys/`.
export const SECONDARY_PATH = "replication/performance/secondary";
const S = SECONDARY_PATH;

export function requireSecondary(st: ReplicationState): SecondaryState {
  if (st.mode !== "secondary" || !st.secondary) bad(`this cluster is not a performance secondary (mode: ${st.mode})`);
  return st.secondary;
}

/** `ca_file` and `ca_path` are read on the secondary as the real service does: they must exist. */
function caOf(b: Body): { caFile: string; caPath: string } {
  const caFile = str(b, "ca_file") ?? "";
  const caPath = str(b, "ca_path") ?? "";
  const problems: string[] = [];
  if (caFile !== "") {
    try {
      new X509Certificate(readFileSync(caFile));
    } catch {
      problems.push(`ca_file must be a readable PEM CA certificate file: ${caFile}`);
    }
  }
  if (caPath !== "" && !(existsSync(caPath) && statSync(caPath).isDirectory())) problems.push(`ca_path must be a directory of PEM files: ${caPath}`);
  if (problems.length > 0) bad(...problems);
  return { caFile, caPath };
}

function generatePublicKey(ctx: SystemContext): Reply {
  const { st } = here(ctx);
  if (st.mode === "primary") bad("this cluster is a performance primary: a public key is for a cluster that is about to become a secondary");
  // The same key until the cluster is disabled, so a token issued for it stays usable.
  st.keyPair ??= newKeyPair();
  return dataReply({ secondary_public_key: st.keyPair.publicKey });
}

interface Redeemed {
  primary: ClusterHandle;
  /** The secondary id the token was issued for. */
  id: string;
  clusterAddr: string;
}

/**
 * Unwraps an activation token through the primary it names (or `primary_api_addr`), as the real
 * secondary does over the primary's API. `admit` runs before the token is used up, so a refused
 * request leaves the token valid.
 */
function redeem(net: ReplicationNetwork, me: ClusterHandle, st: ReplicationState, token: string, apiAddr: string,
  admit: (primary: ClusterHandle) => void): Redeemed {
  let wrapped = token;
  if (isEncrypted(token)) {
    if (!st.keyPair) bad("the token is encrypted to a secondary public key, but this cluster has none: call secondary/generate-public-key and issue the token with that key");
    const plain = decryptWith(st.keyPair.privateKey, token);
    if (plain === undefined) bad("the token was encrypted to another cluster's public key: issue it with the key from this cluster's secondary/generate-public-key");
    wrapped = String((JSON.parse(plain) as { token?: unknown }).token ?? "");
  }
  const claims = readClaims(wrapped);
  if (!claims) bad("token is not an activation token: give the wrap_info.token (or, with a public key, the data.token) of primary/secondary-token");
  const addr = apiAddr || claims.addr;
  const primary = net.byApiAddr(addr);
  if (!primary) bad(`could not reach a primary at ${addr}`);
  if (primary === me) bad("a cluster cannot be a secondary of itself");
  const ps = stateOf(primary);
  if (ps.mode !== "primary" || !ps.primary) bad(`the cluster at ${addr} is not an active performance primary`);
  const digest = digestOf(wrapped);
  const pending = hasOwn(ps.primary.pending, digest) ? ps.primary.pending[digest] : undefined;
  if (!pending) bad(`the primary at ${addr} does not know this activation token: it is invalid, already used or revoked, or another primary issued it`);
  if (pending.expires <= Date.now()) {
    delete ps.primary.pending[digest];
    bad("the activation token has expired: issue a new one with primary/secondary-token");
  }
  admit(primary);
  delete ps.primary.pending[digest];
  return { primary, id: pending.id, clusterAddr: ps.primary.clusterAddr };
}

/** Records the secondary on its new primary; a filter kept for this cluster id is dropped (seed: recreate it). */
function join(me: ClusterHandle, st: ReplicationState, r: Redeemed, apiAddr: string, ca: { caFile: string; caPath: string }): void {
  const p = stateOf(r.primary).primary!;
  p.secondaries[r.id] = { clusterId: st.clusterId, apiAddr: me.apiAddr, clusterAddr: me.apiAddr, nodeId: st.nodeId, activatedAt: new Date().toISOString(), lastHeartbeat: "" };
  delete p.filters[st.clusterId];
  const sec = st.secondary ?? idleSecondary([], 0);
  st.secondary = {
    ...sec,
    secondaryId: r.id,
    primaryClusterId: stateOf(r.primary).clusterId,
    primaryClusterAddr: r.clusterAddr,
    primaryApiAddr: apiAddr || r.primary.apiAddr,
    knownPrimaryClusterAddrs: [r.clusterAddr],
    ...ca,
    syncKey: "",
  };
  st.setId = stateOf(r.primary).setId;
  delete st.primary;
  r.primary.store.save();
}

/** Clears all data of the cluster: every mount and every object, before any replicated data arrives. */
function wipe(me: ClusterHandle): void {
  const secrets = me.store.data.secrets;
  secrets.mounts = dict();
  secrets.identity = initialIdentity();
  secrets.mfa = emptyMfa();
  secrets.plugins = emptyPlugins();
}

function enable(ctx: SystemContext, req: Incoming): Reply {
  const { net, me, st } = here(ctx);
  const b = body(req);
  const token = requiredStr(b, "token");
  const apiAddr = str(b, "primary_api_addr") ?? "";
  const ca = caOf(b);
  if (st.mode === "secondary") bad("this cluster is already a performance secondary: use update-primary to follow another primary, or disable it first");
  if (st.mode === "primary") bad("this cluster is a performance primary: demote or disable it first");
  const r = redeem(net, me, st, token, apiAddr, () => undefined);
  wipe(me);
  st.mode = "secondary";
  st.clusterId = newClusterId();
  st.secondary = idleSecondary([], 0);
  join(me, st, r, apiAddr, ca);
  return emptyReply(204);
}

function promote(ctx: SystemContext, req: Incoming): Reply {
  const { net, me, st } = here(ctx);
  const sec = requireSecondary(st);
  const b = body(req);
  const addr = clusterAddrOf(b);
  const force = bool(b, "force") ?? false;
  const other = net.activePrimary();
  if (other) bad(secondPrimary(other));
  if (!force && sec.primaryClusterId !== "") {
    const old = net.byClusterId(sec.primaryClusterId);
    const lastWal = old ? stateOf(old).primary?.lastWal : undefined;
    if (lastWal === undefined) {
      bad(`cannot confirm that this secondary holds every write of its primary (cluster ${sec.primaryClusterId} cannot be reached); promote with force to accept possible data loss`);
    }
    if (lastWal > sec.lastRemoteWal) {
      bad(`this secondary is behind its primary (last_remote_wal ${sec.lastRemoteWal}, primary last_wal ${lastWal}); promote with force to accept losing those writes`);
    }
  }
  const kept = st.primary;
  st.mode = "primary";
  st.primary = kept ?? freshPrimary(me, addr, sec.lastRemoteWal);
  if (addr !== "") st.primary.clusterAddr = addr;
  delete st.secondary;
  return emptyReply(204);
}

/** Keeps the data, now local; a later enable makes a new cluster id and wipes again. */
function disable(ctx: SystemContext): Reply {
  const { st } = here(ctx);
  requireSecondary(st);
  disableReplication(st);
  delete st.keyPair;
  return emptyReply(204);
}

function lineage(st: ReplicationState, primary: ClusterHandle, addr: string): void {
  if (stateOf(primary).setId === st.setId) return;
  bad(`the primary at ${addr} leads another replication set than the one this secondary's storage comes from ` +
    "(its primary was disabled and enabled again, or this cluster joined elsewhere); update-primary never wipes: " +
    "disable this secondary and enable it with a new token, which wipes its storage");
}

function updatePrimary(ctx: SystemContext, req: Incoming): Reply {
  const { net, me, st } = here(ctx);
  const sec = requireSecondary(st);
  const b = body(req);
  const hasToken = b.token !== undefined && b.token !== null;
  const token = str(b, "token") ?? "";
  const addrs = strList(b, "update_primary_addrs", true) ?? [];
  const apiAddr = str(b, "primary_api_addr") ?? "";
  const ca = caOf(b);
  if (hasToken && addrs.length > 0) bad("token and update_primary_addrs are mutually exclusive: give one of them");
  if (!hasToken && addrs.length === 0) bad("give token (blank to forget the past primary) or update_primary_addrs");
  if (hasToken && token === "") {
    st.secondary = { ...idleSecondary(sec.replicatedMounts, sec.lastRemoteWal), lastHeartbeat: sec.lastHeartbeat };
    return emptyReply(204);
  }
  if (hasToken) {
    const r = redeem(net, me, st, token, apiAddr, (primary) => lineage(st, primary, apiAddr || primary.apiAddr));
    join(me, st, r, apiAddr, ca);
    return emptyReply(204);
  }
  // Pinged in order; the first that answers as an active primary becomes the primary.
  const found = addrs
    .map((a) => ({ a, c: net.clusters.find((c) => stateOf(c).mode === "primary" && normaliseAddr(stateOf(c).primary!.clusterAddr) === normaliseAddr(a)) }))
    .find((x) => x.c !== undefined);
  if (!found?.c) bad(`none of update_primary_addrs answered as an active performance primary: ${addrs.join(", ")}`);
  lineage(st, found.c, found.a);
  st.secondary = {
    ...sec,
    primaryClusterId: stateOf(found.c).clusterId,
    primaryClusterAddr: found.a,
    primaryApiAddr: apiAddr || found.c.apiAddr,
    knownPrimaryClusterAddrs: [...addrs],
    ...(ca.caFile || ca.caPath ? ca : {}),
    syncKey: "",
  };
  delete st.primary;
  return emptyReply(204);
}

export const performanceSecondaryRoutes: Route<SystemContext>[] = [
  { method: "POST", path: `${S}/generate-public-key`, handler: guarded(generatePublicKey) },
  { method: "POST", path: `${S}/enable`, handler: guarded(enable) },
  { method: "POST", path: `${S}/promote`, handler: guarded(promote) },
  { method: "POST", path: `${S}/disable`, handler: guarded(disable) },
  { method: "POST", path: `${S}/update-primary`, handler: guarded(updatePrimary) },
];

/**
 * A performance secondary serves reads of replicated mounts but takes no writes to them: a request
 * that would change a replicated mount's storage (whatever its method: a GET can mint credentials)
 * is undone and refused, so the secondary never diverges from its primary. Requests that change
 * nothing (reads, FPE encode) pass.
 */
export async function guardReplicated(rt: { store: SecretsStore }, mountPath: string, mount: Mount, run: () => Promise<Reply>): Promise<Reply> {
  const st = stateOf(rt);
  if (st.mode !== "secondary" || !st.secondary?.replicatedMounts.includes(mountPath)) return run();
  const before = JSON.stringify(mount.objects);
  const digest = digestMounts({ [mountPath]: mount });
  const reply = await run();
  if (digestMounts({ [mountPath]: mount }) === digest) return reply;
  mount.objects = nullProto(JSON.parse(before) as Mount["objects"]);
  const from = st.secondary.primaryClusterId === "" ? "its primary" : `primary cluster ${st.secondary.primaryClusterId}`;
  return secretsError(400, `cannot write to "${mountPath}/" on a performance secondary: the mount is replicated from ${from}; send writes to the primary`);
}
