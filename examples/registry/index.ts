// Service-registry engine: registry access → token roles → a generated token (setup in shared.ts).
//
//   pulumi config set --secret registry:managementToken ...   (a management-type registry ACL token)
//   pulumi up            # configures access and the roles; the token output is new on every up
//   (step2/)             # the reader's ttl and policies change in place; the legacy role is renamed
//   pulumi destroy
import { declare } from "./shared";

export const { readerToken, readerLeaseSeconds, readerRole, legacyName, legacyLease } = declare({
  readerTtl: "1h",
  readerPolicies: ["service-read", "kv-read"],
  legacyName: "legacy",
});
