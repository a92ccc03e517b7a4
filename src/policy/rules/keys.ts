// Key management rules: a key's deletion, and where and how it is distributed.
import { Key } from "../../secrets/keymgmt/key";
import { KeyDistribution } from "../../secrets/keymgmt/keyDistribution";
import { namesSetting } from "../config";
import { resourceRule, stackRule } from "../rule";

/** Whether a key allows its deletion and the config does not name it. */
const deletable = (key: { name: string; deletionAllowed?: boolean }, allowedNames: string[]) => key.deletionAllowed === true && !allowedNames.includes(key.name);

export const keyDeletionAllowed = resourceRule(Key, "key-deletion-allowed", "advisory", {
  description: "A key does not allow its deletion. A key whose deletion_allowed is true is deleted once it is distributed nowhere, and deletion_allowed is false unless set (secrets service seed A, Key life cycle); whatever was encrypted or signed under a deleted key cannot be decrypted or verified with it again. Remediation sets it back to false, the service's default, in place.",
  remediationSteps: "Leave deletionAllowed out (false), and set it to true in a change of its own just before the key is to go.",
  config: { allowedNames: namesSetting("Keys that may allow deletion all the same (throwaway keys of a test stack).") },
  validate(key, { allowedNames }: { allowedNames: string[] }, reportViolation) {
    if (deletable(key, allowedNames)) reportViolation(`key ${key.name} allows its deletion, and every value encrypted under it would go with it`);
  },
  remediate: (key, { allowedNames }) => (deletable(key, allowedNames) ? { deletionAllowed: false } : undefined),
});

export const keyDistributionProtection = resourceRule(KeyDistribution, "key-distribution-protection", "advisory", {
  description: "A key is distributed with the protection the team allows (hsm unless configured). A distribution's protection says where the key's operations run in the KMS provider, hsm by default, and it cannot change once the key is distributed (secrets service seed A, Key in a KMS provider and Key life cycle): a key distributed with software protection stays so until it is taken out of the provider.",
  remediationSteps: "Leave protection out (hsm), or list the protection in allowedProtections.",
  config: { allowedProtections: namesSetting("Where a distributed key's operations may run.", ["hsm"]) },
  validate(d, { allowedProtections }: { allowedProtections: string[] }, reportViolation) {
    const protection = d.protection ?? "hsm";
    if (!allowedProtections.includes(protection)) reportViolation(`key ${d.keyName} in ${d.kmsName}: protection ${protection} is not one of ${allowedProtections.join(", ")}`);
  },
});

export const keySingleDistribution = stackRule(KeyDistribution, "key-single-distribution", "mandatory", {
  description: "A key is distributed to one KMS provider. A key can be distributed to only one KMS provider at a time (secrets service seed A, Limits): of two distributions of one key, the second fails on the service after the first is made, and the deployment stops half done.",
  remediationSteps: "Keep one KeyDistribution per key; move a key by changing its distribution's kmsName.",
  validate(distributions, _config, reportViolation, args) {
    const seen = new Map<string, string>();
    distributions.forEach((d, i) => {
      const key = `${d.mount ?? "keymgmt"}/${d.keyName}`;
      const other = seen.get(key);
      if (other !== undefined) reportViolation(`key ${d.keyName} is distributed to ${other} and to ${d.kmsName}`, args.resources[i]!.urn);
      else seen.set(key, d.kmsName);
    });
  },
});
