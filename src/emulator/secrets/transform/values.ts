/** encode, decode, validate, tokenized and metadata: single values or `batch_input`, per role. */
import { randomBytes } from "node:crypto";
import type { Incoming, Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { dataReply, secretsError } from "../envelope";
import { BadInput, bad, body, guarded, str, type Body } from "../fields";
import { isRecord } from "../../util";
import { alphabetOf } from "./alphabet";
import { backendFor } from "./backend";
import { decodeTweak, fpe, mask } from "./fpe";
import { StoreUnavailable } from "./sql";
import { durationSeconds, globMatch, has, roles, transformations, type Transformation } from "./state";
import { templateOf } from "./template";
import { expired, hmac, newToken, seal, unseal, type KeyRing } from "./tokens";

type Op = "encode" | "decode" | "validate" | "tokenized" | "metadata";

function pick(ctx: SecretsContext, roleName: string, held: string[], item: Body, op: Op): { name: string; t: Transformation } {
  let name = str(item, "transformation");
  if (name === undefined || name === "") {
    if (held.length !== 1) bad(`transformation is required: role "${roleName}" holds ${held.length} transformations`);
    name = held[0];
  }
  if (!held.includes(name)) bad(`transformation "${name}" is not one of the transformations of role "${roleName}"`);
  const all = transformations(ctx);
  if (!has(all, name)) bad(`transformation "${name}" does not exist`);
  const t = all[name];
  if ((op === "encode" || op === "decode") && !t.allowed_roles.some((p) => globMatch(p, roleName))) {
    bad(`role "${roleName}" is not in the allowed_roles of transformation "${name}"; add it there to ${op} with this role`);
  }
  if (op !== "encode" && op !== "decode" && t.type !== "tokenization") bad(`${op} applies to tokenization transformations only; "${name}" is ${t.type}`);
  return { name, t };
}

function value(item: Body): string {
  const v = item.value;
  if (v === undefined || v === null || v === "") bad("missing value");
  if (typeof v !== "string") bad("value must be a string");
  return v as string;
}

function fpeParts(ctx: SecretsContext, t: Transformation) {
  const template = templateOf(ctx, t.template);
  if (!template) bad(`template "${t.template}" of the transformation does not exist`);
  const alphabet = alphabetOf(ctx, template!.alphabet);
  if (!alphabet) bad(`alphabet "${template!.alphabet}" of template "${t.template}" does not exist`);
  return { template: template!, alphabet: alphabet!, key: Buffer.from(t.fpe_key!, "base64") };
}

function tweakFor(t: Transformation, item: Body, encoding: boolean): { tweak: Buffer; returned?: string } {
  const given = str(item, "tweak");
  if (t.tweak_source === "internal") {
    if (given) bad('tweak must not be given: the transformation\'s tweak_source is "internal"');
    return { tweak: Buffer.from(t.internal_tweak!, "base64") };
  }
  if (t.tweak_source === "generated" && encoding) {
    if (given) bad('tweak must not be given to encode: the transformation\'s tweak_source is "generated", encode returns one');
    const tweak = randomBytes(7);
    return { tweak, returned: tweak.toString("base64") };
  }
  if (!given) bad(`missing tweak: the transformation's tweak_source is "${t.tweak_source}" (base64 of 7 bytes)`);
  return { tweak: decodeTweak(given!) };
}

const usable = (ring: KeyRing, version: number) => version >= ring.min_decryption_version && ring.versions[String(version)] !== undefined;

async function ringOf(backend: ReturnType<typeof backendFor>, name: string): Promise<KeyRing> {
  const ring = await backend.ring();
  if (!ring) bad(`the keys of transformation "${name}" are missing from its store`);
  return ring!;
}

async function one(ctx: SecretsContext, roleName: string, held: string[], op: Op, item: Body): Promise<Record<string, unknown>> {
  const { name, t } = pick(ctx, roleName, held, item, op);
  const v = value(item);
  if (t.type === "masking") {
    if (op === "decode") bad(`masking cannot be decoded: transformation "${name}" keeps no original`);
    return { encoded_value: mask(templateOf(ctx, t.template)!, v, t.masking_character) };
  }
  if (t.type === "fpe") {
    const { template, alphabet, key } = fpeParts(ctx, t);
    const { tweak, returned } = tweakFor(t, item, op === "encode");
    const out = fpe(template, alphabet, key, tweak, v, op === "encode");
    return op === "encode" ? { encoded_value: out, ...(returned ? { tweak: returned } : {}) } : { decoded_value: out };
  }
  const backend = backendFor(ctx, name, t);
  const ring = await ringOf(backend, name);
  if (op === "encode") {
    const metadata = str(item, "metadata");
    let ttl = durationSeconds(item.ttl, "ttl");
    if (t.max_ttl > 0 && (ttl === 0 || ttl > t.max_ttl)) ttl = t.max_ttl;
    const token = newToken();
    const h = hmac(ring, "token", token);
    await backend.put({
      h, p: hmac(ring, "plain", v), v: ring.latest_version, c: seal(ring, ring.latest_version, v, h),
      ...(t.mapping_mode === "exportable" ? { t: seal(ring, ring.latest_version, token, `${h}:token`) } : {}),
      ...(ttl > 0 ? { e: new Date(ctx.rt.clock.nowMs() + ttl * 1000).toISOString() } : {}),
      ...(metadata ? { m: metadata } : {}),
    });
    return { encoded_value: token };
  }
  if (op === "tokenized") {
    const records = await backend.byPlain(hmac(ring, "plain", v));
    return { tokenized: records.some((r) => !expired(r, ctx.rt.clock.nowMs()) && usable(ring, r.v)) };
  }
  const record = await backend.byToken(hmac(ring, "token", v));
  if (op === "validate") return { valid: record !== undefined && !expired(record, ctx.rt.clock.nowMs()) && usable(ring, record.v) };
  if (!record) bad("invalid token: no such token in the transformation's store");
  if (op === "metadata") return { metadata: record!.m ?? "", expiration_time: record!.e ?? null };
  if (expired(record!, ctx.rt.clock.nowMs())) bad(`token expired at ${record!.e}`);
  const plain = unseal(ring, record!.v, record!.c, record!.h);
  if (!plain.ok) bad(plain.reason);
  return { decoded_value: (plain as { text: string }).text };
}

/** Batch items fail one by one; a decode item carries its result under `encoded_value`, as the seed says. */
function batchItem(op: Op, result: Record<string, unknown>): Record<string, unknown> {
  if (op === "decode") return { encoded_value: result.decoded_value };
  return result;
}

function handler(op: Op) {
  return guarded(async (ctx: SecretsContext, req: Incoming): Promise<Reply> => {
    const b = body(req);
    const roleName = req.params.role_name;
    const all = roles(ctx);
    if (!has(all, roleName)) return secretsError(400, `role "${roleName}" does not exist`);
    const held = all[roleName].transformations;
    try {
      if (b.batch_input !== undefined && b.batch_input !== null) {
        if (!Array.isArray(b.batch_input) || b.batch_input.length === 0) bad("batch_input must be a non-empty list of objects");
        const results: Record<string, unknown>[] = [];
        for (const [i, item] of (b.batch_input as unknown[]).entries()) {
          if (!isRecord(item)) {
            results.push({ error: `batch_input[${i}] must be an object` });
            continue;
          }
          try {
            results.push(batchItem(op, await one(ctx, roleName, held, op, item)));
          } catch (e) {
            if (!(e instanceof BadInput) && !(e instanceof StoreUnavailable)) throw e;
            results.push({ error: e.message });
          }
        }
        return dataReply({ batch_results: results });
      }
      return dataReply(await one(ctx, roleName, held, op, b));
    } catch (e) {
      if (e instanceof StoreUnavailable) return secretsError(500, e.message);
      throw e;
    }
  });
}

export const valueRoutes: Route<SecretsContext>[] = (["encode", "decode", "validate", "tokenized", "metadata"] as Op[]).map((op) => ({
  method: "POST",
  path: `${op}/:role_name`,
  handler: handler(op),
}));
