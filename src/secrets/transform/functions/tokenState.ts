/**
 * Snapshot, restore and export-decoded of a tokenization transformation. The iterators follow the
 * service's opaque `continuation` and hold one page (`limit` values) in memory at a time; the
 * array forms collect every page; restore sends values in chunks (restore is idempotent, so a
 * repeated chunk is harmless).
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../../core/zod";
import type { Context } from "../../../core/definition";
import { named, programContext, validated, type FunctionDefinition, type SvcInvokeOptions } from "../../../core/fn";
import type { Service } from "../../../http";
import { forms } from "../../../core/forms";
import { field, output, registerSecrets, type PlainArgsOf, type ResultOf } from "../../../core/fields";
import { mountArg, mountOf, objectName, post } from "./common";
import { TRANSFORM_ROUTES } from "../routes";

/** The tokenization state routes: `TRANSFORM_ROUTES.tokenState`, under the name the package has always exported. */
export const TOKEN_STATE_ROUTES = TRANSFORM_ROUTES.tokenState;

const pagedFieldsOwn = {
  /** Name of the tokenization transformation. */
  transformation: field(objectName),
  /** Values per request (the service's default is 1000). */
  limit: field(() => z.number().int("must be a whole number").min(1, "must be 1 or more"), { optional: true }),
};

const pagedFields: typeof mountArg & typeof pagedFieldsOwn = { ...mountArg, ...pagedFieldsOwn };

/** Which transformation to page through, and how many values per request. */
export type PagedArgs = PlainArgsOf<typeof pagedFields>;

const restoreFieldsOwn = {
  /** Name of the tokenization transformation the snapshot was taken from (its keys sealed the values). */
  transformation: field(objectName),
  /**
   * Snapshot values, in any order, duplicates allowed: an array in the Output form, any iterable
   * (sync or async) in the Promise form. Secret: each is registered for redaction before it is sent.
   */
  values: field(() => z.custom<Iterable<string> | AsyncIterable<string>>((v) => v !== null && typeof v === "object" && (Symbol.iterator in v || Symbol.asyncIterator in v),
    "must be a list (or iterable) of snapshot strings"), { secret: true }),
  /** Values per request. Default 1000. */
  chunkSize: field(() => z.number().int().min(1).max(100_000), { optional: true }),
};

const restoreFields: typeof mountArg & typeof restoreFieldsOwn = { ...mountArg, ...restoreFieldsOwn };

/** What to restore, and where. */
export type RestoreArgs = PlainArgsOf<typeof restoreFields>;

const decodedFields = {
  /** The plaintext as UTF-8 text. */
  plaintext: output<string>({ secret: true }),
  /** The plaintext as the service gives it: base64. */
  plaintextBase64: output<string>({ secret: true, wire: "plaintext" }),
  /** The token that stands for the plaintext. */
  token: output<string>({ secret: true }),
  /** When the token expires; absent when it never does. */
  expirationTime: output<string>({ optional: true }),
};

/** One token of an exportable store, with its plaintext. */
export type DecodedToken = ResultOf<typeof decodedFields>;


async function* pages(ctx: Context, route: string, a: PagedArgs): AsyncGenerator<unknown[], void, undefined> {
  let continuation = "";
  do {
    const data = await post(ctx, route, { mount: mountOf(a), name: a.transformation }, { ...(a.limit ? { limit: a.limit } : {}), continuation });
    yield Array.isArray(data.values) ? data.values : [];
    continuation = typeof data.continuation === "string" ? data.continuation : "";
  } while (continuation !== "");
}

const decoded = (v: unknown): DecodedToken => {
  const o = v as Record<string, unknown>;
  const b64 = String(o.plaintext ?? "");
  const token: DecodedToken = {
    plaintext: Buffer.from(b64, "base64").toString("utf8"),
    plaintextBase64: b64,
    token: String(o.token ?? ""),
    ...(o.expiration_time ? { expirationTime: String(o.expiration_time) } : {}),
  };
  // Plaintexts and tokens come from the service only: registered as they arrive.
  registerSecrets(decodedFields, token);
  return token;
};

async function* snapshotValues(ctx: Context, a: PagedArgs): AsyncGenerator<string, void, undefined> {
  for await (const page of pages(ctx, TRANSFORM_ROUTES.tokenState.snapshot, a)) for (const v of page) yield String(v);
}

async function* exportValues(ctx: Context, a: PagedArgs): AsyncGenerator<DecodedToken, void, undefined> {
  for await (const page of pages(ctx, TRANSFORM_ROUTES.tokenState.exportDecoded, a)) for (const v of page) yield decoded(v);
}

const snapshotDef: FunctionDefinition<PagedArgs, string[]> = { name: "snapshotTokenization", fields: pagedFields, sideEffects: false, run: (ctx, a) => collect(snapshotValues(ctx, a)) };
const exportDef: FunctionDefinition<PagedArgs, DecodedToken[]> = { name: "exportDecodedTokenization", fields: pagedFields, sideEffects: false, run: (ctx, a) => collect(exportValues(ctx, a)) };
export interface RestoreResult {
  /** How many values were sent (duplicates and values already present count too: restore is idempotent). */
  restored: number;
}

/** The Output form's arguments: an array of values instead of any iterable. */
export type RestoreOutputArgs = {
  [K in keyof RestoreArgs]: K extends "values" ? pulumi.Input<pulumi.Input<string>[]> : pulumi.Input<RestoreArgs[K]>;
};

const restoreDef: FunctionDefinition<RestoreArgs, RestoreResult> = {
  name: "restoreTokenization", fields: restoreFields, sideEffects: true,
  async run(ctx, a) {
    const size = a.chunkSize ?? 1000;
    let chunk: string[] = [];
    let restored = 0;
    const send = async () => {
      // An iterable yields its values only now: they are registered as they go out.
      registerSecrets(restoreFields, { values: chunk });
      await ctx.client("secrets").request({ route: TRANSFORM_ROUTES.tokenState.restore, params: { mount: mountOf(a), name: a.transformation }, body: { values: chunk }, retry: "safe" });
      restored += chunk.length;
      chunk = [];
    };
    for await (const v of a.values as AsyncIterable<string>) {
      chunk.push(v);
      if (chunk.length >= size) await send();
    }
    if (chunk.length > 0) await send();
    return { restored };
  },
};

async function* namedAfter<T>(def: FunctionDefinition<unknown, unknown, Service>, it: AsyncGenerator<T, void, undefined>): AsyncGenerator<T, void, undefined> {
  try {
    yield* it;
  } catch (e) {
    throw named(def, e);
  }
}

/**
 * An iterator form: its errors name its function, as the Promise and Output forms' do, whether they
 * come at the call (bad arguments, missing settings: before any request) or from a page's request.
 */
function iterate<A, T>(def: FunctionDefinition<A, unknown>, make: () => AsyncGenerator<T, void, undefined>): AsyncGenerator<T, void, undefined> {
  const d = def as FunctionDefinition<unknown, unknown, Service>;
  try {
    return namedAfter(d, make());
  } catch (e) {
    throw named(d, e);
  }
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of it) out.push(v);
  return out;
}

/**
 * Snapshot values of the transformation's first store one at a time, a page per request; holds the
 * values present when it began. `for await (const v of snapshotTokenization({transformation}))`.
 */
export function snapshotTokenization(args: PagedArgs, opts?: SvcInvokeOptions<"secrets">): AsyncGenerator<string, void, undefined> {
  return iterate(snapshotDef, () => snapshotValues(programContext(opts?.connection, "secrets"), validated(snapshotDef, args)));
}

/** Every snapshot value in one array. */
export const snapshotTokenizationAll = forms(snapshotDef).promise;
/** Output form of {@link snapshotTokenizationAll}: secret. */
export const snapshotTokenizationOutput = forms(snapshotDef, { secret: true }).output;

/**
 * Decoded plaintexts and their tokens one at a time (exportable mapping mode only), a page per request.
 */
export function exportDecodedTokenization(args: PagedArgs, opts?: SvcInvokeOptions<"secrets">): AsyncGenerator<DecodedToken, void, undefined> {
  return iterate(exportDef, () => exportValues(programContext(opts?.connection, "secrets"), validated(exportDef, args)));
}

/** Every decoded token in one array. */
export const exportDecodedTokenizationAll = forms(exportDef).promise;
/** Output form of {@link exportDecodedTokenizationAll}: secret (plaintexts and tokens). */
export const exportDecodedTokenizationOutput = forms(exportDef, { secret: true }).output;

/**
 * Restores snapshot values (an array or any (async) iterable, e.g. {@link snapshotTokenization}) in
 * chunks (default 1000); restore is idempotent. Restore into the transformation the snapshot was
 * taken from: its keys sealed the values, and another transformation refuses them (docs/assumptions.md,
 * item 52). Makes no request during preview (resolves undefined).
 */
export const restoreTokenization = forms(restoreDef).promise;
/** Output form of {@link restoreTokenization} with an array of values; unknown during preview. */
export const restoreTokenizationOutput = forms(restoreDef).output;
