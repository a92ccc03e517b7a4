import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { SvcResource } from "../../core/resource";
import { adopt, mount } from "../fields";
import { pathObject } from "../pathObject";
import { DEFAULT_TRANSFORM_MOUNT, names, sorted, transformName } from "./fields";
import type { ConnectionArgs } from "../../core/connection";

export interface RoleState {
  name: string;
  mount: string;
  transformations: string[];
  adopt?: boolean;
  [key: string]: unknown;
}

export const ROLE_ROUTES = {
  write: "POST /{mount}/role/{name}",
  read: "GET /{mount}/role/{name}",
  delete: "DELETE /{mount}/role/{name}",
  list: "LIST /{mount}/role",
} as const;

let schema: z.ZodType | undefined;

export const roleDefinition = pathObject<RoleState, RoleState>({
  kind: "secrets:TransformRole",
  schema: () => (schema ??= z.object({ name: transformName(), mount: mount(), transformations: names(), adopt: adopt() })),
  defaults: { mount: DEFAULT_TRANSFORM_MOUNT, transformations: [] },
  sets: ["transformations"],
  immutable: ["name", "mount"],
  identity: ["name", "mount"],
  local: ["adopt"],
  outputs: [],
  routes: ROLE_ROUTES,
  params: (p) => ({ mount: p.mount, name: p.name }),
  body: (p) => ({ transformations: p.transformations }),
  fromData: (d, p) => ({ name: p.name, mount: p.mount, transformations: sorted(d.transformations) }),
});

export interface RoleArgs extends ConnectionArgs<"secrets"> {
  /** Name of the role; the value operations take it in their path. Changing it replaces the role. */
  name: pulumi.Input<string>;
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the role. */
  mount?: pulumi.Input<string>;
  /**
   * Names of the transformations the role may use (a set; default none). Each transformation must
   * also list this role in its `allowedRoles` for encode and decode to work.
   */
  transformations?: pulumi.Input<pulumi.Input<string>[]>;
  /** Take over a role that already exists at the path instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

/**
 * A transform engine role: `/{mount}/role/{name}`, the name callers encode and decode through.
 *
 * @example
 * ```ts
 * const role = new svc.secrets.transform.Role("payments", { name: "payments", transformations: [card.name] });
 * ```
 */
export class Role extends SvcResource {
  /** Name of the role. */
  declare readonly name: pulumi.Output<string>;
  /** Mount path of the transform engine. */
  declare readonly mount: pulumi.Output<string>;
  /** The transformations the role holds, sorted. */
  declare readonly transformations: pulumi.Output<string[]>;

  constructor(name: string, args: RoleArgs, opts?: pulumi.CustomResourceOptions) {
    super(roleDefinition, name, args, opts);
  }
}
