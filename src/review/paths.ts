/**
 * Where an object of this package that a preview creates will live on its service. A preview has
 * no id for it yet; for objects whose id is their path (written from the same read route the
 * provider uses), the path follows from the new inputs. Objects the service names (entity aliases,
 * MFA methods, check-outs, runs, notification configurations) have none before they exist.
 */
import { isUnknown } from "../core/unknown";
import { DIRECTORY_ROUTES } from "../secrets/directory/routes";
import { KEYMGMT_ROUTES } from "../secrets/keymgmt/routes";
import { pathOf } from "../secrets/pathObject";
import { PLUGINS_ROUTES } from "../secrets/plugins/routes";
import { REGISTRY_ROUTES } from "../secrets/registry/routes";
import { REPLICATION_ROUTES } from "../secrets/replication/routes";
import { TRANSFORM_ROUTES } from "../secrets/transform/routes";

/** A kind's path route, and which input fills each route parameter when the names differ. */
interface PathRule { route: string; inputs?: Record<string, string> }

const T = TRANSFORM_ROUTES;
const transformation: PathRule = { route: T.transformation.read };

/** Per kind (`secrets:Kind`): the route its id is made from, as in the kind's create. */
const RULES: Record<string, PathRule> = {
  "secrets:TransformRole": { route: T.role.read },
  "secrets:TransformTemplate": { route: T.template.read },
  "secrets:TransformAlphabet": { route: T.alphabet.read },
  "secrets:TransformStore": { route: T.store.read },
  "secrets:TransformStoreSchema": { route: T.store.schema, inputs: { name: "store" } },
  "secrets:TransformTokenizationKeyConfig": { route: T.tokenizationKey.read, inputs: { name: "transformation" } },
  "secrets:TransformTransformation": transformation,
  "secrets:TransformFpeTransformation": transformation,
  "secrets:TransformMaskingTransformation": transformation,
  "secrets:TransformTokenizationTransformation": transformation,
  "secrets:KeymgmtKey": { route: KEYMGMT_ROUTES.key.read },
  "secrets:KeymgmtKmsProvider": { route: KEYMGMT_ROUTES.kmsProvider.read },
  "secrets:KeymgmtKeyDistribution": { route: KEYMGMT_ROUTES.keyDistribution.read, inputs: { kms: "kmsName", key: "keyName" } },
  "secrets:PluginCatalogEntry": { route: PLUGINS_ROUTES.catalogEntry.read },
  "secrets:DirectoryConfig": { route: DIRECTORY_ROUTES.config.read },
  "secrets:DirectoryRole": { route: DIRECTORY_ROUTES.role.read },
  "secrets:DirectoryLibrarySet": { route: DIRECTORY_ROUTES.librarySet.read },
  "secrets:RegistryAccessConfig": { route: REGISTRY_ROUTES.access.read },
  "secrets:RegistryRole": { route: REGISTRY_ROUTES.role.read },
  "secrets:ReplicationPathsFilter": { route: REPLICATION_ROUTES.pathsFilter.read, inputs: { id: "secondaryClusterId" } },
};

/** Kinds whose path the rules above give. */
export const PATH_KINDS: readonly string[] = Object.keys(RULES);

/**
 * The path a created object will have, from its new inputs (the kind's defaults filling absent
 * ones, as check does); undefined when its service names it, or an input it needs is not known yet
 * or not plain text.
 */
export function createdPath(kind: string, inputs: Record<string, unknown>, defaults: Record<string, unknown> = {}): string | undefined {
  const rule = RULES[kind];
  if (!rule) return undefined;
  const params: Record<string, string> = {};
  for (const [, param] of rule.route.matchAll(/\{(\w+)\}/g)) {
    const key = rule.inputs?.[param] ?? param;
    const value = inputs[key] ?? defaults[key];
    if (typeof value !== "string" || value === "" || isUnknown(value) || value === "[secret]") return undefined;
    params[param] = value;
  }
  return pathOf(rule.route, params);
}
