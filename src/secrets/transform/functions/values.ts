/**
 * encode, decode, validate, tokenized and metadata through a role, for one value or a batch. Batches
 * are sent in chunks of `batchSize`; results come back in input order, a failing item with `error`.
 */
import { z } from "../../../core/zod";
import type { z as Zod } from "zod";
import type { Context } from "../../../core/definition";
import type { FunctionDefinition } from "../../../core/fn";
import { forms } from "../../../core/forms";
import { CROSS_FIELD, crossField, field, fieldSet, lazy, output, registerSecrets, type PlainArgsOf } from "../../../core/fields";
import type { Schema } from "../../../core/validate";
import { duration } from "../fields";
import { isAmbiguous, isSvcError } from "../../../http";
import { dataOf } from "../../envelope";
import { mountArg, mountOf, objectName, post, sevenByteTweak } from "./common";
import { TRANSFORM_ROUTES } from "../routes";

/** The value operations' routes: `TRANSFORM_ROUTES.value`, under the name the package has always exported. */
export const VALUE_ROUTES = TRANSFORM_ROUTES.value;

type Op = keyof typeof TRANSFORM_ROUTES.value;

const metaPairs = () => z.union([
  z.string().regex(/^[^=,]+=[^,]*(,[^=,]+=[^,]*)*$/, 'must be "key=value" pairs separated by commas'),
  z.record(z.string(), z.string()),
], { error: 'must be "key=value" pairs or a map of strings' });

/** The fields of one value: an item of `batchInput`, or the single value of a call. */
const valueItemFields = {
  /**
   * The value: a plaintext for encode and tokenized, an encoded value or token otherwise. Secret:
   * registered for redaction, so a server that echoes it cannot put it in an error message.
   */
  value: field(() => z.string({ error: "is required: a string" }).min(1, "must not be empty"), { secret: true }),
  /** Transformation to use; may be omitted when the role holds exactly one. */
  transformation: field(objectName, { optional: true }),
  /** fpe with `supplied` (encode, decode) or `generated` (decode) tweak source: base64 of exactly 7 bytes. */
  tweak: field(sevenByteTweak, { optional: true }),
  /** Tokenization encode: life of the token, a duration (`"1h"`) or seconds; capped by the transformation's maxTtl. */
  ttl: field(duration, { optional: true }),
  /** Tokenization encode: `key=value` pairs, as `"a=1,b=2"` or as a map; read back with metadata. */
  metadata: field(metaPairs, {
    optional: true,
    // The service takes the text form only.
    encode: (m: string | Record<string, string>) => (typeof m === "string" ? m : Object.entries(m).map(([k, v]) => `${k}=${v}`).join(",")),
  }),
};

/** One value of a batch (or the single value of a call). */
export type ValueItem = PlainArgsOf<typeof valueItemFields>;

const itemSet = fieldSet(valueItemFields);

const callFieldsOwn = {
  /** The role the call goes through. */
  role: field(objectName),
  /** Many values in one call (single-value arguments are then ignored); results keep the input order. */
  batchInput: field(() => z.array(itemSet.schema() as unknown as Zod.ZodType<ValueItem>).min(1, "must hold at least one item"), {
    optional: true, of: valueItemFields,
  }),
  /** Items per request for `batchInput`. Default 1000. */
  batchSize: field(() => z.number().int().min(1).max(10_000), { optional: true }),
};

const callFields: typeof mountArg & typeof callFieldsOwn = { ...mountArg, ...callFieldsOwn };

/** The arguments of encode, decode, validate, tokenized and metadata: one value, or `batchInput`. */
export type ValueArgs = PlainArgsOf<typeof callFields> & Partial<ValueItem>;

/** What every batch item may carry besides its result. */
export interface BatchItemError {
  /** Why the service refused this item (the other items are unaffected); absent when it succeeded. */
  error?: string;
}

/** One item of an encode batch. */
export interface EncodeBatchResult extends BatchItemError {
  /** The encoded value or token. */
  encodedValue?: string;
  /** The tweak encode generated (fpe with `generated` tweak source): keep it, decode needs it. */
  tweak?: string;
}

export interface EncodeResult {
  /** The encoded value (single call). */
  encodedValue?: string;
  /** The tweak encode generated (fpe with `generated` tweak source): keep it, decode needs it. */
  tweak?: string;
  /** Batch results in input order. */
  batchResults?: EncodeBatchResult[];
}

/** One item of a decode batch. */
export interface DecodeBatchResult extends BatchItemError {
  /** The plaintext. */
  decodedValue?: string;
}

export interface DecodeResult {
  /** The plaintext (single call). */
  decodedValue?: string;
  /** Batch results in input order. */
  batchResults?: DecodeBatchResult[];
}

/** One item of a validate batch. */
export interface ValidateBatchResult extends BatchItemError {
  /** True when the token is valid and unexpired. */
  valid?: boolean;
}

export interface ValidateResult {
  /** True when the token is valid and unexpired. */
  valid?: boolean;
  /** Batch results in input order. */
  batchResults?: ValidateBatchResult[];
}

/** One item of a tokenized batch. */
export interface TokenizedBatchResult extends BatchItemError {
  /** True when a valid unexpired token exists for the plaintext. */
  tokenized?: boolean;
}

export interface TokenizedResult {
  /** True when a valid unexpired token exists for the plaintext. */
  tokenized?: boolean;
  /** Batch results in input order. */
  batchResults?: TokenizedBatchResult[];
}

/** One item of a metadata batch. */
export interface MetadataBatchResult extends BatchItemError {
  /** The metadata given at encode (`key=value` pairs separated by commas). */
  metadata?: string;
  /** Expiration timestamp of the token; absent when it never expires. */
  expirationTime?: string;
}

export interface MetadataResult {
  /** The metadata given at encode (`key=value` pairs separated by commas; single call). */
  metadata?: string;
  /** Expiration timestamp of the token; absent when it never expires. */
  expirationTime?: string;
  /** Batch results in input order. */
  batchResults?: MetadataBatchResult[];
}

/** Item fields only encode takes. */
const ENCODE_ONLY = ["ttl", "metadata"] as const;

function buildSchema(op: Op): Schema {
  // The single value's fields are those of an item, each optional: batchInput may stand in for them.
  const single = (itemSet.schema() as unknown as Zod.ZodObject).partial();
  return single.extend((fieldSet(callFields).schema() as unknown as Zod.ZodObject).shape).superRefine(crossField((raw, ctx) => {
    const a = raw as ValueArgs;
    if (a.batchInput === undefined && a.value === undefined) ctx.addIssue({ code: "custom", path: ["value"], message: "is required unless batchInput is given" });
    if (op === "encode") return;
    const items: [PropertyKey[], Partial<ValueItem>][] = [[[], a], ...(a.batchInput ?? []).map((i, n): [PropertyKey[], Partial<ValueItem>] => [["batchInput", n], i])];
    for (const [at, i] of items) {
      for (const k of ENCODE_ONLY) if (i?.[k] !== undefined) ctx.addIssue({ code: "custom", path: [...at, k], message: "is for encode only" });
    }
  }), CROSS_FIELD) as unknown as Schema;
}

/** The secret members of a value call's results: encoded values and tokens, plaintexts, tweaks. */
const resultFields = {
  /** An encoded value or token. */
  encodedValue: output<string>({ secret: true }),
  /** A plaintext. */
  decodedValue: output<string>({ secret: true }),
  /** A generated tweak. */
  tweak: output<string>({ secret: true }),
};

const camel = (r: Record<string, unknown>, op: Op): Record<string, unknown> => {
  const out = camelOf(r, op);
  registerSecrets(resultFields, out);
  return out;
};

const camelOf = (r: Record<string, unknown>, op: Op): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  // Decode batch items carry the plaintext under encoded_value (as the seed shows) or decoded_value.
  if (op === "decode" && (r.decoded_value !== undefined || r.encoded_value !== undefined)) out.decodedValue = r.decoded_value ?? r.encoded_value;
  else if (r.encoded_value !== undefined) out.encodedValue = r.encoded_value;
  if (r.tweak !== undefined && r.tweak !== "") out.tweak = r.tweak;
  if (r.valid !== undefined) out.valid = r.valid === true;
  if (r.tokenized !== undefined) out.tokenized = r.tokenized === true;
  if (r.metadata !== undefined) out.metadata = String(r.metadata);
  if (r.expiration_time) out.expirationTime = String(r.expiration_time);
  if (r.error !== undefined && r.error !== "") out.error = String(r.error);
  return out;
};

async function run(ctx: Context, op: Op, a: ValueArgs): Promise<Record<string, unknown>> {
  const params = { mount: mountOf(a), role: a.role };
  if (!a.batchInput) {
    if (op !== "encode") return camel(await post(ctx, TRANSFORM_ROUTES.value[op], params, itemSet.body(a), "safe"), op);
    const [only] = await encodeOnce(ctx, params, [a as ValueItem], false);
    return only!;
  }
  const size = a.batchSize ?? 1000;
  const results: Record<string, unknown>[] = [];
  for (let i = 0; i < a.batchInput.length; i += size) {
    const chunk = a.batchInput.slice(i, i + size);
    if (op === "encode") results.push(...(await encodeOnce(ctx, params, chunk, true)));
    else results.push(...batchResults(await post(ctx, TRANSFORM_ROUTES.value[op], params, { batch_input: chunk.map((item) => itemSet.body(item)) }, "safe"), op));
  }
  return { batchResults: results };
}

const batchResults = (data: Record<string, unknown>, op: Op) =>
  (Array.isArray(data.batch_results) ? data.batch_results : []).map((r) => camel(r as Record<string, unknown>, op));

/**
 * Encodes items without ever making a second token for one of them. An encode whose outcome is
 * unknown (lost response, 5xx, 429) is harmless to repeat for fpe and masking, which store nothing;
 * a tokenization encode stores a token, and the service never hands out an existing one. So after
 * such a failure each tokenization item is looked up with `tokenized`: one the service now knows is
 * reported as an item error (its outcome is unknown) and not sent again; the others are.
 */
async function encodeOnce(ctx: Context, params: { mount: string; role: string }, items: ValueItem[], batch: boolean): Promise<Record<string, unknown>[]> {
  const send = async (list: ValueItem[]) => batch
    ? batchResults(await post(ctx, TRANSFORM_ROUTES.value.encode, params, { batch_input: list.map((item) => itemSet.body(item)) }), "encode")
    : [camel(await post(ctx, TRANSFORM_ROUTES.value.encode, params, itemSet.body(list[0]!)), "encode")];
  const results: (Record<string, unknown> | undefined)[] = items.map(() => undefined);
  let pending = items.map((_, i) => i);
  for (let attempt = 1; ; attempt++) {
    try {
      const out = await send(pending.map((i) => items[i]!));
      pending.forEach((i, n) => (results[i] = out[n] ?? { error: "the service returned no result for this item" }));
      return results as Record<string, unknown>[];
    } catch (e) {
      if (!isAmbiguous(e) || attempt >= 3) throw e;
      let unknown: Set<number>;
      try {
        unknown = await tokenizedNow(ctx, params, pending.map((i) => items[i]!)).then((hits) => new Set(hits.map((n) => pending[n]!)));
      } catch (lookErr) {
        (e as Error).message += `; looking up whether the service made tokens failed too (${(lookErr as Error).message}): ` +
          "encoding again could make a second token, so it was not repeated";
        throw e;
      }
      const why = "the service now holds a token for this value, which it never returns; not sent again, so no second token was made";
      if (!batch && unknown.size > 0) {
        (e as Error).message += `; outcome unknown: ${why}`;
        throw e;
      }
      for (const i of unknown) results[i] = { error: `outcome unknown: the response to this encode was lost (${(e as Error).message}) and ${why}` };
      pending = pending.filter((i) => !unknown.has(i));
      if (pending.length === 0) return results as Record<string, unknown>[];
      ctx.log(`encode through role ${params.role}: the response was lost (${(e as Error).message}); sending ${pending.length} item(s) again`);
      if (isSvcError(e, "rate_limited")) await new Promise((r) => setTimeout(r, Math.min((e as { retryAfterMs?: number }).retryAfterMs ?? 1000, 30_000)));
    }
  }
}

/** Of `items`, the positions of tokenization items whose value the service reports tokenized. */
async function tokenizedNow(ctx: Context, params: { mount: string; role: string }, items: ValueItem[]): Promise<number[]> {
  const role = dataOf((await ctx.client("secrets").request({ route: TRANSFORM_ROUTES.role.read, params: { mount: params.mount, name: params.role } })).body);
  const held = Array.isArray(role.transformations) ? role.transformations.map(String) : [];
  const types = new Map<string, string>();
  for (const name of held) {
    const res = await ctx.client("secrets").request({ route: TRANSFORM_ROUTES.transformation.read, params: { mount: params.mount, name }, expect: [404] });
    types.set(name, res.status === 404 ? "" : String(dataOf(res.body).type ?? ""));
  }
  const tokenization = items.map((item, n) => [n, item] as const)
    .filter(([, item]) => types.get(item.transformation ?? (held.length === 1 ? held[0]! : "")) !== "fpe" &&
      types.get(item.transformation ?? (held.length === 1 ? held[0]! : "")) !== "masking");
  if (tokenization.length === 0) return [];
  const data = await post(ctx, TRANSFORM_ROUTES.value.tokenized, params, {
    batch_input: tokenization.map(([, item]) => ({ value: item.value, ...(item.transformation ? { transformation: item.transformation } : {}) })),
  }, "safe");
  const found = batchResults(data, "tokenized");
  return tokenization.filter((_, k) => found[k]?.tokenized === true).map(([n]) => n);
}

// Registers the single value and every batch item's value for redaction before any request.
const argFields = { ...valueItemFields, ...callFields };

function def<R>(op: Op, sideEffects: boolean): FunctionDefinition<ValueArgs, R> {
  return { name: op, schema: lazy(() => buildSchema(op)), fields: argFields, sideEffects, run: (ctx, a) => run(ctx, op, a) as Promise<R> };
}

// Encode writes tokens (tokenization): no request during preview.
const encodeF = forms(def<EncodeResult>("encode", true), { secret: true });
const decodeF = forms(def<DecodeResult>("decode", false), { secret: true });
const validateF = forms(def<ValidateResult>("validate", false));
const tokenizedF = forms(def<TokenizedResult>("tokenized", false));
const metadataF = forms(def<MetadataResult>("metadata", false));

/** Encodes a value (or `batchInput`) through a role. Makes no request during preview (resolves undefined). */
export const encode = encodeF.promise;
/** Output form of {@link encode}: secret (encoded values, tokens and tweaks); unknown during preview. */
export const encodeOutput = encodeF.output;
/** Decodes an encoded value or token (or `batchInput`) through a role. */
export const decode = decodeF.promise;
/** Output form of {@link decode}: secret (plaintext). */
export const decodeOutput = decodeF.output;
/** Whether a token is valid and unexpired (tokenization only). */
export const validate = validateF.promise;
/** Output form of {@link validate}. */
export const validateOutput = validateF.output;
/** Whether a valid unexpired token exists for a plaintext (tokenization only); never returns it. */
export const tokenized = tokenizedF.promise;
/** Output form of {@link tokenized}. */
export const tokenizedOutput = tokenizedF.output;
/** The metadata and expiration of a token (tokenization only). */
export const metadata = metadataF.promise;
/** Output form of {@link metadata}. */
export const metadataOutput = metadataF.output;
