// Step 2 of the key management example. Expected plan:
//   ~ update   signing          (rotationTrigger changed: the key is rotated, then versions below 2 are disabled)
//   +- replace wrapping         (type: a new key at the same path, so the old one is deleted first)
//   +- replace wrapping-in-aws  (its keyName comes from wrapping: deleted before it, distributed again after)
//   - delete   legacy
//   = same     aws, signing-in-aws
// pulumi-svc-review lists all but aws and signing-in-aws under "Data at risk": versions below 2 of
// signing, every version of wrapping and legacy, and wrapping's copy in AWS are gone for good. The
// rotation is the safe way to a new key; the wrapping key's new type is not.
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const cfg = new pulumi.Config("keymgmt");

const aws = new svc.secrets.keymgmt.KmsProvider("aws", {
  name: "aws-eu",
  provider: "awskms",
  keyCollection: "eu-west-1",
  credentials: {
    access_key: cfg.requireSecret("awsAccessKey"),
    secret_key: cfg.requireSecret("awsSecretKey"),
  },
});

const signing = new svc.secrets.keymgmt.Key("signing", {
  name: "release-signing",
  type: "ecdsa-p256",
  deletionAllowed: true,
  // Any new value rotates the key on the next update; the rotation happens before
  // minEnabledVersion is applied, so version 2 exists when it is required.
  rotationTrigger: "2025-q3",
  minEnabledVersion: 2,
});

const distribution = new svc.secrets.keymgmt.KeyDistribution("signing-in-aws", {
  keyName: signing.name,
  kmsName: aws.name,
  purpose: ["verify", "sign"], // a set: the order does not matter
  protection: "hsm",
});

// A new type is a new key: whatever the old one wrapped can no longer be unwrapped. A new key with
// another name beside it, kept until nothing needs it, would not lose that.
const wrapping = new svc.secrets.keymgmt.Key("wrapping", { name: "backup-wrapping", type: "rsa-4096", deletionAllowed: true });
const wrappingInAws = new svc.secrets.keymgmt.KeyDistribution("wrapping-in-aws", {
  keyName: wrapping.name,
  kmsName: aws.name,
  purpose: ["wrap", "unwrap"],
  protection: "hsm",
});

// legacy is no longer declared: pulumi up deletes the key (deletionAllowed lets the service do it).

export const keyVersion = signing.latestVersion;
export const publicKey = signing.keys.apply((k) => k[String(Object.keys(k).length)]?.publicKey ?? "");
export const providerKeyName = distribution.providerKeyName;
// A read-only function; waiting for the distributions' ids lists after they exist.
export const distributedKeys = svc.secrets.keymgmt
  .listKeyDistributionsOutput({ kmsName: pulumi.all([aws.name, distribution.id, wrappingInAws.id]).apply(([name]) => name) })
  .apply((r) => r.keys);
