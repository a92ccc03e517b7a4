// Queue a run on a workspace, wait for it, and apply it as soon as the service says it can be
// confirmed. The emulator command moves runs on by itself; an emulator started from code needs its
// timer turned on (PUT /_emulator/clock {"autoAdvanceMs": 20}).
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
  // Change a value here to queue a new run on the next `pulumi up`.
  triggers: { release: "1" },
}, { dependsOn: hook ? [hook] : [] });

export const runId = deploy.runId;
export const status = deploy.status;
export const hasChanges = deploy.hasChanges;
export const appliedAt = deploy.statusTimestamps.apply((t) => t.appliedAt ?? "");
