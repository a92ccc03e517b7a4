import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { registration, SvcResource } from "../../core/resource";
import { adopt, mount } from "../fields";
import { DEFAULT_TRANSFORM_MOUNT, deletedOnlyUnused, transformName } from "./fields";
import { field, fieldSet, type ArgsOf, type OutputsOf, type StateOf } from "../../core/fields";
import { pathObject } from "../pathObject";
import type { ConnectionArgs } from "../../core/connection";
import { TRANSFORM_ROUTES } from "./routes";

/** Number of capturing groups a JavaScript pattern has, or an error text when it does not compile. */
export function captureGroups(pattern: string): number | string {
  try {
    // An empty alternative always matches, and the match array has one slot per capturing group.
    return new RegExp(`${pattern}|`).exec("")!.length - 1;
  } catch (e) {
    return `does not compile as a regular expression: ${(e as Error).message}`;
  }
}

const patternType = () => z.string().min(1, "must not be empty").superRefine((p, ctx) => {
  const groups = captureGroups(p);
  if (typeof groups === "string") ctx.addIssue({ code: "custom", message: groups });
  else if (groups < 1) ctx.addIssue({ code: "custom", message: "must contain at least one capture group: the group selects the characters to transform" });
});

export const templateFields = {
  /** Name of the template; part of its path, so changing it replaces the template. */
  name: field(transformName, { identity: true }),
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the template. */
  mount: field(mount, { identity: true, default: DEFAULT_TRANSFORM_MOUNT }),
  /** Template type; `regex` is the only type and the default. */
  type: field(() => z.literal("regex", { error: 'must be "regex" (the only template type)' }), { default: "regex" }),
  /**
   * Regular expression (JavaScript syntax is checked before any request) with at least one capture
   * group: the groups select the characters transformed, characters outside groups are kept.
   */
  pattern: field(patternType),
  /** Name of the alphabet used by fpe transformations, e.g. `builtin/numeric` or an Alphabet's name. */
  alphabet: field(() => z.string().min(1, "must not be empty when set"), {
    optional: true, refers: "secrets:TransformAlphabet", dependent: true,
    // "No alphabet" is an empty string on the wire and absent in state, so no diff with an omitted input.
    absent: "", decode: (v: unknown) => (v ? String(v) : undefined),
  }),
  /**
   * Take over a template that already exists at the path. Without it, create fails rather than
   * overwriting an object this stack does not own.
   */
  adopt: field(adopt, { local: true }),
};

/** A template as the provider sees it (property names of the resource). */
export type TemplateState = StateOf<typeof templateFields>;

const templateBase = pathObject<TemplateState, TemplateState>({
  kind: "secrets:TransformTemplate",
  risk: {
    lost: "the transformations that name it stop working, and values encoded through them no longer decode",
    changes: {
      pattern: "values encoded through a transformation that uses it no longer decode to what they were",
      alphabet: "values encoded through a transformation that uses it no longer decode to what they were",
    },
    instead: "a new template beside the old one (another name)",
    // A template holds no data: what it puts at risk is what transformations encoded through it.
    whileUsed: true,
  },
  fields: fieldSet(templateFields),
  routes: TRANSFORM_ROUTES.template,
});

export const templateDefinition = deletedOnlyUnused(templateBase,
  (name, t) => `template ${name} is used by transformation ${t}: point that transformation at another template or delete it first`);

export type TemplateArgs = ArgsOf<typeof templateFields> & ConnectionArgs<"secrets">;

/**
 * A transform engine template: `/{mount}/template/{name}` of the secrets service.
 *
 * @example
 * ```ts
 * const ssn = new svc.secrets.transform.Template("ssn", {
 *   name: "us-ssn", pattern: "(\\d{3})-(\\d{2})-(\\d{4})", alphabet: "builtin/numeric",
 * });
 * ```
 */
export interface Template extends OutputsOf<typeof templateFields> {}
export class Template extends SvcResource(templateDefinition) { constructor(name: string, args: TemplateArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
