// A policy pack for the services: the package's ready pack, and a rule of the team's own written on
// the classes. Run it beside any program of the package (docs/policy.md):
//
//   npm install                                   # here, once: the pack's own node_modules
//   cd ../quickstart && pulumi preview --policy-pack ../policy
//   pulumi preview --policy-pack ../policy --policy-pack-config ../policy/policy-config.json
//
// policy-config.json turns a policy off, makes it advisory, mandatory or remediating, or changes
// its thresholds; without it each policy runs at its default level with its default thresholds.
import { PolicyPack } from "@pulumi/policy";
import * as svc from "pulumi-svc";
import { svcPolicies, validateResourceOfType } from "pulumi-svc/policy";

new PolicyPack("svc-guard-example", {
  description: "pulumi-svc's ready pack, and the key types this team uses",
  policies: [
    ...svcPolicies(),
    {
      name: "allowed-key-types",
      description: "Keys are of the types the team's clients can use.",
      enforcementLevel: "advisory",
      configSchema: {
        properties: { allowed: { type: "array", items: { type: "string" }, default: ["aes256-gcm96", "ecdsa-p256"] } },
      },
      // key: the Key's arguments as the program gave them (type defaults to rsa-2048, as check fills it in).
      validateResource: validateResourceOfType(svc.secrets.keymgmt.Key, (key, args, reportViolation) => {
        const { allowed } = args.getConfig<{ allowed: string[] }>();
        if (key.type !== undefined && !allowed.includes(key.type)) reportViolation(`key ${key.name} is ${key.type}, not one of ${allowed.join(", ")}`);
      }),
    },
  ],
});
