/**
 * What the four transformation resources share: written by a typed endpoint (or the deprecated
 * generic one), read from `GET /{mount}/transformation/{name}`, deleted only when no role holds it.
 */
import type { Props, ResourceDefinition } from "../../core/definition";
import { field, type FieldSet } from "../../core/fields";
import { adopt, mount } from "../fields";
import { pathObject, type PathObjectSpec } from "../pathObject";
import { ROLE_ROUTES } from "./role";
import { DEFAULT_TRANSFORM_MOUNT, inUse, transformName, usersOf } from "./fields";

export const TRANSFORMATION_ROUTES = {
  read: "GET /{mount}/transformation/{name}",
  delete: "DELETE /{mount}/transformation/{name}",
  list: "LIST /{mount}/transformation",
  generic: "POST /{mount}/transformation/{name}",
  fpe: "POST /{mount}/transformations/fpe/{name}",
  masking: "POST /{mount}/transformations/masking/{name}",
  tokenization: "POST /{mount}/transformations/tokenization/{name}",
} as const;

export const TWEAK_SOURCES = ["supplied", "generated", "internal"] as const;
export const MAPPING_MODES = ["default", "exportable"] as const;
export const TRANSFORMATION_TYPES = ["fpe", "masking", "tokenization"] as const;

/**
 * The fields every transformation has, spread into each one's record (their docs come along).
 * Replacing a transformation keeps its path, so the old one goes first (the name is reused).
 */
export const transformationKeys = {
  /** Name of the transformation; part of its path, so changing it replaces the transformation. */
  name: field(transformName, { identity: true }),
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the transformation. */
  mount: field(mount, { identity: true, default: DEFAULT_TRANSFORM_MOUNT }),
  /** Take over a transformation that already exists at the path instead of failing. */
  adopt: field(adopt, { local: true }),
};

interface Named extends Props {
  name: string;
  mount: string;
  adopt?: boolean;
}

export function transformationObject<S extends Named>(
  spec: Omit<PathObjectSpec<S, S>, "routes" | "params"> & { write: string; fields: FieldSet },
): ResourceDefinition<S, S> {
  const base = pathObject<S, S>({
    ...spec,
    routes: { write: spec.write, read: TRANSFORMATION_ROUTES.read, delete: TRANSFORMATION_ROUTES.delete, list: TRANSFORMATION_ROUTES.list },
  });
  return {
    ...base,
    async delete(ctx, id, props) {
      const roles = await usersOf(ctx, props.mount, ROLE_ROUTES.list, ROLE_ROUTES.read,
        (d) => Array.isArray(d.transformations) && d.transformations.includes(props.name));
      if (roles.length > 0) {
        throw inUse("DELETE", TRANSFORMATION_ROUTES.delete, { mount: props.mount, name: props.name }, roles.map((r) =>
          `transformation ${props.name} is used by role ${r}: remove it from the Role's transformations (pulumi up) before deleting or replacing it`));
      }
      await base.delete(ctx, id, props);
    },
  };
}

/**
 * The first template of a read (`templates` list) as the `template` input; the recorded one when
 * the server leaves both `templates` and `template` out.
 */
export const firstTemplate = (d: Record<string, unknown>, recorded?: string): string =>
  Array.isArray(d.templates) && d.templates.length > 0 ? String(d.templates[0]) : d.template !== undefined ? String(d.template) : recorded ?? "";
