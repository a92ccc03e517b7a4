/**
 * Performance replication: links clusters of the secrets service. A primary streams its mounts to
 * secondaries, with a paths filter per secondary. Each resource lives on the cluster of its
 * `connection` (declare one per cluster with `svc.secrets.connection`). The read of every
 * replication resource is the token-free status endpoint. `examples/replication` puts the four
 * together.
 *
 * #### Replication transitions and how a failed one converges
 *
 * Each step whose outcome is unknown (dropped connection, 5xx, 429) is read back from the status
 * before anything is repeated, and a step that left the cluster changed is recorded in state (a
 * partial failure) as the cluster really is, so the next `pulumi up` finishes it:
 *
 * - enable and disable (both roles): a lost response is read back, and the step is not sent again
 *   when the status shows the cluster in the mode.
 * - a new `primaryClusterAddr`: demote, then promote with the new address. A demote that did not act
 *   changes nothing. A promote that did not act is sent once more; if that fails too, the cluster
 *   stays demoted, state records `primaryClusterAddr: ""`, and the next `up` promotes it back (a
 *   refresh reads it as demoted, not gone). The set has no primary in between, never two: a promote
 *   is refused while another primary is active.
 * - a new token on a secondary (update-primary): once the status shows the secondary following it,
 *   the token is used; if the status cannot be read after that, state still records the new token
 *   (partial failure), so it is never sent again. If both the response and the read-back were lost,
 *   the next `up` sends it, and a refusal while the secondary already follows another id or primary
 *   than state recorded counts as done.
 *
 * @example
 * ```ts
 * const east = svc.secrets.connection({ url: cfg.require("eastUrl"), token: cfg.requireSecret("eastToken") });
 * const west = svc.secrets.connection({ url: cfg.require("westUrl"), token: cfg.requireSecret("westToken") });
 * const primary = new svc.secrets.replication.PerformancePrimary("east", { connection: east });
 * const token = new svc.secrets.replication.SecondaryToken("west-token", { secondaryId: "west", connection: east }, { dependsOn: [primary] });
 * const secondary = new svc.secrets.replication.PerformanceSecondary("west", { token: token.token, acknowledgeDataWipe: true, connection: west });
 * new svc.secrets.replication.PathsFilter("west-filter", { secondaryClusterId: secondary.clusterId, secondaryActivation: secondary.activation, mode: "deny", paths: ["keymgmt/"], connection: east });
 * ```
 */
// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
export { PerformancePrimary, type PerformancePrimaryArgs } from "./performancePrimary";
export { SecondaryToken, type SecondaryTokenArgs } from "./secondaryToken";
export { PerformanceSecondary, type PerformanceSecondaryArgs } from "./performanceSecondary";
export { PathsFilter, type PathsFilterArgs } from "./pathsFilter";
// (end of what npm run docs writes)
export { demotePrimary, demotePrimaryOutput } from "./performancePrimary";
export { type RevokeSecondaryArgs, revokeSecondary, revokeSecondaryOutput } from "./secondaryToken";
export {
  type PromoteSecondaryArgs, type UpdatePrimaryArgs, type SecondaryPublicKey, WIPE_NOT_ACKNOWLEDGED,
  promoteSecondary, promoteSecondaryOutput, updatePrimary, updatePrimaryOutput, generateSecondaryPublicKey, generateSecondaryPublicKeyOutput,
} from "./performanceSecondary";
export {
  type DynamicFilterArgs, type DynamicFilter,
  getPrimaryDynamicFilter, getPrimaryDynamicFilterOutput, getSecondaryDynamicFilter, getSecondaryDynamicFilterOutput,
} from "./pathsFilter";
export {
  type ReplicationStatus, type ReplicationSecondaryInfo, type ReplicationPrimaryInfo, getReplicationStatus, getReplicationStatusOutput,
} from "./status";
