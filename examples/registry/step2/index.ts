// Step 2 of the registry example. Expected plan:
//   ~ update   reader  (ttl, policies: the role is rewritten at the same path)
//   +- replace legacy  (name: the role's path; the old role is removed first, the default)
//   = same     registry
import { declare } from "../shared";

export const { readerToken, readerLeaseSeconds, readerRole, legacyName, legacyLease } = declare({
  readerTtl: "2h",
  readerPolicies: ["service-read", "kv-read", "kv-write"],
  legacyName: "legacy-v2",
});
