/**
 * What the four transformation resources share: written by a typed endpoint (or the deprecated
 * generic one), read from `GET /{mount}/transformation/{name}`, deleted only when no role holds it.
 */
import type { Props, ResourceDefinition } from "../../core/definition";
import { field, type FieldSet } from "../../core/fields";
import { adopt, mount } from "../fields";
import { pathObject, type PathObjectSpec } from "../pathObject";
import { DEFAULT_TRANSFORM_MOUNT, deletedOnlyUnused, transformName } from "./fields";
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

/**
 * A transformation of one type: written by that type's endpoint (`generic`: the deprecated one,
 * whose body names the type) and, when typed, found by the import from the list filtered to it.
 */
export function transformationObject<S extends Named>(
  spec: Omit<PathObjectSpec<S, S>, "routes" | "params"> & { type: (typeof TRANSFORMATION_TYPES)[number] | "generic"; fields: FieldSet },
): ResourceDefinition<S, S> {
  const { type, ...rest } = spec;
  const R = TRANSFORM_ROUTES.transformation;
  const base = pathObject<S, S>({
    ...(type === "generic" ? {} : { discover: { list: R.list, where: { type } } }),
    ...rest,
    routes: { write: R[type], read: R.read, delete: R.delete, list: R.list },
  });
  return deletedOnlyUnused(base,
    (name, r) => `transformation ${name} is used by role ${r}: remove it from the Role's transformations (pulumi up) before deleting or replacing it`);
}

/** Where a read reports a transformation's `template` (its fields' `readAs`): a `templates` list. */
export const TEMPLATES = "templates";

/**
 * The decode of a transformation written as `template` and read back as a `templates` list.
 */
export function withFirstTemplate<S extends Props & { template?: string }>(set: FieldSet): (d: Record<string, unknown>, p: S) => S {
  return (d, p) => ({ ...set.decode(d, p), template: firstTemplate(d, p.template) }) as S;
}

/**
 * The first template of a read (`templates` list) as the `template` input; the recorded one when
 * the server leaves both `templates` and `template` out.
 */
export const firstTemplate = (d: Record<string, unknown>, recorded?: string): string => {
  const read = d[TEMPLATES];
  return Array.isArray(read) && read.length > 0 ? String(read[0]) : d.template !== undefined ? String(d.template) : recorded ?? "";
};
