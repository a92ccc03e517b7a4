/**
 * Every resource kind the runtime can serve. Adding an API object means adding its file and one
 * line here.
 */
import type { ResourceDefinition } from "./core/definition";
import { notificationConfigurationDefinition } from "./runs/notificationConfiguration";
import { runDefinition } from "./runs/run";
import { alphabetDefinition } from "./secrets/transform/alphabet";
import { templateDefinition } from "./secrets/transform/template";
import { roleDefinition as transformRoleDefinition } from "./secrets/transform/role";
import { fpeTransformationDefinition } from "./secrets/transform/fpeTransformation";
import { maskingTransformationDefinition } from "./secrets/transform/maskingTransformation";
import { tokenizationTransformationDefinition } from "./secrets/transform/tokenizationTransformation";
import { transformationDefinition } from "./secrets/transform/transformation";
import { storeDefinition as transformStoreDefinition } from "./secrets/transform/store";
import { storeSchemaDefinition } from "./secrets/transform/storeSchema";
import { tokenizationKeyConfigDefinition } from "./secrets/transform/tokenizationKeyConfig";
import { keyDefinition } from "./secrets/keymgmt/key";
import { kmsProviderDefinition } from "./secrets/keymgmt/kmsProvider";
import { keyDistributionDefinition } from "./secrets/keymgmt/keyDistribution";
import { entityAliasDefinition } from "./secrets/identity/entityAlias";
import { catalogEntryDefinition } from "./secrets/plugins/catalogEntry";
import { dualFactorMethodDefinition } from "./secrets/mfa/dualFactorMethod";
import { directoryConfigDefinition } from "./secrets/directory/config";
import { directoryRoleDefinition } from "./secrets/directory/role";
import { librarySetDefinition } from "./secrets/directory/librarySet";
import { checkOutDefinition } from "./secrets/directory/checkOut";
import { accessConfigDefinition } from "./secrets/registry/accessConfig";
import { registryRoleDefinition } from "./secrets/registry/role";
import { performancePrimaryDefinition } from "./secrets/replication/performancePrimary";
import { secondaryTokenDefinition } from "./secrets/replication/secondaryToken";
import { performanceSecondaryDefinition } from "./secrets/replication/performanceSecondary";
import { pathsFilterDefinition } from "./secrets/replication/pathsFilter";

export const KINDS: Record<string, ResourceDefinition> = {
  "runs:NotificationConfiguration": notificationConfigurationDefinition as ResourceDefinition,
  "runs:Run": runDefinition as ResourceDefinition,
  "secrets:TransformTemplate": templateDefinition as ResourceDefinition,
  "secrets:TransformAlphabet": alphabetDefinition as ResourceDefinition,
  "secrets:TransformRole": transformRoleDefinition as ResourceDefinition,
  "secrets:TransformFpeTransformation": fpeTransformationDefinition as ResourceDefinition,
  "secrets:TransformMaskingTransformation": maskingTransformationDefinition as ResourceDefinition,
  "secrets:TransformTokenizationTransformation": tokenizationTransformationDefinition as ResourceDefinition,
  "secrets:TransformTransformation": transformationDefinition as ResourceDefinition,
  "secrets:TransformStore": transformStoreDefinition as ResourceDefinition,
  "secrets:TransformStoreSchema": storeSchemaDefinition as ResourceDefinition,
  "secrets:TransformTokenizationKeyConfig": tokenizationKeyConfigDefinition as ResourceDefinition,
  "secrets:KeymgmtKey": keyDefinition as ResourceDefinition,
  "secrets:KeymgmtKmsProvider": kmsProviderDefinition as ResourceDefinition,
  "secrets:KeymgmtKeyDistribution": keyDistributionDefinition as ResourceDefinition,
  "secrets:IdentityEntityAlias": entityAliasDefinition as ResourceDefinition,
  "secrets:PluginCatalogEntry": catalogEntryDefinition as ResourceDefinition,
  "secrets:MfaDualFactorMethod": dualFactorMethodDefinition as ResourceDefinition,
  "secrets:DirectoryConfig": directoryConfigDefinition as ResourceDefinition,
  "secrets:DirectoryRole": directoryRoleDefinition as ResourceDefinition,
  "secrets:DirectoryLibrarySet": librarySetDefinition as ResourceDefinition,
  "secrets:DirectoryCheckOut": checkOutDefinition as ResourceDefinition,
  "secrets:RegistryAccessConfig": accessConfigDefinition as ResourceDefinition,
  "secrets:RegistryRole": registryRoleDefinition as ResourceDefinition,
  "secrets:ReplicationPerformancePrimary": performancePrimaryDefinition as ResourceDefinition,
  "secrets:ReplicationSecondaryToken": secondaryTokenDefinition as ResourceDefinition,
  "secrets:ReplicationPerformanceSecondary": performanceSecondaryDefinition as ResourceDefinition,
  "secrets:ReplicationPathsFilter": pathsFilterDefinition as ResourceDefinition,
};
