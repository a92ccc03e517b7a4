"use strict";
const pulumi = require("@pulumi/pulumi");
const svc = require("pulumi-svc");
new svc.secrets.transform.Alphabet("digits", { name: "digits", alphabet: "0123456789" });
new svc.secrets.transform.Alphabet("gone", { name: "gone", alphabet: "01" });
new svc.runs.NotificationConfiguration("hook", { workspaceId: new pulumi.Config("scratch").require("ws"), name: "h", destinationType: "generic", url: "https://hooks.example/a", token: pulumi.secret("tok-secret-value-1") });
