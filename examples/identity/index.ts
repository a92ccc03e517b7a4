// Identity and access: a plugin catalog entry, a dual-factor MFA method and an entity alias
// (setup in shared.ts).
//
//   pulumi config set --secret identity:sudoToken ...          (a token with the sudo capability)
//   pulumi config set --secret identity:pluginPassword ...     (the plugin's ACME_PASSWORD)
//   pulumi config set --secret identity:duoSecretKey ...; pulumi config set --secret identity:duoIntegrationKey ...
//   pulumi up            # registers the plugin, creates the MFA method and the alias
//   (step2/)             # renames the plugin (a replacement), edits the method and the alias in place
//   pulumi destroy
import { declare } from "./shared";

export const { pluginName, pluginBuiltin, duoMethodId, duoUsernameFormat, aliasId, aliasMountType, aliasTeam } = declare({
  pluginName: "acme-db",
  pushInfo: "from=pulumi",
  team: "platform",
});
