// Step 2 of the identity example. Expected plan:
//   +- replace plugin  (name: the entry's path; the old entry is removed first, the default)
//   ~ update   duo     (pushInfo)
//   ~ update   alice   (customMetadata)
import { declare } from "../shared";

export const { pluginName, pluginBuiltin, duoMethodId, duoUsernameFormat, aliasId, aliasMountType, aliasTeam } = declare({
  pluginName: "acme-db-2",
  pushInfo: "from=pulumi&step=2",
  team: "payments",
});
