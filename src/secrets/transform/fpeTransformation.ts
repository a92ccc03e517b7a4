import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { SvcResource } from "../../core/resource";
import { adopt, mount } from "../fields";
import { DEFAULT_TRANSFORM_MOUNT, names, reference, sorted, transformName } from "./fields";
import { firstTemplate, transformationObject, TRANSFORMATION_ROUTES, TWEAK_SOURCES } from "./transformations";
import { kept } from "../envelope";
import type { ConnectionArgs } from "../../core/connection";

export type TweakSource = (typeof TWEAK_SOURCES)[number];

export interface FpeTransformationState {
  name: string;
  mount: string;
  template: string;
  tweakSource: TweakSource;
  allowedRoles: string[];
  adopt?: boolean;
  [key: string]: unknown;
}

let schema: z.ZodType | undefined;

export const fpeTransformationDefinition = transformationObject<FpeTransformationState>({
  kind: "secrets:TransformFpeTransformation",
  schema: () => (schema ??= z.object({
    name: transformName(),
    mount: mount(),
    template: reference(),
    tweakSource: z.enum(TWEAK_SOURCES, { error: `must be one of ${TWEAK_SOURCES.join(", ")}` }),
    allowedRoles: names(),
    adopt: adopt(),
  })),
  defaults: { mount: DEFAULT_TRANSFORM_MOUNT, tweakSource: "supplied", allowedRoles: [] },
  sets: ["allowedRoles"],
  immutable: ["name", "mount"],
  write: TRANSFORMATION_ROUTES.fpe,
  body: (p) => ({ template: p.template, tweak_source: p.tweakSource, allowed_roles: p.allowedRoles }),
  fromData: (d, p) => ({
    name: p.name,
    mount: p.mount,
    template: firstTemplate(d, p.template),
    // An empty tweak_source is the default; an absent one keeps the value in state.
    tweakSource: kept(d, "tweak_source", p.tweakSource, (v) => String(v || "supplied") as TweakSource, "supplied"),
    allowedRoles: kept(d, "allowed_roles", p.allowedRoles, sorted, []),
  }),
});

export interface FpeTransformationArgs extends ConnectionArgs<"secrets"> {
  /** Name of the transformation. Changing it replaces the transformation. */
  name: pulumi.Input<string>;
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the transformation. */
  mount?: pulumi.Input<string>;
  /**
   * Template whose capture groups are encrypted (the rest of the value is kept); it must name an
   * alphabet. A built-in such as `builtin/creditcardnumber` or a Template's name.
   */
  template: pulumi.Input<string>;
  /**
   * Where the 7-byte tweak comes from: `supplied` (default; the caller passes it to encode and
   * decode), `generated` (encode returns one, decode needs it) or `internal` (the service keeps one).
   */
  tweakSource?: pulumi.Input<TweakSource>;
  /** Roles allowed to encode and decode with it (a set; default none). Globs such as `payments-*` match. */
  allowedRoles?: pulumi.Input<pulumi.Input<string>[]>;
  /** Take over a transformation that already exists at the path instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

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
export class FpeTransformation extends SvcResource {
  /** Name of the transformation. */
  declare readonly name: pulumi.Output<string>;
  /** Mount path of the transform engine. */
  declare readonly mount: pulumi.Output<string>;
  /** The template used. */
  declare readonly template: pulumi.Output<string>;
  /** Where the tweak comes from. */
  declare readonly tweakSource: pulumi.Output<TweakSource>;
  /** Roles allowed to use it, sorted. */
  declare readonly allowedRoles: pulumi.Output<string[]>;

  constructor(name: string, args: FpeTransformationArgs, opts?: pulumi.CustomResourceOptions) {
    super(fpeTransformationDefinition, name, args, opts);
  }
}
