// What both steps of the registry example declare: registry access → token roles → a generated token.
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

export function declare(edits: { readerTtl: string; readerPolicies: string[]; legacyName: string }) {
  const cfg = new pulumi.Config("registry");

  // The management token is write-only and secret: never read back, encrypted in state.
  const access = new svc.secrets.registry.AccessConfig("registry", {
    address: cfg.get("address") ?? "127.0.0.1:8500",
    token: cfg.requireSecret("managementToken"),
  });

  const reader = new svc.secrets.registry.Role("reader", {
    name: "reader",
    policies: edits.readerPolicies,
    ttl: edits.readerTtl,
    maxTtl: "24h",
  }, { dependsOn: [access] });

  // The older registry variant: a lease and a comma-joined policies list on the wire. The name is
  // its path: a new name is a new role; the old one is removed before it is created.
  const legacy = new svc.secrets.registry.Role("legacy", { name: edits.legacyName, policies: ["service-read"], lease: "30m" }, { dependsOn: [access] });

  // A new token on every `pulumi up` (none during preview); secret.
  const creds = svc.secrets.registry.getRegistryCredentialsOutput({ role: reader.name });

  return {
    readerToken: creds.token,
    readerLeaseSeconds: creds.leaseDuration,
    // A read-only function: waiting for the role's id reads it once it exists.
    readerRole: svc.secrets.registry.getRegistryRoleOutput({ role: pulumi.all([reader.name, reader.id]).apply(([name]) => name) }),
    legacyName: legacy.name,
    legacyLease: legacy.lease,
  };
}
