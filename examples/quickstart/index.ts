// Quickstart: one object of each kind, across both services. `npm start` runs it against the
// embedded emulator; with the Pulumi CLI it is the program of the root Pulumi.yaml.
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const cfg = new pulumi.Config("quickstart");
const workspaceId = cfg.get("workspaceId") ?? "ws-example00000001";

const digits = new svc.secrets.transform.Alphabet("digits", { name: "digits", alphabet: "0123456789" });

const ssn = new svc.secrets.transform.Template("ssn", {
  name: "us-ssn",
  // The three groups are transformed; the dashes are kept.
  pattern: "(\\d{3})-(\\d{2})-(\\d{4})",
  alphabet: digits.name,
});

const hook = new svc.runs.NotificationConfiguration("ci-hook", {
  workspaceId,
  name: "ci",
  destinationType: "generic",
  url: cfg.require("hookUrl"),
  enabled: true,
  triggers: ["run:completed", "run:errored"],
  token: cfg.requireSecret("hookToken"),
});

export const alphabet = digits.alphabet;
export const templatePattern = ssn.pattern;
export const hookId = hook.id;
export const hookVerified = hook.deliveryResponses.apply((r) => r[0]?.successful ?? false);
