// Step 2 of the registry example. Expected plan:
//   ~ update   reader  (ttl, policies: the role is rewritten at the same path)
//   +- replace legacy  (name: the role's path; the new role is created before the old one is removed)
//   = same     registry
import { declare } from "../shared";

export const { readerToken, readerLeaseSeconds, readerRole, legacyName, legacyLease } = declare({
  readerTtl: "2h",
  readerPolicies: ["service-read", "kv-read", "kv-write"],
  legacyName: "legacy-v2",
});
