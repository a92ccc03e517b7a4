/**
 * What the four transformation resources share: written by a typed endpoint (or the deprecated
 * generic one), read from `GET /{mount}/transformation/{name}`, deleted only when no role holds it.
 */
import type { Props, ResourceDefinition } from "../../core/definition";
import { field, type FieldSet } from "../../core/fields";
import { adopt, mount } from "../fields";
import { pathObject, type PathObjectSpec } from "../pathObject";
import { DEFAULT_TRANSFORM_MOUNT, inUse, transformName, usersOf } from "./fields";
import { TRANSFORM_ROUTES } from "./routes";

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
    routes: { write: spec.write, read: TRANSFORM_ROUTES.transformation.read, delete: TRANSFORM_ROUTES.transformation.delete, list: TRANSFORM_ROUTES.transformation.list },
  });
  return {
    ...base,
    async delete(ctx, id, props) {
      const roles = await usersOf(ctx, props.mount, TRANSFORM_ROUTES.role.list, TRANSFORM_ROUTES.role.read,
        (d) => Array.isArray(d.transformations) && d.transformations.includes(props.name));
      if (roles.length > 0) {
        throw inUse("DELETE", TRANSFORM_ROUTES.transformation.delete, { mount: props.mount, name: props.name }, roles.map((r) =>
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
