// Service-registry engine: registry access → a token role → a generated token.
//
//   pulumi config set --secret registry:managementToken ...   (a management-type registry ACL token)
//   pulumi up            # configures access and the role; the token output is new on every up
//   pulumi destroy
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const cfg = new pulumi.Config("registry");

// The management token is write-only and secret: never read back, encrypted in state.
const access = new svc.secrets.registry.AccessConfig("registry", {
  address: cfg.get("address") ?? "127.0.0.1:8500",
  token: cfg.requireSecret("managementToken"),
});

const reader = new svc.secrets.registry.Role("reader", {
  name: "reader",
  policies: ["service-read", "kv-read"],
  ttl: "1h",
  maxTtl: "24h",
}, { dependsOn: [access] });

// The older registry variant: a lease and a comma-joined policies list on the wire.
const legacy = new svc.secrets.registry.Role("legacy", { name: "legacy", policies: ["service-read"], lease: "30m" }, { dependsOn: [access] });

// A new token on every `pulumi up` (none during preview); secret.
const creds = svc.secrets.registry.getRegistryCredentialsOutput({ role: reader.name });

export const readerToken = creds.token;
export const readerLeaseSeconds = creds.leaseDuration;
// A read-only function: waiting for the role's id reads it once it exists.
export const readerRole = svc.secrets.registry.getRegistryRoleOutput({ role: pulumi.all([reader.name, reader.id]).apply(([name]) => name) });
export const legacyLease = legacy.lease;
