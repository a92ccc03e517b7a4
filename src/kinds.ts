/**
 * Every resource kind the runtime can serve. Adding an API object means adding its file and one
 * line here. Each kind's module is required only when that kind is first used, so a provider host
 * that serves one kind loads only that kind and what it imports (cold start of the first Check).
 */
import type { ResourceDefinition } from "./core/definition";

/** Loads the module that declares a kind: its definition and its resource class. */
type Loader = () => Promise<object>;

const LOADERS: Record<string, Loader> = {
  "runs:NotificationConfiguration": () => import("./runs/notificationConfiguration"),
  "runs:Run": () => import("./runs/run"),
  "secrets:TransformTemplate": () => import("./secrets/transform/template"),
  "secrets:TransformAlphabet": () => import("./secrets/transform/alphabet"),
  "secrets:TransformRole": () => import("./secrets/transform/role"),
  "secrets:TransformFpeTransformation": () => import("./secrets/transform/fpeTransformation"),
  "secrets:TransformMaskingTransformation": () => import("./secrets/transform/maskingTransformation"),
  "secrets:TransformTokenizationTransformation": () => import("./secrets/transform/tokenizationTransformation"),
  "secrets:TransformTransformation": () => import("./secrets/transform/transformation"),
  "secrets:TransformStore": () => import("./secrets/transform/store"),
  "secrets:TransformStoreSchema": () => import("./secrets/transform/storeSchema"),
  "secrets:TransformTokenizationKeyConfig": () => import("./secrets/transform/tokenizationKeyConfig"),
  "secrets:KeymgmtKey": () => import("./secrets/keymgmt/key"),
  "secrets:KeymgmtKmsProvider": () => import("./secrets/keymgmt/kmsProvider"),
  "secrets:KeymgmtKeyDistribution": () => import("./secrets/keymgmt/keyDistribution"),
  "secrets:IdentityEntityAlias": () => import("./secrets/identity/entityAlias"),
  "secrets:PluginCatalogEntry": () => import("./secrets/plugins/catalogEntry"),
  "secrets:MfaDualFactorMethod": () => import("./secrets/mfa/dualFactorMethod"),
  "secrets:DirectoryConfig": () => import("./secrets/directory/config"),
  "secrets:DirectoryRole": () => import("./secrets/directory/role"),
  "secrets:DirectoryLibrarySet": () => import("./secrets/directory/librarySet"),
  "secrets:DirectoryCheckOut": () => import("./secrets/directory/checkOut"),
  "secrets:RegistryAccessConfig": () => import("./secrets/registry/accessConfig"),
  "secrets:RegistryRole": () => import("./secrets/registry/role"),
  "secrets:ReplicationPerformancePrimary": () => import("./secrets/replication/performancePrimary"),
  "secrets:ReplicationSecondaryToken": () => import("./secrets/replication/secondaryToken"),
  "secrets:ReplicationPerformanceSecondary": () => import("./secrets/replication/performanceSecondary"),
  "secrets:ReplicationPathsFilter": () => import("./secrets/replication/pathsFilter"),
};

/** Every kind's name, in registration order. */
export const KIND_NAMES: readonly string[] = Object.keys(LOADERS);

const loaded = new Map<string, ResourceDefinition>();
const modules = new Map<string, Record<string, unknown>>();

/** The module of `kind` (loaded on first use), whose exports hold its definition and its class. */
export async function kindModule(kind: string): Promise<Record<string, unknown> | undefined> {
  let mod = modules.get(kind);
  if (mod === undefined && Object.prototype.hasOwnProperty.call(LOADERS, kind)) {
    mod = (await LOADERS[kind]()) as Record<string, unknown>;
    modules.set(kind, mod);
  }
  return mod;
}

/** The one export of a kind's module that is the kind's definition. */
function definitionIn(mod: Record<string, unknown>, kind: string): ResourceDefinition {
  const defs = [...new Set(Object.values(mod).filter((v): v is ResourceDefinition =>
    typeof v === "object" && v !== null && (v as ResourceDefinition).kind === kind && typeof (v as ResourceDefinition).create === "function"))];
  if (defs.length !== 1) throw new Error(`${kind}: its module exports ${defs.length} definitions of it, not one`);
  return defs[0]!;
}

/** The definition of `kind` when its module is loaded already (every call after the first). */
export function loadedDefinition(kind: string): ResourceDefinition | undefined {
  return loaded.get(kind);
}

/** The definition of `kind`, loading its module on first use; undefined for an unknown kind. */
export async function kindDefinition(kind: string): Promise<ResourceDefinition | undefined> {
  let def = loaded.get(kind);
  if (def === undefined) {
    const mod = await kindModule(kind);
    if (mod === undefined) return undefined;
    def = definitionIn(mod, kind);
    loaded.set(kind, def);
  }
  return def;
}
