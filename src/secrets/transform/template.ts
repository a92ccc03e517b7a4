import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { SvcResource } from "../../core/resource";
import type { ResourceDefinition } from "../../core/definition";
import { adopt, mount } from "../fields";
import { inUse, transformName, usersOf } from "./fields";
import { TRANSFORMATION_ROUTES } from "./transformations";
import { pathObject } from "../pathObject";
import type { ConnectionArgs } from "../../core/connection";

/** A template as the provider sees it (property names of the resource). */
export interface TemplateState {
  name: string;
  mount: string;
  type: "regex";
  pattern: string;
  alphabet?: string;
  adopt?: boolean;
  [key: string]: unknown;
}

/** Number of capturing groups a JavaScript pattern has, or an error text when it does not compile. */
export function captureGroups(pattern: string): number | string {
  try {
    // An empty alternative always matches, and the match array has one slot per capturing group.
    return new RegExp(`${pattern}|`).exec("")!.length - 1;
  } catch (e) {
    return `does not compile as a regular expression: ${(e as Error).message}`;
  }
}

let schema: z.ZodType | undefined;

const templateBase = pathObject<TemplateState, TemplateState>({
  kind: "secrets:TransformTemplate",
  schema: () => (schema ??= z.object({
    name: transformName(),
    mount: mount(),
    type: z.literal("regex", { error: 'must be "regex" (the only template type)' }),
    pattern: z.string().min(1, "must not be empty").superRefine((p, ctx) => {
      const groups = captureGroups(p);
      if (typeof groups === "string") ctx.addIssue({ code: "custom", message: groups });
      else if (groups < 1) ctx.addIssue({ code: "custom", message: "must contain at least one capture group: the group selects the characters to transform" });
    }),
    alphabet: z.string().min(1, "must not be empty when set").optional(),
    adopt: adopt(),
  })),
  defaults: { mount: "transform", type: "regex" },
  immutable: ["name", "mount"],
  identity: ["name", "mount"],
  local: ["adopt"],
  outputs: [],
  routes: {
    write: "POST /{mount}/template/{name}",
    read: "GET /{mount}/template/{name}",
    delete: "DELETE /{mount}/template/{name}",
    list: "LIST /{mount}/template",
  },
  params: (p) => ({ mount: p.mount, name: p.name }),
  body: (p) => ({ type: p.type, pattern: p.pattern, alphabet: p.alphabet ?? "" }),
  fromData: (d, p) => ({
    name: p.name,
    mount: p.mount,
    type: String(d.type ?? "regex") as "regex",
    pattern: String(d.pattern ?? ""),
    // The service reports "no alphabet" as an empty string; absent in state, so no diff with an omitted input.
    ...(d.alphabet ? { alphabet: String(d.alphabet) } : {}),
  }),
});

export const templateDefinition: ResourceDefinition<TemplateState, TemplateState> = {
  ...templateBase,
  async delete(ctx, id, props) {
    const users = await usersOf(ctx, props.mount, TRANSFORMATION_ROUTES.list, TRANSFORMATION_ROUTES.read,
      (d) => Array.isArray(d.templates) && d.templates.includes(props.name));
    if (users.length > 0) {
      throw inUse("DELETE", "DELETE /{mount}/template/{name}", { mount: props.mount, name: props.name }, users.map((t) =>
        `template ${props.name} is used by transformation ${t}: point that transformation at another template or delete it first`));
    }
    await templateBase.delete(ctx, id, props);
  },
};

export interface TemplateArgs extends ConnectionArgs<"secrets"> {
  /** Name of the template; part of its path, so changing it replaces the template. */
  name: pulumi.Input<string>;
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the template. */
  mount?: pulumi.Input<string>;
  /** Template type; `regex` is the only type and the default. */
  type?: pulumi.Input<"regex">;
  /**
   * Regular expression (JavaScript syntax is checked before any request) with at least one capture
   * group: the groups select the characters transformed, characters outside groups are kept.
   */
  pattern: pulumi.Input<string>;
  /** Name of the alphabet used by fpe transformations, e.g. `builtin/numeric` or an Alphabet's name. */
  alphabet?: pulumi.Input<string>;
  /**
   * Take over a template that already exists at the path. Without it, create fails rather than
   * overwriting an object this stack does not own.
   */
  adopt?: pulumi.Input<boolean>;
}

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
export class Template extends SvcResource {
  /** Name of the template; part of its path, so changing it replaces the template. */
  declare readonly name: pulumi.Output<string>;
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the template. */
  declare readonly mount: pulumi.Output<string>;
  /** Template type; `regex` is the only type and the default. */
  declare readonly type: pulumi.Output<"regex">;
  /**
   * Regular expression (JavaScript syntax is checked before any request) with at least one capture
   * group: the groups select the characters transformed, characters outside groups are kept.
   */
  declare readonly pattern: pulumi.Output<string>;
  /** Name of the alphabet used by fpe transformations, e.g. `builtin/numeric` or an Alphabet's name. */
  declare readonly alphabet: pulumi.Output<string | undefined>;

  constructor(name: string, args: TemplateArgs, opts?: pulumi.CustomResourceOptions) {
    super(templateDefinition, name, args, opts);
  }
}
