// Step 1: west gets everything east holds except keymgmt/ (setup in shared.ts).
import * as svc from "pulumi-svc";
import { replicationExample } from "./shared";

const out = replicationExample({ mode: "deny", paths: ["keymgmt/"] });

export const primaryClusterId = out.primaryClusterId;
export const secondaryClusterId = out.secondaryClusterId;
export const secondaryState = out.secondaryState;
export const secondaryConnection = out.secondaryConnection;
export const alphabetsOnSecondary = out.alphabetsOnSecondary;
export const keysOnSecondary = out.keysOnSecondary;
export const filteredOnSecondary = out.filteredOnSecondary;
// Status needs no token: the primary's view, through a connection with its URL only.
export const knownSecondaries = svc.secrets.replication.getReplicationStatusOutput({}, {
  connection: { url: out.primaryUrl }, dependsOn: [out.secondary],
}).knownSecondaries;
