// Performance replication between two clusters of the secrets service, each reached through its own
// connection: east (the primary) and west (the secondary).
//
//   pulumi-svc-emulator --clusters 2          # prints SVC_SECRETS_URL(_1) and SVC_SECRETS_TOKEN(_1)
//   pulumi config set replication:primaryUrl $SVC_SECRETS_URL
//   pulumi config set --secret replication:primaryToken $SVC_SECRETS_TOKEN      (a sudo token)
//   pulumi config set replication:secondaryUrl $SVC_SECRETS_URL_1
//   pulumi config set --secret replication:secondaryToken $SVC_SECRETS_TOKEN_1
//   pulumi up            # west is WIPED and becomes a secondary of east; keymgmt/ is kept from it
//   pulumi config set replication:tokenTtl 2h && pulumi up   # a new token: west follows it, its filter is written again
//   pulumi destroy       # west is disabled; east stays primary (disableOnDelete is not set)
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

/** The two clusters, from config; without primaryUrl/primaryToken east is svc:secretsUrl / svc:secretsToken. */
export function clusters(): { east: svc.secrets.Connection<"secrets">; west: svc.secrets.Connection<"secrets"> } {
  const cfg = new pulumi.Config("replication");
  return {
    east: svc.secrets.connection({ url: cfg.get("primaryUrl"), token: cfg.getSecret("primaryToken") }),
    west: svc.secrets.connection({ url: cfg.require("secondaryUrl"), token: cfg.requireSecret("secondaryToken") }),
  };
}

/** `primaryClusterAddr`: the address east gives its secondaries (default: its configured one). */
export function replicationExample(filter: { mode: "allow" | "deny"; paths: string[] }, primaryClusterAddr?: string) {
  const { east, west } = clusters();

  // A new address demotes east and promotes it back there: west stops replicating until it reaches
  // east at that address, which is why pulumi-svc-review lists the change under "Data at risk".
  const primary = new svc.secrets.replication.PerformancePrimary("east", { connection: east, primaryClusterAddr });

  // The activation token is a secret output; deleting this resource would revoke west. A new ttl
  // (replication:tokenTtl) issues a new token, which west follows with update-primary.
  const ttl = new pulumi.Config("replication").get("tokenTtl") ?? "1h";
  const token = new svc.secrets.replication.SecondaryToken("west-token", { secondaryId: "west", ttl, connection: east }, { dependsOn: [primary] });

  // Enabling a secondary clears every mount and object of its cluster: the program has to say so.
  const secondary = new svc.secrets.replication.PerformanceSecondary("west", {
    token: token.token,
    acknowledgeDataWipe: true,
    connection: west,
  });

  // Keyed by the secondary's own cluster id; a filter path is a mount path such as keymgmt/. The
  // primary drops the filter whenever west takes a new token: its activation makes that a change
  // here, so the same up writes the filter again.
  const pathsFilter = new svc.secrets.replication.PathsFilter("west-filter", {
    secondaryClusterId: secondary.clusterId,
    secondaryActivation: secondary.activation,
    mode: filter.mode,
    paths: filter.paths,
    connection: east,
  });

  // Written on the primary only; replication brings what the filter lets through to west.
  const digits = new svc.secrets.transform.Alphabet("digits", { name: "digits", alphabet: "0123456789", connection: east }, { dependsOn: [secondary] });
  const signing = new svc.secrets.keymgmt.Key("signing", { name: "signing", type: "aes256-gcm96", deletionAllowed: true, connection: east }, { dependsOn: [secondary] });

  // Read back on the secondary, once the writes and the filter are in place.
  const after = { connection: west, dependsOn: [digits, signing, pathsFilter] };
  const westStatus = svc.secrets.replication.getReplicationStatusOutput({}, after);
  return {
    secondary,
    // The URL east's resources were created on (recorded in their state).
    primaryUrl: primary.serverUrl,
    primaryClusterId: primary.clusterId,
    secondaryClusterId: secondary.clusterId,
    secondaryState: westStatus.state,
    secondaryConnection: westStatus.primaries.apply((p) => p[0]?.connectionStatus ?? "none"),
    alphabetsOnSecondary: svc.secrets.transform.listAlphabetsOutput({}, after).keys,
    keysOnSecondary: svc.secrets.keymgmt.listKeysOutput({}, after).keys,
    filteredOnSecondary: svc.secrets.replication.getSecondaryDynamicFilterOutput({ secondaryClusterId: secondary.clusterId }, after).dynamicFilteredMounts,
  };
}
