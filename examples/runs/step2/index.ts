// Step 2 of the runs example: a new release. Expected plan:
//  +- replace deploy (triggers changed: a new run is queued; the old one is stopped first if it is
//                     still active, a no-op when it already ended)
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const cfg = new pulumi.Config("runs");
const workspaceId = cfg.get("workspaceId") ?? "ws-example00000001";

// With `runs:hookUrl` set, signed notifications for the workspace's runs (docs/runs.md); without
// it, none.
const hookUrl = cfg.get("hookUrl");
const hook = hookUrl
  ? new svc.runs.NotificationConfiguration("hook", {
      workspaceId, name: "deploys", destinationType: "generic",
      url: hookUrl, token: cfg.requireSecret("hookToken"),
      enabled: true, triggers: ["run:needs_attention", "run:completed", "run:errored"],
    })
  : undefined;

const deploy = new svc.runs.Run("deploy", {
  workspaceId,
  message: "Deploy from the runs example",
  variables: [{ key: "environment", value: "\"staging\"" }],
  waitFor: "completed",
  applyWhenConfirmable: true,
  timeoutSeconds: cfg.getNumber("timeoutSeconds") ?? 600,
  pollIntervalSeconds: cfg.getNumber("pollIntervalSeconds") ?? 1,
  triggers: { release: "2" },
}, { dependsOn: hook ? [hook] : [] });

export const runId = deploy.runId;
export const status = deploy.status;
export const hasChanges = deploy.hasChanges;
export const appliedAt = deploy.statusTimestamps.apply((t) => t.appliedAt ?? "");
