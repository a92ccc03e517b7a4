// Step 2: the filter withholds transform/ instead of keymgmt/. Expected plan:
//   ~ update  west-filter  (paths: the key reaches west, the alphabet leaves it)
//   = same    everything else
import * as svc from "pulumi-svc";
import { replicationExample } from "../shared";

const out = replicationExample({ mode: "deny", paths: ["transform/"] });

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
