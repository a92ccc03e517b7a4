// Step 2 of the key management example: rotate the key. Expected plan:
//   ~ update  signing  (rotationTrigger changed: the key is rotated, then versions below 2 are disabled)
//   = same    aws, signing-in-aws
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

export const keyVersion = signing.latestVersion;
export const publicKey = signing.keys.apply((k) => k[String(Object.keys(k).length)]?.publicKey ?? "");
export const providerKeyName = distribution.providerKeyName;
// A read-only function; waiting for the distribution's id lists after it exists (and not at all
// during a preview that creates it).
export const distributedKeys = svc.secrets.keymgmt
  .listKeyDistributionsOutput({ kmsName: pulumi.all([aws.name, distribution.id]).apply(([name]) => name) })
  .apply((r) => r.keys);
