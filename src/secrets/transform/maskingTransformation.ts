import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { SvcResource } from "../../core/resource";
import { adopt, mount } from "../fields";
import { DEFAULT_TRANSFORM_MOUNT, names, reference, sorted, transformName } from "./fields";
import { firstTemplate, transformationObject, TRANSFORMATION_ROUTES } from "./transformations";
import { kept } from "../envelope";
import type { ConnectionArgs } from "../../core/connection";

export interface MaskingTransformationState {
  name: string;
  mount: string;
  template: string;
  maskingCharacter: string;
  allowedRoles: string[];
  adopt?: boolean;
  [key: string]: unknown;
}

const first = (s: string) => [...s][0] ?? "";

let schema: z.ZodType | undefined;

export const maskingTransformationDefinition = transformationObject<MaskingTransformationState>({
  kind: "secrets:TransformMaskingTransformation",
  schema: () => (schema ??= z.object({
    name: transformName(),
    mount: mount(),
    template: reference(),
    maskingCharacter: z.string().min(1, "must not be empty (only its first character is used)"),
    allowedRoles: names(),
    adopt: adopt(),
  })),
  defaults: { mount: DEFAULT_TRANSFORM_MOUNT, maskingCharacter: "*", allowedRoles: [] },
  sets: ["allowedRoles"],
  immutable: ["name", "mount"],
  write: TRANSFORMATION_ROUTES.masking,
  body: (p) => ({ template: p.template, masking_character: p.maskingCharacter, allowed_roles: p.allowedRoles }),
  fromData: (d, p) => {
    // Seed reads carry no masking_character: the value in state stands until the server says otherwise.
    const server = kept(d, "masking_character", p.maskingCharacter, String, "*");
    return {
      name: p.name,
      mount: p.mount,
      template: firstTemplate(d, p.template),
      // Only the first character counts: "#x" and "#" are the same setting.
      maskingCharacter: p.maskingCharacter !== undefined && first(p.maskingCharacter) === first(server) ? p.maskingCharacter : server,
      allowedRoles: kept(d, "allowed_roles", p.allowedRoles, sorted, []),
    };
  },
});

export interface MaskingTransformationArgs extends ConnectionArgs<"secrets"> {
  /** Name of the transformation. Changing it replaces the transformation. */
  name: pulumi.Input<string>;
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the transformation. */
  mount?: pulumi.Input<string>;
  /** Template whose capture-group characters are masked; everything else is kept. */
  template: pulumi.Input<string>;
  /** The character that replaces each masked character. Default `*`; only the first character counts. */
  maskingCharacter?: pulumi.Input<string>;
  /** Roles allowed to encode with it (a set; default none). */
  allowedRoles?: pulumi.Input<pulumi.Input<string>[]>;
  /** Take over a transformation that already exists at the path instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

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
export class MaskingTransformation extends SvcResource {
  /** Name of the transformation. */
  declare readonly name: pulumi.Output<string>;
  /** Mount path of the transform engine. */
  declare readonly mount: pulumi.Output<string>;
  /** The template used. */
  declare readonly template: pulumi.Output<string>;
  /** The masking character as given (its first character is used). */
  declare readonly maskingCharacter: pulumi.Output<string>;
  /** Roles allowed to use it, sorted. */
  declare readonly allowedRoles: pulumi.Output<string[]>;

  constructor(name: string, args: MaskingTransformationArgs, opts?: pulumi.CustomResourceOptions) {
    super(maskingTransformationDefinition, name, args, opts);
  }
}
