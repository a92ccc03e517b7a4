import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, type ArgsOf, type OutputsOf, type StateOf } from "../../core/fields";
import { keepForm } from "../duration";
import { duration, names, reference } from "./fields";
import { MAPPING_MODES, transformationKeys, transformationObject } from "./transformations";
import type { ConnectionArgs } from "../../core/connection";

export type MappingMode = (typeof MAPPING_MODES)[number];

const tokenizationTransformationFieldsOwn = {
  /**
   * `default` (recommended) or `exportable`, which permits decoding every plaintext through
   * export-decoded in an emergency. Cannot change in place: changing it replaces the transformation
   * (its tokens are lost with it unless they live in a SQL store).
   */
  mappingMode: field(() => z.enum(MAPPING_MODES, { error: `must be one of ${MAPPING_MODES.join(", ")}` }), {
    immutable: true, default: "default",
    decode: (v: unknown) => String(v || "default") as MappingMode,
  }),
  /**
   * Longest life of a token, as a duration (`"24h"`) or seconds. Default 0: tokens may never expire.
   * State keeps the form given while the server holds the same number of seconds.
   */
  maxTtl: field(duration, { default: 0, decode: (v: unknown, prior: string | number | undefined) => keepForm(prior, v) ?? 0 }),
  /** Roles allowed to encode and decode with it (a set, kept sorted; default none). */
  allowedRoles: field(names, { set: true, default: [] as string[] }),
  /**
   * Stores holding the tokens, in order (the first is read and written); default `builtin/internal`
   * (the engine's own storage). Cannot change in place: changing it replaces the transformation.
   */
  stores: field(() => z.array(reference(), { error: "must be a list of store names" }).min(1, "must name at least one store"), {
    immutable: true, default: ["builtin/internal"] as string[], refers: "secrets:TransformStore", dependent: true,
    decode: (v: unknown) => (Array.isArray(v) && v.length > 0 ? v.map(String) : ["builtin/internal"]),
  }),
};

export const tokenizationTransformationFields: typeof transformationKeys & typeof tokenizationTransformationFieldsOwn = { ...transformationKeys, ...tokenizationTransformationFieldsOwn };

/** A tokenization transformation as the provider sees it (property names of the resource). */
export type TokenizationTransformationState = StateOf<typeof tokenizationTransformationFields>;

// Fields the server leaves out of a read keep the value recorded in state.
export const tokenizationTransformationDefinition = transformationObject<TokenizationTransformationState>({
  kind: "secrets:TransformTokenizationTransformation",
  risk: {
    lost: "tokens issued under it no longer decode, unless they live in a SQL store that a transformation still in use reads",
    changes: { stores: "tokens kept in a store it no longer lists stop decoding through it" },
    instead: "a new transformation beside the old one (another name), moving callers before the old one goes",
  },
  fields: fieldSet(tokenizationTransformationFields),
  type: "tokenization",
});

export type TokenizationTransformationArgs = ArgsOf<typeof tokenizationTransformationFields> & ConnectionArgs<"secrets">;

/**
 * A tokenization transformation (`/{mount}/transformations/tokenization/{name}`): values become
 * random tokens kept in its store.
 *
 * @example
 * ```ts
 * const ssn = new svc.secrets.transform.TokenizationTransformation("ssn", {
 *   name: "ssn", maxTtl: "720h", allowedRoles: ["payments"], stores: [store.name],
 * });
 * ```
 */
export interface TokenizationTransformation extends OutputsOf<typeof tokenizationTransformationFields> {}
export class TokenizationTransformation extends SvcResource(tokenizationTransformationDefinition) { constructor(name: string, args: TokenizationTransformationArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
