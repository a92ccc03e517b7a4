import { createCipheriv, createDecipheriv, createHash, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, randomUUID, type KeyObject } from "node:crypto";
import { emptyReply, jsonReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import { hasOwn } from "../../util";
import type { SystemContext } from "../context";
import { parseDuration } from "../duration";
import { bad, body, guarded, requiredStr, str } from "../fields";
import { here } from "./network";
import { PRIMARY_PATH as P, requirePrimary } from "./performancePrimary";

export const DEFAULT_TOKEN_TTL = 30 * 60;

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

function wrappingToken(claims: Claims): string {
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
function publicKeyOf(text: string): KeyObject | undefined {
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

function encryptTo(recipient: KeyObject, plaintext: string): string {
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

function secondaryToken(ctx: SystemContext, req: Incoming): Reply {
  const { me, st } = here(ctx);
  const p = requirePrimary(st);
  const b = body(req);
  const problems: string[] = [];
  const id = str(b, "id") ?? "";
  if (id === "") problems.push("missing id");
  const rawTtl = b.ttl;
  const ttl = rawTtl === undefined || rawTtl === null || rawTtl === "" ? DEFAULT_TOKEN_TTL : parseDuration(rawTtl);
  if (ttl === undefined || ttl <= 0) problems.push(`ttl must be a positive duration such as "30m" or seconds, got ${JSON.stringify(rawTtl)}`);
  const publicKeyText = str(b, "secondary_public_key") ?? "";
  const publicKey = publicKeyText === "" ? undefined : publicKeyOf(publicKeyText);
  if (publicKeyText !== "" && !publicKey) problems.push("secondary_public_key must be the base64 X25519 public key returned by secondary/generate-public-key");
  if (id !== "" && hasOwn(p.secondaries, id)) {
    problems.push(`secondary id "${id}" is already in use (cluster ${p.secondaries[id].clusterId}): revoke it with revoke-secondary first, or choose another id`);
  }
  if (problems.length > 0) bad(...problems);
  // A new token for an id replaces the one not used yet.
  for (const [d, pending] of Object.entries(p.pending)) if (pending.id === id) delete p.pending[d];
  const created = new Date();
  const accessor = randomUUID();
  const seconds = ttl as number;
  const token = wrappingToken({ addr: me.apiAddr, cluster_addr: p.clusterAddr, accessor, exp: Math.floor(created.getTime() / 1000) + seconds });
  p.pending[digestOf(token)] = { id, accessor, created: created.toISOString(), expires: created.getTime() + seconds * 1000 };
  const envelope = { request_id: randomUUID(), lease_id: "", lease_duration: 0, renewable: false, warnings: null, auth: null };
  if (publicKey) {
    const sealed = encryptTo(publicKey, JSON.stringify({ token, primary_api_addr: me.apiAddr, primary_cluster_addr: p.clusterAddr }));
    return jsonReply(200, { ...envelope, data: { token: sealed }, wrap_info: null });
  }
  return jsonReply(200, {
    ...envelope,
    data: null,
    wrap_info: { token, ttl: seconds, creation_time: created.toISOString(), creation_path: `sys/${P}/secondary-token`, wrapped_accessor: accessor },
  });
}

/** Disconnects at once; the secondary stays disconnected until it is given a new token. */
function revoke(ctx: SystemContext, req: Incoming): Reply {
  const { st } = here(ctx);
  const p = requirePrimary(st);
  const id = requiredStr(body(req), "id");
  if (hasOwn(p.secondaries, id)) {
    delete p.filters[p.secondaries[id].clusterId];
    delete p.secondaries[id];
  }
  for (const [d, pending] of Object.entries(p.pending)) if (pending.id === id) delete p.pending[d];
  return emptyReply(204);
}

export const secondaryTokenRoutes: Route<SystemContext>[] = [
  { method: "POST", path: `${P}/secondary-token`, handler: guarded(secondaryToken), sudo: true },
  { method: "POST", path: `${P}/revoke-secondary`, handler: guarded(revoke) },
];
