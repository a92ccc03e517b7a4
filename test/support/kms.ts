/**
 * The secrets provider of the CLI suites' stacks (test/cli/cli.ts): a KMS key on moto's server
 * (scripts/moto.sh), one server per test process, started with its first stack and ended with the
 * process. The passphrase provider derives its key with 1,000,000 rounds of PBKDF2 in every
 * command that reads a secret (about 0.16 s of CPU; CI runs about 2,000 such commands), a KMS
 * key one request to moto. Either way the CLI stores every secret encrypted, which is what the
 * suites check; the passphrase provider, what the docs use, stays under test where a suite is
 * about it: the docs' commands, the state backends, `npm start`, the installed package
 * (docs/contributing.md#the-real-cli-suites). Without moto (a machine where scripts/moto.sh did
 * not run, and no SVC_REQUIRE_REAL), the stacks use the passphrase provider.
 */
import { request } from "undici";
import { motoUnavailable, startMoto, type Moto } from "./moto";
import { requireReal, requiredButMissing } from "./real";

export interface SecretsProvider {
  /** `pulumi stack init --secrets-provider` */
  url: string;
  /** What the CLI's AWS client needs: static credentials, no instance metadata. */
  env: Record<string, string>;
}

let started: Promise<SecretsProvider | undefined> | undefined;

/** The KMS key's provider, or undefined where moto cannot be had (then the passphrase). */
export function kmsSecretsProvider(): Promise<SecretsProvider | undefined> {
  started ??= start();
  return started;
}

async function start(): Promise<SecretsProvider | undefined> {
  const reason = motoUnavailable();
  if (reason && requireReal) throw requiredButMissing(`the CLI suites' KMS key cannot be had: ${reason}`);
  if (reason) return undefined;
  // Ends with this process (startMoto's server goes when its parent does).
  const moto: Moto = await startMoto();
  const res = await request(`${moto.endpoint}/`, {
    method: "POST",
    headers: {
      "content-type": "application/x-amz-json-1.1",
      "x-amz-target": "TrentService.CreateKey",
      // moto reads the region from the signature's scope and checks nothing else.
      authorization: "AWS4-HMAC-SHA256 Credential=moto/20260101/us-east-1/kms/aws4_request, SignedHeaders=host, Signature=0",
    },
    body: "{}",
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`moto CreateKey: ${res.statusCode} ${text}`);
  const keyId = (JSON.parse(text) as { KeyMetadata: { KeyId: string } }).KeyMetadata.KeyId;
  return {
    url: `awskms://${keyId}?region=us-east-1&endpoint=${encodeURIComponent(moto.endpoint)}`,
    env: { AWS_ACCESS_KEY_ID: "moto", AWS_SECRET_ACCESS_KEY: "moto", AWS_REGION: "us-east-1", AWS_EC2_METADATA_DISABLED: "true" },
  };
}
