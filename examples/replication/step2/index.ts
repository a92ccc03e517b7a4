// Step 2: the filter withholds transform/ instead of keymgmt/, and east gives its secondaries a new
// cluster address (behind a load balancer, say). Expected plan:
//   ~ update  east         (primaryClusterAddr: demoted, then promoted back with the new address)
//   ~ update  west-filter  (paths: the key reaches west, the alphabet leaves it)
//   = same    everything else
// pulumi-svc-review lists east under "Data at risk": its secondaries stop replicating until they
// reach it at the new address.
import * as svc from "pulumi-svc";
import { replicationExample } from "../shared";

const out = replicationExample({ mode: "deny", paths: ["transform/"] }, "https://east.example.internal:8201");

export const primaryClusterId = out.primaryClusterId;
export const secondaryClusterId = out.secondaryClusterId;
export const secondaryState = out.secondaryState;
export const secondaryConnection = out.secondaryConnection;
export const alphabetsOnSecondary = out.alphabetsOnSecondary;
export const keysOnSecondary = out.keysOnSecondary;
export const filteredOnSecondary = out.filteredOnSecondary;
export const knownSecondaries = svc.secrets.replication.getReplicationStatusOutput({}, {
  connection: { url: out.primaryUrl }, dependsOn: [out.secondary],
}).knownSecondaries;
