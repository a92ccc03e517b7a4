import { createCipheriv, createDecipheriv, createHash, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, type KeyObject } from "node:crypto";

/**
 * Activation tokens. A secondary-token is a wrapping token: `<claims>.<secret>`, both base64url,
 * where the claims carry the primary's API address (which `primary_api_addr` overrides) and the
 * expiry, and the whole string is the single-use secret the primary redeems (it keeps only its
 * SHA-256). With `secondary_public_key` the same wrapping token and the addresses are encrypted to
 * the secondary's X25519 key: ECDH with an ephemeral X25519 key, HKDF-SHA256, AES-256-GCM. Only the
 * secondary that generated the key can read it, so it never needs to unwrap anything in transit.
 */
export interface Claims {
  /** The primary's API address. */
  addr: string;
  /** The primary's cluster address. */
  cluster_addr: string;
  accessor: string;
  /** Unix seconds. */
  exp: number;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url");
export const digestOf = (token: string) => createHash("sha256").update(token).digest("hex");

export function wrappingToken(claims: Claims): string {
  return `${b64url(JSON.stringify(claims))}.${b64url(randomBytes(32))}`;
}

export function readClaims(token: string): Claims | undefined {
  const parts = token.split(".");
  if (parts.length !== 2 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return undefined;
  try {
    const c = JSON.parse(Buffer.from(parts[0], "base64url").toString("utf8")) as Partial<Claims>;
    if (typeof c.addr !== "string" || typeof c.cluster_addr !== "string" || typeof c.accessor !== "string" || typeof c.exp !== "number") return undefined;
    return c as Claims;
  } catch {
    return undefined;
  }
}

const ALG = "ECDH-X25519+HKDF-SHA256+A256GCM";
const INFO = Buffer.from("pulumi-svc performance replication activation v1");

export function newKeyPair(): { publicKey: string; privateKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync("x25519");
  return {
    publicKey: publicKey.export({ type: "spki", format: "der" }).toString("base64"),
    privateKey: privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
  };
}

/** The X25519 key of a `secondary_public_key`, or undefined when it is not one. */
export function publicKeyOf(text: string): KeyObject | undefined {
  try {
    const key = createPublicKey({ key: Buffer.from(text, "base64"), format: "der", type: "spki" });
    return key.asymmetricKeyType === "x25519" ? key : undefined;
  } catch {
    return undefined;
  }
}

function aesKey(shared: Buffer, ephemeral: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", shared, ephemeral, INFO, 32));
}

export function encryptTo(recipient: KeyObject, plaintext: string): string {
  const eph = generateKeyPairSync("x25519");
  const epk = eph.publicKey.export({ type: "spki", format: "der" });
  const key = aesKey(diffieHellman({ privateKey: eph.privateKey, publicKey: recipient }), epk);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(INFO);
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return b64url(JSON.stringify({ alg: ALG, epk: epk.toString("base64"), iv: iv.toString("base64"), ct: ct.toString("base64"), tag: cipher.getAuthTag().toString("base64") }));
}

/** Whether the token looks like an encrypted one (whoever it was encrypted to). */
export function isEncrypted(token: string): boolean {
  return envelope(token) !== undefined;
}

function envelope(token: string): { epk: string; iv: string; ct: string; tag: string } | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  try {
    const e = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as Record<string, unknown>;
    if (e.alg !== ALG || [e.epk, e.iv, e.ct, e.tag].some((v) => typeof v !== "string")) return undefined;
    return e as { epk: string; iv: string; ct: string; tag: string };
  } catch {
    return undefined;
  }
}

/** The plaintext, or undefined when the token was not encrypted to this private key. */
export function decryptWith(privateKey: string, token: string): string | undefined {
  const e = envelope(token);
  if (!e) return undefined;
  try {
    const own = createPrivateKey({ key: Buffer.from(privateKey, "base64"), format: "der", type: "pkcs8" });
    const epk = Buffer.from(e.epk, "base64");
    const peer = createPublicKey({ key: epk, format: "der", type: "spki" });
    const decipher = createDecipheriv("aes-256-gcm", aesKey(diffieHellman({ privateKey: own, publicKey: peer }), epk), Buffer.from(e.iv, "base64"));
    decipher.setAAD(INFO);
    decipher.setAuthTag(Buffer.from(e.tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(e.ct, "base64")), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}
