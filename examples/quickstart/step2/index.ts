// Step 2 of the quickstart: the edits a pull request would make. Expected plan:
//   ~ update  digits  (alphabet gains letters)
//   ~ update  ci-hook (one more trigger, new token)
//  +- replace ssn     (name changed: a new path; the old one is deleted first, the default)
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const cfg = new pulumi.Config("quickstart");
const workspaceId = cfg.get("workspaceId") ?? "ws-example00000001";

const digits = new svc.secrets.transform.Alphabet("digits", { name: "digits", alphabet: "0123456789abcdef" });

const ssn = new svc.secrets.transform.Template("ssn", {
  name: "us-ssn-v2",
  pattern: "(\\d{3})-(\\d{2})-(\\d{4})",
  alphabet: digits.name,
});

const hook = new svc.runs.NotificationConfiguration("ci-hook", {
  workspaceId,
  name: "ci",
  destinationType: "generic",
  url: cfg.require("hookUrl"),
  enabled: true,
  triggers: ["run:completed", "run:errored", "run:needs_attention"],
  token: cfg.requireSecret("hookToken2"),
});

export const alphabet = digits.alphabet;
export const templatePattern = ssn.pattern;
export const templateName = ssn.name;
export const hookId = hook.id;
export const hookTriggers = hook.triggers;
