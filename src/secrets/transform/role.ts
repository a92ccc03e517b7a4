import type * as pulumi from "@pulumi/pulumi";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, type ArgsOf, type OutputsOf, type StateOf } from "../../core/fields";
import { adopt, mount } from "../fields";
import { pathObject } from "../pathObject";
import { DEFAULT_TRANSFORM_MOUNT, names, transformName } from "./fields";
import type { ConnectionArgs } from "../../core/connection";
import { TRANSFORM_ROUTES } from "./routes";

export const roleFields = {
  /** Name of the role; the value operations take it in their path. Changing it replaces the role. */
  name: field(transformName, { identity: true }),
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the role. */
  mount: field(mount, { identity: true, default: DEFAULT_TRANSFORM_MOUNT }),
  /**
   * Names of the transformations the role may use (a set, kept sorted; default none). Each
   * transformation must also list this role in its `allowedRoles` for encode and decode to work.
   */
  transformations: field(names, { set: true, default: [] as string[], refers: ["secrets:TransformFpeTransformation", "secrets:TransformMaskingTransformation", "secrets:TransformTokenizationTransformation", "secrets:TransformTransformation"] }),
  /** Take over a role that already exists at the path instead of failing. */
  adopt: field(adopt, { local: true }),
};

/** A role as the provider sees it (property names of the resource). */
export type RoleState = StateOf<typeof roleFields>;

export const roleDefinition = pathObject<RoleState, RoleState>({
  kind: "secrets:TransformRole",
  fields: fieldSet(roleFields),
  routes: TRANSFORM_ROUTES.role,
});

export type RoleArgs = ArgsOf<typeof roleFields> & ConnectionArgs<"secrets">;

/**
 * A transform engine role: `/{mount}/role/{name}`, the name callers encode and decode through.
 *
 * @example
 * ```ts
 * const role = new svc.secrets.transform.Role("payments", { name: "payments", transformations: [card.name] });
 * ```
 */
export interface Role extends OutputsOf<typeof roleFields> {}
export class Role extends SvcResource(roleDefinition) { constructor(name: string, args: RoleArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
