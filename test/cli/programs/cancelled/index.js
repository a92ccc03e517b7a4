// The program of test/cli/cancelled.test.ts: one object of each way a create can be cancelled
// mid-flight: at a path (an alphabet), with an id the service assigns (a notification
// configuration, a dual-factor method) and an action (a Run, waited for and applied).
"use strict";
const pulumi = require("@pulumi/pulumi");
const svc = require("pulumi-svc");

const cfg = new pulumi.Config("cancelled");
const workspaceId = cfg.require("workspaceId");
new svc.secrets.transform.Alphabet("digits", { name: "digits", alphabet: "0123456789" });
new svc.runs.NotificationConfiguration("hook", {
  workspaceId, name: "ci", destinationType: "generic", url: "https://hooks.example/ci", triggers: ["run:completed"],
});
new svc.secrets.mfa.DualFactorMethod("duo", {
  apiHostname: "api-1234abcd.example.com", secretKey: cfg.requireSecret("duoSecret"), integrationKey: cfg.requireSecret("duoKey"),
});
new svc.runs.Run("deploy", { workspaceId, message: "deploy", waitFor: "completed", applyWhenConfirmable: true });
