import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, type ArgsOf, type OutputsOf, type StateOf } from "../../core/fields";
import { names, reference } from "./fields";
import { TEMPLATES, transformationKeys, transformationObject, TWEAK_SOURCES, withFirstTemplate } from "./transformations";
import type { ConnectionArgs } from "../../core/connection";

export type TweakSource = (typeof TWEAK_SOURCES)[number];

const fpeTransformationFieldsOwn = {
  /**
   * Template whose capture groups are encrypted (the rest of the value is kept); it must name an
   * alphabet. A built-in such as `builtin/creditcardnumber` or a Template's name.
   */
  template: field(reference, { refers: "secrets:TransformTemplate", readAs: TEMPLATES, dependent: true }),
  /**
   * Where the 7-byte tweak comes from: `supplied` (default; the caller passes it to encode and
   * decode), `generated` (encode returns one, decode needs it) or `internal` (the service keeps one).
   */
  tweakSource: field(() => z.enum(TWEAK_SOURCES, { error: `must be one of ${TWEAK_SOURCES.join(", ")}` }), {
    default: "supplied",
    // An empty tweak_source is the default.
    decode: (v: unknown) => String(v || "supplied") as TweakSource,
  }),
  /**
   * Roles allowed to encode and decode with it (a set, kept sorted; default none). Globs such as
   * `payments-*` match.
   */
  allowedRoles: field(names, { set: true, default: [] as string[] }),
};

export const fpeTransformationFields: typeof transformationKeys & typeof fpeTransformationFieldsOwn = { ...transformationKeys, ...fpeTransformationFieldsOwn };

const fpeSet = fieldSet(fpeTransformationFields);

/** An fpe transformation as the provider sees it (property names of the resource). */
export type FpeTransformationState = StateOf<typeof fpeTransformationFields>;

export const fpeTransformationDefinition = transformationObject<FpeTransformationState>({
  kind: "secrets:TransformFpeTransformation",
  risk: {
    lost: "values encoded with it no longer decode to what they were (a new transformation has new keys)",
    changes: {
      template: "values encoded before no longer decode to what they were",
      tweakSource: "values encoded before no longer decode to what they were",
    },
    instead: "a new transformation beside the old one (another name), re-encoding values before the old one goes",
  },
  fields: fpeSet,
  type: "fpe",
  fromData: withFirstTemplate(fpeSet),
});

export type FpeTransformationArgs = ArgsOf<typeof fpeTransformationFields> & ConnectionArgs<"secrets">;

/**
 * A format-preserving encryption transformation (`/{mount}/transformations/fpe/{name}`): FF3-1 over
 * the template's alphabet, applied to the template's capture groups.
 *
 * @example
 * ```ts
 * const card = new svc.secrets.transform.FpeTransformation("card", {
 *   name: "card", template: "builtin/creditcardnumber", tweakSource: "internal", allowedRoles: ["payments"],
 * });
 * ```
 */
export interface FpeTransformation extends OutputsOf<typeof fpeTransformationFields> {}
export class FpeTransformation extends SvcResource(fpeTransformationDefinition) { constructor(name: string, args: FpeTransformationArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
