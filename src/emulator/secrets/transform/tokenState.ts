/** snapshot, restore and export-decoded of a tokenization transformation's first store. */
import { createHmac, timingSafeEqual } from "node:crypto";
import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { dataReply } from "../envelope";
import { bad, body, count, guarded, notFound, str } from "../fields";
import { backendFor } from "./backend";
import { StoreUnavailable } from "./sql";
import { has, transformations, type Transformation } from "./state";
import { sealedBy, unseal, type KeyRing, type TokenBackend, type TokenRecord } from "./tokens";
import { secretsError } from "../envelope";

const b64url = (s: string) => Buffer.from(s).toString("base64url");
const unb64url = (s: string) => Buffer.from(s, "base64url").toString("utf8");

function sign(ring: KeyRing, text: string): string {
  return createHmac("sha256", Buffer.from(ring.hmac, "base64")).update(`continuation:${text}`).digest("base64url").slice(0, 22);
}

/** Opaque to callers: the sequence bound fixed when the snapshot began, and the last one given. */
function continuation(ring: KeyRing, upto: number, after: number): string {
  const text = b64url(JSON.stringify({ u: upto, a: after }));
  return `${text}.${sign(ring, text)}`;
}

function readContinuation(ring: KeyRing, value: string): { upto: number; after: number } {
  const [text, sig] = value.split(".");
  const expected = text ? sign(ring, text) : "";
  if (!sig || sig.length !== expected.length || !timingSafeEqual(Buffer.from(sig), Buffer.from(expected))) {
    bad("continuation is not one this transformation handed out; start again without it");
  }
  const parsed = JSON.parse(unb64url(text)) as { u: number; a: number };
  return { upto: parsed.u, after: parsed.a };
}

function tokenization(ctx: SecretsContext, name: string): Transformation | undefined {
  const all = transformations(ctx);
  if (!has(all, name)) return undefined;
  const t = all[name];
  if (t.type !== "tokenization") bad(`transformation "${name}" is ${t.type}; this endpoint is for tokenization only`);
  return t;
}

async function ringOf(backend: TokenBackend): Promise<KeyRing> {
  const ring = await backend.ring();
  if (!ring) bad("the transformation's keys are missing from its store");
  return ring!;
}

/** One page of records plus the continuation to the next one (absent at the end). */
async function page(backend: TokenBackend, ring: KeyRing, b: Record<string, unknown>): Promise<{ records: TokenRecord[]; next?: string }> {
  const limit = count(b, "limit") ?? 1000;
  if (limit < 1) bad("limit must be at least 1");
  const given = str(b, "continuation") ?? "";
  const { upto, after } = given === "" ? { upto: await backend.maxSeq(), after: 0 } : readContinuation(ring, given);
  const records = await backend.page(after, upto, limit);
  const last = records[records.length - 1];
  const more = records.length === limit && last !== undefined && (await backend.page(last.s, upto, 1)).length > 0;
  return { records, ...(more ? { next: continuation(ring, upto, last.s) } : {}) };
}

function route(path: string, run: (ctx: SecretsContext, t: Transformation, backend: TokenBackend, b: Record<string, unknown>) => Promise<Reply>): Route<SecretsContext> {
  return {
    method: "POST",
    path,
    handler: guarded(async (ctx: SecretsContext, req: Incoming) => {
      const b = body(req);
      const t = tokenization(ctx, req.params.name);
      if (!t) return notFound();
      try {
        return await run(ctx, t, backendFor(ctx, req.params.name, t), b);
      } catch (e) {
        if (e instanceof StoreUnavailable) return secretsError(500, e.message);
        throw e;
      }
    }),
  };
}

interface SnapshotValue {
  mode: string;
  r: Omit<TokenRecord, "s">;
}

export const tokenStateRoutes: Route<SecretsContext>[] = [
  route("transformations/tokenization/snapshot/:name", async (_ctx, t, backend, b) => {
    const ring = await ringOf(backend);
    const { records, next } = await page(backend, ring, b);
    const values = records.map(({ s: _s, ...r }) => b64url(JSON.stringify({ mode: t.mapping_mode, r } satisfies SnapshotValue)));
    return dataReply({ values, ...(next ? { continuation: next } : {}) });
  }),
  route("transformations/tokenization/restore/:name", async (_ctx, t, backend, b) => {
    const values = b.values;
    if (!Array.isArray(values) || values.length === 0) bad("values must be a non-empty list of snapshot strings");
    const ring = await ringOf(backend);
    const problems: string[] = [];
    const records: Omit<TokenRecord, "s">[] = [];
    (values as unknown[]).forEach((v, i) => {
      let parsed: SnapshotValue | undefined;
      try {
        parsed = typeof v === "string" ? (JSON.parse(unb64url(v)) as SnapshotValue) : undefined;
      } catch {
        parsed = undefined;
      }
      const r = parsed?.r;
      if (!parsed || !r || typeof r.h !== "string" || typeof r.p !== "string" || typeof r.c !== "string" || typeof r.v !== "number") {
        problems.push(`values[${i}] is not a value from a snapshot`);
      } else if (parsed.mode !== t.mapping_mode) {
        problems.push(`values[${i}] comes from a ${parsed.mode}-mode store and cannot be restored into this ${t.mapping_mode}-mode transformation`);
      } else if (sealedBy(ring, r) === "foreign") {
        // Written anyway it would answer 204 and never decode: the keys that sealed it are not here.
        problems.push(`values[${i}] was sealed with keys this transformation does not hold (a snapshot of another transformation, ` +
          `or of one deleted and created again): restore it into the transformation it was taken from`);
      } else records.push(r);
    });
    // All or nothing: nothing is written when any value is refused.
    if (problems.length > 0) bad(...problems.slice(0, 20), ...(problems.length > 20 ? [`and ${problems.length - 20} more`] : []));
    for (const r of records) await backend.put(r);
    return emptyReply(204);
  }),
  route("transformations/tokenization/export-decoded/:name", async (_ctx, t, backend, b) => {
    if (t.mapping_mode !== "exportable") bad('export-decoded is only for transformations in the "exportable" mapping mode');
    const ring = await ringOf(backend);
    const { records, next } = await page(backend, ring, b);
    const values: Record<string, unknown>[] = [];
    for (const r of records) {
      const plain = unseal(ring, r.v, r.c, r.h);
      const token = r.t ? unseal(ring, r.v, r.t, `${r.h}:token`) : undefined;
      if (!plain.ok || !token?.ok) continue; // trimmed or below min_decryption_version: not decodable
      values.push({ plaintext: Buffer.from(plain.text).toString("base64"), token: token.text, ...(r.e ? { expiration_time: r.e } : {}) });
    }
    return dataReply({ values, ...(next ? { continuation: next } : {}) });
  }),
];
