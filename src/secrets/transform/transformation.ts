import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { SvcResource } from "../../core/resource";
import { adopt, mount } from "../fields";
import { DEFAULT_TRANSFORM_MOUNT, names, reference, sorted, transformName } from "./fields";
import type { TweakSource } from "./fpeTransformation";
import { firstTemplate, transformationObject, TRANSFORMATION_ROUTES, TRANSFORMATION_TYPES, TWEAK_SOURCES } from "./transformations";
import { kept } from "../envelope";
import type { ConnectionArgs } from "../../core/connection";

export type TransformationType = (typeof TRANSFORMATION_TYPES)[number];

export interface TransformationState {
  name: string;
  mount: string;
  type: TransformationType;
  template: string;
  tweakSource: TweakSource;
  maskingCharacter: string;
  allowedRoles: string[];
  adopt?: boolean;
  [key: string]: unknown;
}

let schema: z.ZodType | undefined;

export const transformationDefinition = transformationObject<TransformationState>({
  kind: "secrets:TransformTransformation",
  schema: () => (schema ??= z.object({
    name: transformName(),
    mount: mount(),
    type: z.enum(TRANSFORMATION_TYPES, { error: `is required: one of ${TRANSFORMATION_TYPES.join(", ")}` }),
    template: reference(),
    tweakSource: z.enum(TWEAK_SOURCES, { error: `must be one of ${TWEAK_SOURCES.join(", ")}` }),
    maskingCharacter: z.string().min(1, "must not be empty (only its first character is used)"),
    allowedRoles: names(),
    adopt: adopt(),
  })),
  defaults: { mount: DEFAULT_TRANSFORM_MOUNT, tweakSource: "supplied", maskingCharacter: "*", allowedRoles: [] },
  sets: ["allowedRoles"],
  immutable: ["name", "mount", "type"],
  write: TRANSFORMATION_ROUTES.generic,
  body: (p) => ({ type: p.type, template: p.template, tweak_source: p.tweakSource, masking_character: p.maskingCharacter, allowed_roles: p.allowedRoles }),
  fromData: (d, p) => {
    const type = kept(d, "type", p.type, (v) => String(v) as TransformationType, p.type);
    // Seed reads carry no masking_character: the value in state stands until the server says otherwise.
    const mask = kept(d, "masking_character", p.maskingCharacter, String, "*");
    return {
      name: p.name,
      mount: p.mount,
      type,
      // Tokenization ignores the template; fields that do not apply to the type keep the input.
      template: type === "tokenization" ? p.template : firstTemplate(d, p.template),
      tweakSource: type === "fpe" ? kept(d, "tweak_source", p.tweakSource, (v) => String(v || "supplied") as TweakSource, "supplied") : p.tweakSource,
      maskingCharacter: type === "masking" && [...mask][0] !== [...(p.maskingCharacter ?? "")][0] ? mask : p.maskingCharacter,
      allowedRoles: kept(d, "allowed_roles", p.allowedRoles, sorted, []),
    };
  },
});

export interface TransformationArgs extends ConnectionArgs<"secrets"> {
  /** Name of the transformation. Changing it replaces the transformation. */
  name: pulumi.Input<string>;
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the transformation. */
  mount?: pulumi.Input<string>;
  /** `fpe`, `masking` or `tokenization`. Required and immutable: changing it replaces the transformation. */
  type: pulumi.Input<TransformationType>;
  /** Template name; required by the generic endpoint, ignored for tokenization. */
  template: pulumi.Input<string>;
  /** fpe only: `supplied` (default), `generated` or `internal`. */
  tweakSource?: pulumi.Input<TweakSource>;
  /** masking only: default `*`; only the first character counts. */
  maskingCharacter?: pulumi.Input<string>;
  /** Roles allowed to encode and decode with it (a set; default none). */
  allowedRoles?: pulumi.Input<pulumi.Input<string>[]>;
  /** Take over a transformation that already exists at the path instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

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
export class Transformation extends SvcResource {
  /** Name of the transformation. */
  declare readonly name: pulumi.Output<string>;
  /** Mount path of the transform engine. */
  declare readonly mount: pulumi.Output<string>;
  /** `fpe`, `masking` or `tokenization`. */
  declare readonly type: pulumi.Output<TransformationType>;
  /** The template used. */
  declare readonly template: pulumi.Output<string>;
  /** Where the tweak comes from (fpe). */
  declare readonly tweakSource: pulumi.Output<TweakSource>;
  /** The masking character (masking). */
  declare readonly maskingCharacter: pulumi.Output<string>;
  /** Roles allowed to use it, sorted. */
  declare readonly allowedRoles: pulumi.Output<string[]>;

  constructor(name: string, args: TransformationArgs, opts?: pulumi.CustomResourceOptions) {
    super(transformationDefinition, name, args, opts);
  }
}
