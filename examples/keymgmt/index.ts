// Key management: a KMS provider, a key, and the key distributed to the provider.
//
//   pulumi config set --secret keymgmt:awsSecretKey ...   (and keymgmt:awsAccessKey)
//   pulumi up            # creates the provider and the key, then distributes the key
//   (step2/)             # rotates the key: an update, not a replacement
//   pulumi destroy       # removes the distribution first, then the key and the provider
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

export const keyVersion = signing.latestVersion;
export const publicKey = signing.keys.apply((k) => k[String(Object.keys(k).length)]?.publicKey ?? "");
export const providerKeyName = distribution.providerKeyName;
// A read-only function; waiting for the distribution's id lists after it exists (and not at all
// during a preview that creates it).
export const distributedKeys = svc.secrets.keymgmt
  .listKeyDistributionsOutput({ kmsName: pulumi.all([aws.name, distribution.id]).apply(([name]) => name) })
  .apply((r) => r.keys);
