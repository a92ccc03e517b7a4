import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, type ArgsOf, type OutputsOf, type StateOf } from "../../core/fields";
import { names, reference } from "./fields";
import type { TweakSource } from "./fpeTransformation";
import { firstTemplate, TEMPLATES, TRANSFORMATION_TYPES, transformationKeys, transformationObject, TWEAK_SOURCES } from "./transformations";
import type { ConnectionArgs } from "../../core/connection";

export type TransformationType = (typeof TRANSFORMATION_TYPES)[number];

const transformationFieldsOwn = {
  /** `fpe`, `masking` or `tokenization`. Required and immutable: changing it replaces the transformation. */
  type: field(() => z.enum(TRANSFORMATION_TYPES, { error: `is required: one of ${TRANSFORMATION_TYPES.join(", ")}` }), { immutable: true }),
  /** Template name; required by the generic endpoint, ignored for tokenization. */
  template: field(reference, { refers: "secrets:TransformTemplate", readAs: TEMPLATES, dependent: true }),
  /** fpe only: where the tweak comes from, `supplied` (default), `generated` or `internal`. */
  tweakSource: field(() => z.enum(TWEAK_SOURCES, { error: `must be one of ${TWEAK_SOURCES.join(", ")}` }), {
    default: "supplied", decode: (v: unknown) => String(v || "supplied") as TweakSource,
  }),
  /** masking only: the character that replaces each masked character. Default `*`; only the first character counts. */
  maskingCharacter: field(() => z.string().min(1, "must not be empty (only its first character is used)"), { default: "*", decode: String }),
  /** Roles allowed to encode and decode with it (a set, kept sorted; default none). */
  allowedRoles: field(names, { set: true, default: [] as string[] }),
};

export const transformationFields: typeof transformationKeys & typeof transformationFieldsOwn = { ...transformationKeys, ...transformationFieldsOwn };

const transformationSet = fieldSet(transformationFields);

/** A transformation as the provider sees it (property names of the resource). */
export type TransformationState = StateOf<typeof transformationFields>;

const first = (s: string | undefined) => [...(s ?? "")][0];

export const transformationDefinition = transformationObject<TransformationState>({
  kind: "secrets:TransformTransformation",
  discover: { none: "each transformation is written as the class of its type (FpeTransformation, MaskingTransformation, TokenizationTransformation)" },
  risk: {
    lost: "values encoded or tokens issued with it no longer decode to what they were",
    changes: {
      template: "values encoded before no longer decode to what they were",
      tweakSource: "values encoded before no longer decode to what they were",
    },
    instead: "a new transformation beside the old one (another name), re-encoding values before the old one goes",
  },
  fields: transformationSet,
  type: "generic",
  // What a read means depends on the type: fields that do not apply to it keep the input.
  fromData: (d, p) => {
    const out = transformationSet.decode(d, p) as TransformationState;
    return {
      ...out,
      // Written as `template`, read back as a `templates` list; tokenization has none.
      template: out.type === "tokenization" ? p.template : firstTemplate(d, p.template),
      tweakSource: out.type === "fpe" ? out.tweakSource : p.tweakSource,
      maskingCharacter: out.type === "masking" && first(out.maskingCharacter) !== first(p.maskingCharacter) ? out.maskingCharacter : p.maskingCharacter,
    };
  },
});

export type TransformationArgs = ArgsOf<typeof transformationFields> & ConnectionArgs<"secrets">;

/**
 * A transformation written through the generic endpoint `/{mount}/transformation/{name}`, deprecated
 * since 1.6 in favour of the typed resources; for older servers. Tokenization made here always uses
 * the default mapping mode and the internal store.
 *
 * @example
 * ```ts
 * const legacy = new svc.secrets.transform.Transformation("legacy", {
 *   name: "legacy-card", type: "fpe", template: "builtin/creditcardnumber", allowedRoles: ["payments"],
 * });
 * ```
 */
export interface Transformation extends OutputsOf<typeof transformationFields> {}
export class Transformation extends SvcResource(transformationDefinition) { constructor(name: string, args: TransformationArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
