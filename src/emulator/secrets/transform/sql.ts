/**
 * PostgreSQL stores: the emulator connects with the `pg` client. A transformation whose first store
 * is such a store keeps its tokens and its key versions in that database, so an emulator started
 * again without its state file still decodes them. Store credentials live only in this process.
 */
import { Pool } from "pg";
import type { SecretsContext } from "../context";
import type { Mount } from "../state";
import type { Store } from "./state";
import type { KeyRing, TokenBackend, TokenRecord } from "./tokens";

export interface Credentials {
  username: string;
  password: string;
}

interface Live {
  credentials: Credentials;
  pool?: Pool;
}

// Per mount object, so a reset (which replaces the data) starts with nothing remembered.
const live = new WeakMap<Mount, Map<string, Live>>();

function liveOf(ctx: SecretsContext): Map<string, Live> {
  let m = live.get(ctx.mount);
  if (!m) live.set(ctx.mount, (m = new Map()));
  return m;
}

export function rememberCredentials(ctx: SecretsContext, name: string, credentials: Credentials): void {
  liveOf(ctx).set(name, { credentials });
}

export const credentialsOf = (ctx: SecretsContext, name: string): Credentials | undefined => liveOf(ctx).get(name)?.credentials;

export function forgetStore(ctx: SecretsContext, name: string): void {
  const entry = liveOf(ctx).get(name);
  liveOf(ctx).delete(name);
  void entry?.pool?.end().catch(() => undefined);
}

function connectionString(store: Store, c: Credentials): string {
  return store.connection_string.replaceAll("{{username}}", encodeURIComponent(c.username)).replaceAll("{{password}}", encodeURIComponent(c.password));
}

function newPool(store: Store, c: Credentials, max = store.max_open_connections): Pool {
  const pool = new Pool({
    connectionString: connectionString(store, c),
    max,
    maxLifetimeSeconds: store.max_connection_lifetime,
    connectionTimeoutMillis: 30_000,
    allowExitOnIdle: true,
  });
  // An idle connection dropped by the server must not crash the emulator.
  pool.on("error", () => undefined);
  return pool;
}

/** The database's reason the credentials cannot connect, or undefined. */
export async function probe(store: Store, c: Credentials): Promise<string | undefined> {
  const pool = newPool(store, c, 1);
  try {
    await pool.query("SELECT 1");
    return undefined;
  } catch (e) {
    return (e as Error).message;
  } finally {
    await pool.end().catch(() => undefined);
  }
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Creates (or completes) the tables with schema-change credentials used for this call only. */
export async function createSchema(store: Store, c: Credentials, storeUser: string | undefined): Promise<string | undefined> {
  const pool = newPool(store, c, 1);
  const s = ident(store.schema);
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await pool.query(`CREATE TABLE IF NOT EXISTS ${s}.transform_tokens (
      transformation text NOT NULL, token_hash text NOT NULL, seq bigserial NOT NULL, plain_hash text NOT NULL,
      key_version integer NOT NULL, ciphertext text NOT NULL, sealed_token text, expiration timestamptz, metadata text,
      PRIMARY KEY (transformation, token_hash))`);
    await pool.query(`CREATE INDEX IF NOT EXISTS transform_tokens_plain ON ${s}.transform_tokens (transformation, plain_hash)`);
    await pool.query(`CREATE INDEX IF NOT EXISTS transform_tokens_seq ON ${s}.transform_tokens (transformation, seq)`);
    await pool.query(`CREATE TABLE IF NOT EXISTS ${s}.transform_keys (transformation text PRIMARY KEY, ring jsonb NOT NULL)`);
    if (storeUser && storeUser !== c.username) {
      // The store's own user needs only SELECT, INSERT and UPDATE.
      const u = ident(storeUser);
      await pool.query(`GRANT USAGE ON SCHEMA ${s} TO ${u}`);
      await pool.query(`GRANT SELECT, INSERT, UPDATE ON ${s}.transform_tokens, ${s}.transform_keys TO ${u}`);
      await pool.query(`GRANT USAGE ON SEQUENCE ${s}.transform_tokens_seq_seq TO ${u}`);
    }
    return undefined;
  } catch (e) {
    return (e as Error).message;
  } finally {
    await pool.end().catch(() => undefined);
  }
}

/** Thrown by a SQL backend; the value routes answer it with the database's reason. */
export class StoreUnavailable extends Error {}

function poolFor(ctx: SecretsContext, storeName: string, store: Store): Pool {
  const entry = liveOf(ctx).get(storeName);
  if (!entry) {
    throw new StoreUnavailable(`the credentials of store "${storeName}" are not known to this emulator process (they are never written to its state file); write the store again`);
  }
  if (!entry.pool) {
    entry.pool = newPool(store, entry.credentials);
    const pool = entry.pool;
    ctx.rt.closing.addEventListener("abort", () => void pool.end().catch(() => undefined), { once: true });
  }
  return entry.pool;
}

function row(r: Record<string, unknown>): TokenRecord {
  return {
    h: String(r.token_hash), p: String(r.plain_hash), v: Number(r.key_version), c: String(r.ciphertext), s: Number(r.seq),
    ...(r.sealed_token ? { t: String(r.sealed_token) } : {}),
    ...(r.expiration ? { e: new Date(r.expiration as string).toISOString() } : {}),
    ...(r.metadata !== null && r.metadata !== undefined ? { m: String(r.metadata) } : {}),
  };
}

export function sqlBackend(ctx: SecretsContext, storeName: string, store: Store, transformation: string): TokenBackend {
  const s = ident(store.schema);
  const q = async (text: string, values: unknown[]) => {
    try {
      return await poolFor(ctx, storeName, store).query(text, values);
    } catch (e) {
      if (e instanceof StoreUnavailable) throw e;
      throw new StoreUnavailable(`store "${storeName}": ${(e as Error).message}`);
    }
  };
  return {
    async ring() {
      const res = await q(`SELECT ring FROM ${s}.transform_keys WHERE transformation = $1`, [transformation]);
      return res.rows[0]?.ring as KeyRing | undefined;
    },
    async saveRing(ring) {
      await q(`INSERT INTO ${s}.transform_keys (transformation, ring) VALUES ($1, $2)
        ON CONFLICT (transformation) DO UPDATE SET ring = EXCLUDED.ring`, [transformation, JSON.stringify(ring)]);
    },
    async put(r) {
      await q(`INSERT INTO ${s}.transform_tokens (transformation, token_hash, plain_hash, key_version, ciphertext, sealed_token, expiration, metadata)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`, [transformation, r.h, r.p, r.v, r.c, r.t ?? null, r.e ?? null, r.m ?? null]);
    },
    async byToken(h) {
      const res = await q(`SELECT * FROM ${s}.transform_tokens WHERE transformation = $1 AND token_hash = $2`, [transformation, h]);
      return res.rows[0] ? row(res.rows[0]) : undefined;
    },
    async byPlain(p) {
      const res = await q(`SELECT * FROM ${s}.transform_tokens WHERE transformation = $1 AND plain_hash = $2`, [transformation, p]);
      return res.rows.map(row);
    },
    async maxSeq() {
      const res = await q(`SELECT coalesce(max(seq), 0) AS m FROM ${s}.transform_tokens WHERE transformation = $1`, [transformation]);
      return Number(res.rows[0].m);
    },
    async page(after, upto, limit) {
      const res = await q(`SELECT * FROM ${s}.transform_tokens WHERE transformation = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4`,
        [transformation, after, upto, limit]);
      return res.rows.map(row);
    },
  };
}

