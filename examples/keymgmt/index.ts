// Key management: a KMS provider, keys, and two of them distributed to the provider.
//
//   pulumi config set --secret keymgmt:awsSecretKey ...   (and keymgmt:awsAccessKey)
//   pulumi up            # creates the provider and the keys, then distributes two of them
//   (step2/)             # rotates the signing key (an update), makes the wrapping key RSA-4096 (a
//                        # new key: a replacement) and retires the legacy key; pulumi-svc-review
//                        # lists what each of these loses under "Data at risk" (docs/review.md)
//   pulumi destroy       # removes the distributions first, then the keys and the provider
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

const cfg = new pulumi.Config("keymgmt");

// Credentials are write-only and secret: the service never returns them, and they are kept
// encrypted in state.
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
  // Without this, `pulumi destroy` (or a type change, which replaces the key) fails: the service
  // refuses to delete a key whose deletion_allowed is false.
  deletionAllowed: true,
});

// key.name and provider.name as inputs: the engine creates the distribution after both, and
// deletes it before either of them.
const distribution = new svc.secrets.keymgmt.KeyDistribution("signing-in-aws", {
  keyName: signing.name,
  kmsName: aws.name,
  purpose: ["sign", "verify"],
  protection: "hsm",
});

// Wraps backups' data keys. Its type cannot change in place: step2's new type makes a new key
// (the old one is deleted first: the same path), and the engine replaces its distribution with it.
const wrapping = new svc.secrets.keymgmt.Key("wrapping", { name: "backup-wrapping", type: "rsa-3072", deletionAllowed: true });
const wrappingInAws = new svc.secrets.keymgmt.KeyDistribution("wrapping-in-aws", {
  keyName: wrapping.name,
  kmsName: aws.name,
  purpose: ["wrap", "unwrap"],
  protection: "hsm",
});

// A key no longer used, which step2 deletes.
new svc.secrets.keymgmt.Key("legacy", { name: "legacy-signing", type: "ecdsa-p256", deletionAllowed: true });

export const keyVersion = signing.latestVersion;
export const publicKey = signing.keys.apply((k) => k[String(Object.keys(k).length)]?.publicKey ?? "");
export const providerKeyName = distribution.providerKeyName;
// A read-only function; waiting for the distributions' ids lists after they exist (and not at all
// during a preview that creates them).
export const distributedKeys = svc.secrets.keymgmt
  .listKeyDistributionsOutput({ kmsName: pulumi.all([aws.name, distribution.id, wrappingInAws.id]).apply(([name]) => name) })
  .apply((r) => r.keys);
