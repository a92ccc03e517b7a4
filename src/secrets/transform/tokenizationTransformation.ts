import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { SvcResource } from "../../core/resource";
import { adopt, mount } from "../fields";
import { keepForm } from "../duration";
import { DEFAULT_TRANSFORM_MOUNT, duration, names, reference, sorted, transformName } from "./fields";
import { MAPPING_MODES, transformationObject, TRANSFORMATION_ROUTES } from "./transformations";
import { kept } from "../envelope";
import type { ConnectionArgs } from "../../core/connection";

export type MappingMode = (typeof MAPPING_MODES)[number];

export interface TokenizationTransformationState {
  name: string;
  mount: string;
  mappingMode: MappingMode;
  maxTtl: string | number;
  allowedRoles: string[];
  stores: string[];
  adopt?: boolean;
  [key: string]: unknown;
}

let schema: z.ZodType | undefined;

export const tokenizationTransformationDefinition = transformationObject<TokenizationTransformationState>({
  kind: "secrets:TransformTokenizationTransformation",
  schema: () => (schema ??= z.object({
    name: transformName(),
    mount: mount(),
    mappingMode: z.enum(MAPPING_MODES, { error: `must be one of ${MAPPING_MODES.join(", ")}` }),
    maxTtl: duration(),
    allowedRoles: names(),
    stores: z.array(reference(), { error: "must be a list of store names" }).min(1, "must name at least one store"),
    adopt: adopt(),
  })),
  defaults: { mount: DEFAULT_TRANSFORM_MOUNT, mappingMode: "default", maxTtl: 0, allowedRoles: [], stores: ["builtin/internal"] },
  sets: ["allowedRoles"],
  // The service cannot change these in place; the first store is the one read and written.
  immutable: ["name", "mount", "mappingMode", "stores"],
  write: TRANSFORMATION_ROUTES.tokenization,
  body: (p) => ({ mapping_mode: p.mappingMode, max_ttl: p.maxTtl, allowed_roles: p.allowedRoles, stores: p.stores }),
  // Fields the server leaves out of a read keep the value recorded in state (see `kept`).
  fromData: (d, p) => ({
    name: p.name,
    mount: p.mount,
    mappingMode: kept(d, "mapping_mode", p.mappingMode, (v) => String(v || "default") as MappingMode, "default"),
    maxTtl: kept(d, "max_ttl", p.maxTtl, (v) => keepForm(p.maxTtl, v) ?? 0, 0),
    allowedRoles: kept(d, "allowed_roles", p.allowedRoles, sorted, []),
    stores: kept(d, "stores", p.stores, (v) => (Array.isArray(v) && v.length > 0 ? v.map(String) : ["builtin/internal"]), ["builtin/internal"]),
  }),
});

export interface TokenizationTransformationArgs extends ConnectionArgs<"secrets"> {
  /** Name of the transformation. Changing it replaces the transformation. */
  name: pulumi.Input<string>;
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the transformation. */
  mount?: pulumi.Input<string>;
  /**
   * `default` (recommended) or `exportable`, which permits decoding every plaintext through
   * export-decoded in an emergency. Cannot change in place: changing it replaces the transformation
   * (its tokens are lost with it unless they live in a SQL store).
   */
  mappingMode?: pulumi.Input<MappingMode>;
  /** Longest life of a token, as a duration (`"24h"`) or seconds. Default 0: tokens may never expire. */
  maxTtl?: pulumi.Input<string | number>;
  /** Roles allowed to encode and decode with it (a set; default none). */
  allowedRoles?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Stores holding the tokens, in order; default `builtin/internal` (the engine's own storage).
   * Cannot change in place: changing it replaces the transformation.
   */
  stores?: pulumi.Input<pulumi.Input<string>[]>;
  /** Take over a transformation that already exists at the path instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

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
export class TokenizationTransformation extends SvcResource {
  /** Name of the transformation. */
  declare readonly name: pulumi.Output<string>;
  /** Mount path of the transform engine. */
  declare readonly mount: pulumi.Output<string>;
  /** `default` or `exportable`. */
  declare readonly mappingMode: pulumi.Output<MappingMode>;
  /** Longest token life as given (or seconds when set out of band). */
  declare readonly maxTtl: pulumi.Output<string | number>;
  /** Roles allowed to use it, sorted. */
  declare readonly allowedRoles: pulumi.Output<string[]>;
  /** Stores holding the tokens. */
  declare readonly stores: pulumi.Output<string[]>;

  constructor(name: string, args: TokenizationTransformationArgs, opts?: pulumi.CustomResourceOptions) {
    super(tokenizationTransformationDefinition, name, args, opts);
  }
}
