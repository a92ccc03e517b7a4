import { generateKeyPair, randomBytes } from "node:crypto";

/**
 * Key material and what it can do: the key types of the seed and how node:crypto makes them, the
 * KMS providers and the key types each takes, and the purposes and protections of a distribution.
 */

/** Key types of the seed → how node:crypto makes them. */
const SPECS = {
  "aes256-gcm96": { kind: "symmetric" },
  "rsa-2048": { kind: "rsa", modulusLength: 2048 },
  "rsa-3072": { kind: "rsa", modulusLength: 3072 },
  "rsa-4096": { kind: "rsa", modulusLength: 4096 },
  "ecdsa-p256": { kind: "ec", namedCurve: "P-256" },
  "ecdsa-p384": { kind: "ec", namedCurve: "P-384" },
  "ecdsa-p521": { kind: "ec", namedCurve: "P-521" },
} as const;

export type KeyType = keyof typeof SPECS;
export type KeyFamily = (typeof SPECS)[KeyType]["kind"];
export const KEY_TYPES = Object.keys(SPECS) as KeyType[];

export const isKeyType = (value: string): value is KeyType => value in SPECS;
export const familyOf = (type: KeyType): KeyFamily => SPECS[type].kind;

/** One version of a key. `secret` never leaves the emulator; it is kept so the material is real. */
export interface KeyVersion {
  creation_time: string;
  /** SPKI PEM; asymmetric keys only. */
  public_key?: string;
  /** PKCS#8 PEM, or base64 of the 32 AES bytes. */
  secret: string;
}

/** Asynchronous so an RSA-4096 generation does not stall other requests. */
export async function generateVersion(type: KeyType): Promise<KeyVersion> {
  const spec = SPECS[type];
  const creation_time = new Date().toISOString();
  if (spec.kind === "symmetric") return { creation_time, secret: randomBytes(32).toString("base64") };
  const [publicKey, privateKey] = await new Promise<[string, string]>((resolve, reject) => {
    const done = (err: Error | null, pub: string, priv: string) => (err ? reject(err) : resolve([pub, priv]));
    const encoding = { publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } } as const;
    if (spec.kind === "rsa") generateKeyPair("rsa", { modulusLength: spec.modulusLength, ...encoding }, done);
    else generateKeyPair("ec", { namedCurve: spec.namedCurve, ...encoding }, done);
  });
  return { creation_time, public_key: publicKey, secret: privateKey };
}

/**
 * What the seed leaves "not shown" about where keys go, in one place.
 *
 * Providers: the credential names each accepts (as the real-world providers name them) and the
 * key types each can import.
 */
export const PROVIDERS: Record<string, { credentials: string[]; keyTypes: KeyType[] }> = {
  azurekeyvault: {
    credentials: ["client_id", "client_secret", "tenant_id", "environment"],
    // A standard key vault holds RSA and EC keys; AES needs a managed HSM.
    keyTypes: KEY_TYPES.filter((t) => t !== "aes256-gcm96"),
  },
  awskms: { credentials: ["access_key", "secret_key", "session_token", "endpoint", "region"], keyTypes: KEY_TYPES },
  // Cloud KMS has no P-521 curve.
  gcpckms: { credentials: ["service_account_file"], keyTypes: KEY_TYPES.filter((t) => t !== "ecdsa-p521") },
};

/** What each kind of key can do: AES cannot sign, ECDSA cannot encrypt or wrap. */
export const PURPOSES: Record<KeyFamily, string[]> = {
  symmetric: ["encrypt", "decrypt", "wrap", "unwrap"],
  rsa: ["encrypt", "decrypt", "sign", "verify", "wrap", "unwrap"],
  ec: ["sign", "verify"],
};

export const ALL_PURPOSES = PURPOSES.rsa;

export const PROTECTIONS = ["hsm", "software"];
