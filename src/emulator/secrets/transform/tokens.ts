/**
 * Tokenization: random tokens with no relation to the plaintext. A record is found by an HMAC of its
 * token; the plaintext (and, in exportable mode, the token) is sealed with AES-256-GCM under the key
 * version current at encode time, so neither a state file nor a database row holds plaintext.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";

export interface KeyVersion {
  key: string;
  created: string;
}

export interface KeyRing {
  latest_version: number;
  /** 0 until a trim; versions below it are gone for good. */
  min_available_version: number;
  min_decryption_version: number;
  /** Keys the HMACs of tokens and plaintexts; never rotated, so lookups survive a rotation. */
  hmac: string;
  versions: Record<string, KeyVersion>;
}

export interface TokenRecord {
  /** HMAC of the token. */
  h: string;
  /** HMAC of the plaintext, for `tokenized`. */
  p: string;
  /** Key version that sealed it. */
  v: number;
  /** Sealed plaintext: base64 of iv | tag | ciphertext. */
  c: string;
  /** Exportable mode only: the sealed token, for export-decoded. */
  t?: string;
  /** Expiration (ISO 8601); absent: never. */
  e?: string;
  /** Metadata as given at encode. */
  m?: string;
  /** Write order, for snapshot pages; assigned by the backend. */
  s: number;
}

/** Where a transformation's keys and tokens live: the engine's own state or a SQL store. */
export interface TokenBackend {
  ring(): Promise<KeyRing | undefined>;
  saveRing(ring: KeyRing): Promise<void>;
  /** Adds a record unless one with the same token HMAC exists (restore is idempotent). */
  put(record: Omit<TokenRecord, "s">): Promise<void>;
  byToken(h: string): Promise<TokenRecord | undefined>;
  byPlain(p: string): Promise<TokenRecord[]>;
  maxSeq(): Promise<number>;
  /** Records with after < s <= upto, in write order, at most `limit`. */
  page(after: number, upto: number, limit: number): Promise<TokenRecord[]>;
}

export function newRing(): KeyRing {
  return {
    latest_version: 1,
    min_available_version: 0,
    min_decryption_version: 1,
    hmac: randomBytes(32).toString("base64"),
    versions: { "1": { key: randomBytes(32).toString("base64"), created: new Date().toISOString() } },
  };
}

export function rotate(ring: KeyRing): void {
  ring.latest_version += 1;
  ring.versions[String(ring.latest_version)] = { key: randomBytes(32).toString("base64"), created: new Date().toISOString() };
}

export function hmac(ring: KeyRing, kind: "token" | "plain", value: string): string {
  return createHmac("sha256", Buffer.from(ring.hmac, "base64")).update(`${kind}:${value}`).digest("hex");
}

export function seal(ring: KeyRing, version: number, text: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(ring.versions[String(version)].key, "base64"), iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ct]).toString("base64");
}

function open(entry: KeyVersion, sealed: string, aad: string): string | undefined {
  const raw = Buffer.from(sealed, "base64");
  const decipher = createDecipheriv("aes-256-gcm", Buffer.from(entry.key, "base64"), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(raw.subarray(12, 28));
  try {
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}

/** The plaintext, or why it cannot be had with the ring's current versions. */
export function unseal(ring: KeyRing, version: number, sealed: string, aad: string): { ok: true; text: string } | { ok: false; reason: string } {
  if (version < ring.min_decryption_version) {
    return { ok: false, reason: `the token was made with key version ${version}, below min_decryption_version ${ring.min_decryption_version}` };
  }
  const entry = ring.versions[String(version)];
  if (!entry) return { ok: false, reason: `key version ${version} of the token was trimmed; the token cannot be decoded` };
  const text = open(entry, sealed, aad);
  return text === undefined ? { ok: false, reason: "the token's record does not authenticate with its key version" } : { ok: true, text };
}

/**
 * Whether a record was sealed by this ring, whatever min_decryption_version says: "yes", "trimmed"
 * (its version was this ring's and is gone for good) or "foreign" (another ring's keys sealed it).
 */
export function sealedBy(ring: KeyRing, record: Pick<TokenRecord, "v" | "c" | "h">): "yes" | "trimmed" | "foreign" {
  const entry = ring.versions[String(record.v)];
  if (!entry) return record.v >= 1 && record.v < ring.min_available_version ? "trimmed" : "foreign";
  return open(entry, record.c, record.h) === undefined ? "foreign" : "yes";
}

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** 32 random bytes in Base58: about 44 characters, unrelated to the plaintext. */
export function newToken(): string {
  let x = BigInt(`0x${randomBytes(32).toString("hex")}`);
  let out = "";
  while (x > 0n) {
    out = BASE58[Number(x % 58n)] + out;
    x /= 58n;
  }
  return out.padStart(44, "1");
}

/** Whether a token had expired at `at` (ms on the emulator's clock). */
export const expired = (r: Pick<TokenRecord, "e">, at: number) => r.e !== undefined && Date.parse(r.e) <= at;

/** The engine's own storage (`builtin/internal`, and mysql stores): lives in the emulator state. */
export interface MemoryTokens {
  seq: number;
  records: Record<string, TokenRecord>;
  plain: Record<string, string[]>;
}

// Records in write order, per token table: built once from the table (after a state file load) and
// appended on each put, so a snapshot page is a binary search instead of a scan of every record.
const ordered = new WeakMap<MemoryTokens, TokenRecord[]>();

function inOrder(tokens: MemoryTokens): TokenRecord[] {
  let list = ordered.get(tokens);
  if (!list) {
    list = Object.values(tokens.records).sort((a, b) => a.s - b.s);
    ordered.set(tokens, list);
  }
  return list;
}

export function memoryBackend(holder: { ring?: KeyRing }, tokens: MemoryTokens): TokenBackend {
  return {
    ring: async () => holder.ring,
    saveRing: async (ring) => void (holder.ring = ring),
    async put(record) {
      if (Object.prototype.hasOwnProperty.call(tokens.records, record.h)) return;
      const list = inOrder(tokens);
      tokens.seq += 1;
      const stored = { ...record, s: tokens.seq };
      tokens.records[record.h] = stored;
      list.push(stored);
      (tokens.plain[record.p] ??= []).push(record.h);
    },
    byToken: async (h) => (Object.prototype.hasOwnProperty.call(tokens.records, h) ? tokens.records[h] : undefined),
    byPlain: async (p) => (tokens.plain[p] ?? []).map((h) => tokens.records[h]),
    maxSeq: async () => tokens.seq,
    async page(after, upto, limit) {
      const all = inOrder(tokens);
      let lo = 0;
      let hi = all.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (all[mid].s <= after) lo = mid + 1;
        else hi = mid;
      }
      const out: TokenRecord[] = [];
      for (let i = lo; i < all.length && out.length < limit && all[i].s <= upto; i++) out.push(all[i]);
      return out;
    },
  };
}
