// One resource of every kind (test/support/everyKind.ts), for the policy tests
// (test/engine/policy.test.ts, test/cli/policy.test.ts): config policy:cases holds each one's
// kind, name and inputs; the class is found by its type token among the package's exports.
"use strict";
const pulumi = require("@pulumi/pulumi");
const svc = require("pulumi-svc");

const classes = new Map();
const walk = (o) => {
  for (const v of Object.values(o)) {
    if (typeof v === "function" && typeof v.__pulumiType === "string") classes.set(v.__pulumiType, v);
    else if (v && typeof v === "object" && !Array.isArray(v)) walk(v);
  }
};
walk(svc.runs);
walk(svc.secrets);
for (const c of JSON.parse(new pulumi.Config("policy").require("cases"))) {
  const Class = classes.get(`pulumi-nodejs:dynamic/${c.kind}`);
  if (!Class) throw new Error(`no class of ${c.kind} among pulumi-svc's exports`);
  new Class(c.name, c.inputs);
}
