// The program of test/cli/take-over.test.ts: objects whose id the service assigns, taken over by
// adoptId (config names the ids). Step 2 adds a second resource taking the configuration again.
"use strict";
const pulumi = require("@pulumi/pulumi");
const svc = require("pulumi-svc");

const cfg = new pulumi.Config("takeover");
const step = cfg.getNumber("step") ?? 1;
const hook = (name) => new svc.runs.NotificationConfiguration(name, {
  workspaceId: cfg.require("workspaceId"), name: "by-hand", destinationType: "generic",
  url: "https://hooks.example/by-hand", triggers: ["run:completed", "run:errored"], adoptId: cfg.require("hookId"),
});
hook("hook");
new svc.secrets.identity.EntityAlias("alias", {
  name: "carol", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd", adoptId: cfg.require("aliasId"),
});
if (step === 2) hook("hook-again");
