export { PerformancePrimary, type PerformancePrimaryArgs, demotePrimary, demotePrimaryOutput } from "./performancePrimary";
export { SecondaryToken, type SecondaryTokenArgs, type RevokeSecondaryArgs, revokeSecondary, revokeSecondaryOutput } from "./secondaryToken";
export {
  PerformanceSecondary, type PerformanceSecondaryArgs, type PromoteSecondaryArgs, type UpdatePrimaryArgs, type SecondaryPublicKey, WIPE_NOT_ACKNOWLEDGED,
  promoteSecondary, promoteSecondaryOutput, updatePrimary, updatePrimaryOutput, generateSecondaryPublicKey, generateSecondaryPublicKeyOutput,
} from "./performanceSecondary";
export {
  PathsFilter, type PathsFilterArgs, type DynamicFilterArgs, type DynamicFilter,
  getPrimaryDynamicFilter, getPrimaryDynamicFilterOutput, getSecondaryDynamicFilter, getSecondaryDynamicFilterOutput,
} from "./pathsFilter";
export {
  type ReplicationStatus, type ReplicationSecondaryInfo, type ReplicationPrimaryInfo, getReplicationStatus, getReplicationStatusOutput,
} from "./status";
