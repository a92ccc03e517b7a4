/**
 * Every resource kind the runtime can serve. Adding an API object means adding its file and one
 * line here.
 */
import type { ResourceDefinition } from "./core/definition";
import { notificationConfigurationDefinition } from "./runs/notificationConfiguration";
import { runDefinition } from "./runs/run";
import { alphabetDefinition } from "./secrets/transform/alphabet";
import { templateDefinition } from "./secrets/transform/template";
import { keyDefinition } from "./secrets/keymgmt/key";
import { kmsProviderDefinition } from "./secrets/keymgmt/kmsProvider";
import { keyDistributionDefinition } from "./secrets/keymgmt/keyDistribution";
import { entityAliasDefinition } from "./secrets/identity/entityAlias";
import { catalogEntryDefinition } from "./secrets/plugins/catalogEntry";
import { dualFactorMethodDefinition } from "./secrets/mfa/dualFactorMethod";

export const KINDS: Record<string, ResourceDefinition> = {
  "runs:NotificationConfiguration": notificationConfigurationDefinition as ResourceDefinition,
  "runs:Run": runDefinition as ResourceDefinition,
  "secrets:TransformTemplate": templateDefinition as ResourceDefinition,
  "secrets:TransformAlphabet": alphabetDefinition as ResourceDefinition,
  "secrets:KeymgmtKey": keyDefinition as ResourceDefinition,
  "secrets:KeymgmtKmsProvider": kmsProviderDefinition as ResourceDefinition,
  "secrets:KeymgmtKeyDistribution": keyDistributionDefinition as ResourceDefinition,
  "secrets:IdentityEntityAlias": entityAliasDefinition as ResourceDefinition,
  "secrets:PluginCatalogEntry": catalogEntryDefinition as ResourceDefinition,
  "secrets:MfaDualFactorMethod": dualFactorMethodDefinition as ResourceDefinition,
};
