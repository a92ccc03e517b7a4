/**
 * The ready pack: every policy of this package, in the order of the services' documents (run
 * service, then secrets service part A, then part B), then the connections every kind shares.
 */
import type { Policies } from "@pulumi/policy";
import { connectionTls, directoryTls, registryAccessTls } from "./rules/connections";
import { keyDeletionAllowed, keyDistributionProtection, keySingleDistribution } from "./rules/keys";
import { mfaProviderHost } from "./rules/mfa";
import { replicationPathsFilter, replicationSinglePrimary } from "./rules/replication";
import { notificationSigningToken, notificationTriggers, notificationUrlTls } from "./rules/runs";
import { storeSchemaUser, tokenizationExportable, tokenizationMaxTtl } from "./rules/transform";
import { directoryRoleTtl, librarySetTtl, registryRoleTtl } from "./rules/ttl";

/**
 * The policies of the services' pitfalls, for a CrossGuard pack: `new PolicyPack("svc", { policies:
 * svcPolicies() })`. Each has its name, a description saying why (with the part of the services'
 * documents it rests on), a default enforcement level and a config schema for its thresholds; the
 * pack's config file (`pulumi preview --policy-pack-config FILE`) turns one off (`"disabled"`),
 * makes it advisory or mandatory, lets it remediate where it can, or changes its thresholds.
 * A fresh list each call: a pack may change its copies.
 */
export function svcPolicies(): Policies {
  return [
    notificationUrlTls, notificationSigningToken, notificationTriggers,
    keyDeletionAllowed, keyDistributionProtection, keySingleDistribution,
    mfaProviderHost, replicationPathsFilter, replicationSinglePrimary,
    registryRoleTtl, registryAccessTls, tokenizationExportable, tokenizationMaxTtl, storeSchemaUser,
    directoryRoleTtl, librarySetTtl, directoryTls,
    connectionTls,
  ].map((p) => ({ ...p }));
}
