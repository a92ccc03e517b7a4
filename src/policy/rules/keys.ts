// Key management rules: a key's deletion, and where and how it is distributed.
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { Key } from "../../secrets/keymgmt/key";
import { KeyDistribution } from "../../secrets/keymgmt/keyDistribution";
import { configOf, namesSetting } from "../config";
import { remediateResourceOfType, validateResourceOfType, validateStackResourcesOfType } from "../typed";

const deletionSchema = { properties: { allowedNames: namesSetting("Keys that may allow deletion all the same (throwaway keys of a test stack).") } };

export const keyDeletionAllowed: ResourceValidationPolicy = {
  name: "key-deletion-allowed",
  description: "A key does not allow its deletion. A key whose deletion_allowed is true is deleted once it is distributed nowhere, and deletion_allowed is false unless set (secrets service seed A, Key life cycle); whatever was encrypted or signed under a deleted key cannot be decrypted or verified with it again. Remediation sets it back to false, the service's default, in place.",
  enforcementLevel: "advisory",
  configSchema: deletionSchema,
  remediationSteps: "Leave deletionAllowed out (false), and set it to true in a change of its own just before the key is to go.",
  validateResource: validateResourceOfType(Key, (key, args, reportViolation) => {
    const { allowedNames } = configOf<{ allowedNames: string[] }>(deletionSchema, args.getConfig());
    if (key.deletionAllowed === true && !allowedNames.includes(key.name)) reportViolation(`key ${key.name} allows its deletion, and every value encrypted under it would go with it`);
  }),
  remediateResource: remediateResourceOfType(Key, (key, args) => {
    const { allowedNames } = configOf<{ allowedNames: string[] }>(deletionSchema, args.getConfig());
    if (key.deletionAllowed === true && !allowedNames.includes(key.name)) return { deletionAllowed: false };
    return undefined;
  }),
};

const protectionSchema = { properties: { allowedProtections: namesSetting("Where a distributed key's operations may run.", ["hsm"]) } };

export const keyDistributionProtection: ResourceValidationPolicy = {
  name: "key-distribution-protection",
  description: "A key is distributed with the protection the team allows (hsm unless configured). A distribution's protection says where the key's operations run in the KMS provider, hsm by default, and it cannot change once the key is distributed (secrets service seed A, Key in a KMS provider and Key life cycle): a key distributed with software protection stays so until it is taken out of the provider.",
  enforcementLevel: "advisory",
  configSchema: protectionSchema,
  remediationSteps: "Leave protection out (hsm), or list the protection in allowedProtections.",
  validateResource: validateResourceOfType(KeyDistribution, (d, args, reportViolation) => {
    const { allowedProtections } = configOf<{ allowedProtections: string[] }>(protectionSchema, args.getConfig());
    const protection = d.protection ?? "hsm";
    if (!allowedProtections.includes(protection)) reportViolation(`key ${d.keyName} in ${d.kmsName}: protection ${protection} is not one of ${allowedProtections.join(", ")}`);
  }),
};

export const keySingleDistribution: StackValidationPolicy = {
  name: "key-single-distribution",
  description: "A key is distributed to one KMS provider. A key can be distributed to only one KMS provider at a time (secrets service seed A, Limits): of two distributions of one key, the second fails on the service after the first is made, and the deployment stops half done.",
  enforcementLevel: "mandatory",
  configSchema: { properties: {} },
  remediationSteps: "Keep one KeyDistribution per key; move a key by changing its distribution's kmsName.",
  validateStack: validateStackResourcesOfType(KeyDistribution, (distributions, args, reportViolation) => {
    const seen = new Map<string, string>();
    distributions.forEach((d, i) => {
      const key = `${d.mount ?? "keymgmt"}/${d.keyName}`;
      const other = seen.get(key);
      if (other !== undefined) reportViolation(`key ${d.keyName} is distributed to ${other} and to ${d.kmsName}`, args.resources[i]!.urn);
      else seen.set(key, d.kmsName);
    });
  }),
};
