/**
 * Every resource kind the runtime can serve. Adding an API object means adding its file and one
 * line here. Each kind's module is required only when that kind is first used, so a provider host
 * that serves one kind loads only that kind and what it imports (cold start of the first Check).
 */
import type { ResourceDefinition } from "./core/definition";

type Loader = () => Promise<ResourceDefinition>;

const LOADERS: Record<string, Loader> = {
  "runs:NotificationConfiguration": async () => (await import("./runs/notificationConfiguration")).notificationConfigurationDefinition as ResourceDefinition,
  "runs:Run": async () => (await import("./runs/run")).runDefinition as ResourceDefinition,
  "secrets:TransformTemplate": async () => (await import("./secrets/transform/template")).templateDefinition as ResourceDefinition,
  "secrets:TransformAlphabet": async () => (await import("./secrets/transform/alphabet")).alphabetDefinition as ResourceDefinition,
  "secrets:TransformRole": async () => (await import("./secrets/transform/role")).roleDefinition as ResourceDefinition,
  "secrets:TransformFpeTransformation": async () => (await import("./secrets/transform/fpeTransformation")).fpeTransformationDefinition as ResourceDefinition,
  "secrets:TransformMaskingTransformation": async () => (await import("./secrets/transform/maskingTransformation")).maskingTransformationDefinition as ResourceDefinition,
  "secrets:TransformTokenizationTransformation": async () => (await import("./secrets/transform/tokenizationTransformation")).tokenizationTransformationDefinition as ResourceDefinition,
  "secrets:TransformTransformation": async () => (await import("./secrets/transform/transformation")).transformationDefinition as ResourceDefinition,
  "secrets:TransformStore": async () => (await import("./secrets/transform/store")).storeDefinition as ResourceDefinition,
  "secrets:TransformStoreSchema": async () => (await import("./secrets/transform/storeSchema")).storeSchemaDefinition as ResourceDefinition,
  "secrets:TransformTokenizationKeyConfig": async () => (await import("./secrets/transform/tokenizationKeyConfig")).tokenizationKeyConfigDefinition as ResourceDefinition,
  "secrets:KeymgmtKey": async () => (await import("./secrets/keymgmt/key")).keyDefinition as ResourceDefinition,
  "secrets:KeymgmtKmsProvider": async () => (await import("./secrets/keymgmt/kmsProvider")).kmsProviderDefinition as ResourceDefinition,
  "secrets:KeymgmtKeyDistribution": async () => (await import("./secrets/keymgmt/keyDistribution")).keyDistributionDefinition as ResourceDefinition,
  "secrets:IdentityEntityAlias": async () => (await import("./secrets/identity/entityAlias")).entityAliasDefinition as ResourceDefinition,
  "secrets:PluginCatalogEntry": async () => (await import("./secrets/plugins/catalogEntry")).catalogEntryDefinition as ResourceDefinition,
  "secrets:MfaDualFactorMethod": async () => (await import("./secrets/mfa/dualFactorMethod")).dualFactorMethodDefinition as ResourceDefinition,
  "secrets:DirectoryConfig": async () => (await import("./secrets/directory/config")).directoryConfigDefinition as ResourceDefinition,
  "secrets:DirectoryRole": async () => (await import("./secrets/directory/role")).directoryRoleDefinition as ResourceDefinition,
  "secrets:DirectoryLibrarySet": async () => (await import("./secrets/directory/librarySet")).librarySetDefinition as ResourceDefinition,
  "secrets:DirectoryCheckOut": async () => (await import("./secrets/directory/checkOut")).checkOutDefinition as ResourceDefinition,
  "secrets:RegistryAccessConfig": async () => (await import("./secrets/registry/accessConfig")).accessConfigDefinition as ResourceDefinition,
  "secrets:RegistryRole": async () => (await import("./secrets/registry/role")).registryRoleDefinition as ResourceDefinition,
  "secrets:ReplicationPerformancePrimary": async () => (await import("./secrets/replication/performancePrimary")).performancePrimaryDefinition as ResourceDefinition,
  "secrets:ReplicationSecondaryToken": async () => (await import("./secrets/replication/secondaryToken")).secondaryTokenDefinition as ResourceDefinition,
  "secrets:ReplicationPerformanceSecondary": async () => (await import("./secrets/replication/performanceSecondary")).performanceSecondaryDefinition as ResourceDefinition,
  "secrets:ReplicationPathsFilter": async () => (await import("./secrets/replication/pathsFilter")).pathsFilterDefinition as ResourceDefinition,
};

/** Every kind's name, in registration order. */
export const KIND_NAMES: readonly string[] = Object.keys(LOADERS);

const loaded = new Map<string, ResourceDefinition>();

/** The definition of `kind` when its module is loaded already (every call after the first). */
export function loadedDefinition(kind: string): ResourceDefinition | undefined {
  return loaded.get(kind);
}

/** The definition of `kind`, loading its module on first use; undefined for an unknown kind. */
export async function kindDefinition(kind: string): Promise<ResourceDefinition | undefined> {
  let def = loaded.get(kind);
  if (def === undefined && Object.prototype.hasOwnProperty.call(LOADERS, kind)) {
    def = await LOADERS[kind]();
    loaded.set(kind, def);
  }
  return def;
}
