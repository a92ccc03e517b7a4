import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, type ArgsOf, type OutputsOf, type StateOf } from "../../core/fields";
import { names, reference } from "./fields";
import { TEMPLATES, transformationKeys, transformationObject, withFirstTemplate } from "./transformations";
import type { ConnectionArgs } from "../../core/connection";

const first = (s: string) => [...s][0] ?? "";

const maskingTransformationFieldsOwn = {
  /** Template whose capture-group characters are masked; everything else is kept. */
  template: field(reference, { refers: "secrets:TransformTemplate", readAs: TEMPLATES }),
  /**
   * The character that replaces each masked character. Default `*`; only the first character
   * counts, so state keeps the form given ("#x") while the server holds the same first character.
   */
  maskingCharacter: field(() => z.string().min(1, "must not be empty (only its first character is used)"), {
    default: "*",
    decode: (v: unknown, prior: string | undefined) => (prior !== undefined && first(prior) === first(String(v)) ? prior : String(v)),
  }),
  /** Roles allowed to encode with it (a set, kept sorted; default none). */
  allowedRoles: field(names, { set: true, default: [] as string[] }),
};

export const maskingTransformationFields: typeof transformationKeys & typeof maskingTransformationFieldsOwn = { ...transformationKeys, ...maskingTransformationFieldsOwn };

const maskingSet = fieldSet(maskingTransformationFields);

/** A masking transformation as the provider sees it (property names of the resource). */
export type MaskingTransformationState = StateOf<typeof maskingTransformationFields>;

export const maskingTransformationDefinition = transformationObject<MaskingTransformationState>({
  kind: "secrets:TransformMaskingTransformation",
  fields: maskingSet,
  type: "masking",
  fromData: withFirstTemplate(maskingSet),
});

export type MaskingTransformationArgs = ArgsOf<typeof maskingTransformationFields> & ConnectionArgs<"secrets">;

/**
 * A masking transformation (`/{mount}/transformations/masking/{name}`): one-way, decode is refused.
 *
 * @example
 * ```ts
 * const masked = new svc.secrets.transform.MaskingTransformation("masked", {
 *   name: "masked-card", template: "builtin/creditcardnumber", maskingCharacter: "#", allowedRoles: ["support"],
 * });
 * ```
 */
export interface MaskingTransformation extends OutputsOf<typeof maskingTransformationFields> {}
export class MaskingTransformation extends SvcResource(maskingTransformationDefinition) { constructor(name: string, args: MaskingTransformationArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
