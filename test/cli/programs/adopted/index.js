// The program of test/cli/adopted.test.ts: what pulumi-svc-import writes, in small. A key (its
// deletionAllowed from config, as the server had it), an alphabet at a path and a notification
// configuration taken over by id; the last two come after the key and go before it, as an
// import's objects that refer to a key do. With a registry token in config, the registry's access
// config too (a path-keyed object with no list, and a write-only token).
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
if (cfg.get("registryToken") !== undefined) {
  new svc.secrets.registry.AccessConfig("access", { address: "registry.internal:8500", token: cfg.requireSecret("registryToken"), adopt: true }, { dependsOn: [key] });
}
