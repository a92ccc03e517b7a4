// The program of test/cli/adopted.test.ts: what pulumi-svc-import writes, in small. A key (its
// deletionAllowed from config, as the server had it), an alphabet at a path and a notification
// configuration taken over by id; the last two come after the key and go before it, as an
// import's objects that refer to a key do.
"use strict";
const pulumi = require("@pulumi/pulumi");
const svc = require("pulumi-svc");

const cfg = new pulumi.Config("adopted");
const key = new svc.secrets.keymgmt.Key("signing", { name: "signing", type: "ecdsa-p256", deletionAllowed: cfg.getBoolean("deletionAllowed") ?? false, adopt: true });
new svc.secrets.transform.Alphabet("digits", { name: "digits", alphabet: "0123456789", adopt: true }, { dependsOn: [key] });
new svc.runs.NotificationConfiguration("hook", {
  workspaceId: cfg.require("workspaceId"), name: "by-hand", destinationType: "generic",
  url: "https://hooks.example/by-hand", triggers: ["run:completed"], adoptId: cfg.require("hookId"),
}, { dependsOn: [key] });
