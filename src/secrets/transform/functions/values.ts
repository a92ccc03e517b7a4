/**
 * encode, decode, validate, tokenized and metadata through a role, for one value or a batch. Batches
 * are sent in chunks of `batchSize`; results come back in input order, a failing item with `error`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { CROSS_FIELD, crossField } from "../../../core/crossField";
import type { Context } from "../../../core/definition";
import type { FunctionDefinition, SvcInvokeOutputOptions } from "../../../core/fn";
import { duration } from "../fields";
import { forms, mountOf, objectName, optionalMount, post, sevenByteTweak, type Inputs } from "./common";

export const VALUE_ROUTES = {
  encode: "POST /{mount}/encode/{role}",
  decode: "POST /{mount}/decode/{role}",
  validate: "POST /{mount}/validate/{role}",
  tokenized: "POST /{mount}/tokenized/{role}",
  metadata: "POST /{mount}/metadata/{role}",
} as const;

type Op = keyof typeof VALUE_ROUTES;

/** One value of a batch (or the single value of a call). */
export interface ValueItem {
  /** The value: a plaintext for encode and tokenized, an encoded value or token otherwise. */
  value: string;
  /** Transformation to use; may be omitted when the role holds exactly one. */
  transformation?: string;
  /** fpe with `supplied` (encode, decode) or `generated` (decode) tweak source: base64 of exactly 7 bytes. */
  tweak?: string;
  /** Tokenization encode: life of the token, a duration (`"1h"`) or seconds; capped by the transformation's maxTtl. */
  ttl?: string | number;
  /** Tokenization encode: `key=value` pairs, as `"a=1,b=2"` or as a map; read back with metadata. */
  metadata?: string | Record<string, string>;
}

export interface ValueArgs extends Partial<ValueItem> {
  /** The role the call goes through. */
  role: string;
  /** Mount path of the transform engine. Default `transform`. */
  mount?: string;
  /** Many values in one call (single-value arguments are then ignored); results keep the input order. */
  batchInput?: ValueItem[];
  /** Items per request for `batchInput`. Default 1000. */
  batchSize?: number;
}

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

const metadataText = (m: ValueItem["metadata"]) =>
  m === undefined ? undefined : typeof m === "string" ? m : Object.entries(m).map(([k, v]) => `${k}=${v}`).join(",");

const item = (op: Op) => {
  const metaPairs = z.union([
    z.string().regex(/^[^=,]+=[^,]*(,[^=,]+=[^,]*)*$/, 'must be "key=value" pairs separated by commas'),
    z.record(z.string(), z.string()),
  ], { error: 'must be "key=value" pairs or a map of strings' });
  return z.object({
    value: z.string({ error: "is required: a string" }).min(1, "must not be empty"),
    transformation: objectName().optional(),
    tweak: sevenByteTweak().optional(),
    ttl: op === "encode" ? duration().optional() : z.undefined({ error: "is for encode only" }).optional(),
    metadata: op === "encode" ? metaPairs.optional() : z.undefined({ error: "is for encode only" }).optional(),
  });
};

const schemas = new Map<Op, z.ZodType>();
function schemaFor(op: Op): z.ZodType {
  let s = schemas.get(op);
  if (!s) {
    const one = item(op);
    s = one.partial().extend({
      role: objectName(),
      mount: optionalMount(),
      batchInput: z.array(one).min(1, "must hold at least one item").optional(),
      batchSize: z.number().int().min(1).max(10_000).optional(),
    }).superRefine(crossField((a, ctx) => {
      if (a.batchInput === undefined && a.value === undefined) ctx.addIssue({ code: "custom", path: ["value"], message: "is required unless batchInput is given" });
    }), CROSS_FIELD);
    schemas.set(op, s);
  }
  return s;
}

function wire(i: Partial<ValueItem>): Record<string, unknown> {
  const out: Record<string, unknown> = { value: i.value };
  if (i.transformation !== undefined) out.transformation = i.transformation;
  if (i.tweak !== undefined) out.tweak = i.tweak;
  if (i.ttl !== undefined) out.ttl = i.ttl;
  const m = metadataText(i.metadata);
  if (m !== undefined) out.metadata = m;
  return out;
}

const camel = (r: Record<string, unknown>, op: Op): Record<string, unknown> => {
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
  if (!a.batchInput) return camel(await post(ctx, VALUE_ROUTES[op], params, wire(a)), op);
  const size = a.batchSize ?? 1000;
  const results: Record<string, unknown>[] = [];
  for (let i = 0; i < a.batchInput.length; i += size) {
    const data = await post(ctx, VALUE_ROUTES[op], params, { batch_input: a.batchInput.slice(i, i + size).map(wire) });
    const page = Array.isArray(data.batch_results) ? data.batch_results : [];
    for (const r of page) results.push(camel(r as Record<string, unknown>, op));
  }
  return { batchResults: results };
}

function def<R>(op: Op, sideEffects: boolean): FunctionDefinition<ValueArgs, R> {
  return { name: op, schema: () => schemaFor(op), sideEffects, run: (ctx, a) => run(ctx, op, a) as Promise<R> };
}

// Encode writes tokens (tokenization): no request during preview.
const encodeF = forms(def<EncodeResult>("encode", true), true);
const decodeF = forms(def<DecodeResult>("decode", false), true);
const validateF = forms(def<ValidateResult>("validate", false), false);
const tokenizedF = forms(def<TokenizedResult>("tokenized", false), false);
const metadataF = forms(def<MetadataResult>("metadata", false), false);

/** Encodes a value (or `batchInput`) through a role. Makes no request during preview (resolves undefined). */
export const encode = encodeF.promise;
/** Output form of {@link encode}: secret (encoded values, tokens and tweaks); unknown during preview. */
export const encodeOutput: (args: Inputs<ValueArgs>, opts?: SvcInvokeOutputOptions<"secrets">) => pulumi.Output<EncodeResult> = encodeF.output;
/** Decodes an encoded value or token (or `batchInput`) through a role. */
export const decode = decodeF.promise;
/** Output form of {@link decode}: secret (plaintext). */
export const decodeOutput: (args: Inputs<ValueArgs>, opts?: SvcInvokeOutputOptions<"secrets">) => pulumi.Output<DecodeResult> = decodeF.output;
/** Whether a token is valid and unexpired (tokenization only). */
export const validate = validateF.promise;
/** Output form of {@link validate}. */
export const validateOutput: (args: Inputs<ValueArgs>, opts?: SvcInvokeOutputOptions<"secrets">) => pulumi.Output<ValidateResult> = validateF.output;
/** Whether a valid unexpired token exists for a plaintext (tokenization only); never returns it. */
export const tokenized = tokenizedF.promise;
/** Output form of {@link tokenized}. */
export const tokenizedOutput: (args: Inputs<ValueArgs>, opts?: SvcInvokeOutputOptions<"secrets">) => pulumi.Output<TokenizedResult> = tokenizedF.output;
/** The metadata and expiration of a token (tokenization only). */
export const metadata = metadataF.promise;
/** Output form of {@link metadata}. */
export const metadataOutput: (args: Inputs<ValueArgs>, opts?: SvcInvokeOutputOptions<"secrets">) => pulumi.Output<MetadataResult> = metadataF.output;
