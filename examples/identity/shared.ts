// What both steps of the identity example declare: a database plugin in the plugin catalog, a
// dual-factor MFA method and an entity alias, each holding secrets that must stay encrypted in state.
//
// The plugin catalog needs a token with the sudo capability: it is given as identity:sudoToken
// and used by the catalog entry alone, through a connection; everything else uses svc:secretsToken.
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

/** The SHA-256 of the plugin binary (here, of an empty file: put your binary's). */
const ACME_DB_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

export function declare(edits: { pluginName: string; pushInfo: string; team: string }) {
  const cfg = new pulumi.Config("identity");
  const sudo = svc.secrets.connection({ token: cfg.requireSecret("sudoToken") });

  // The name is its path: a new name registers the new entry before the old one is removed. The
  // environment is secret and write-only (the service never returns it).
  const plugin = new svc.secrets.plugins.CatalogEntry("plugin", {
    type: "database",
    name: edits.pluginName,
    sha256: ACME_DB_SHA256,
    command: "acme-db",
    env: [pulumi.interpolate`ACME_PASSWORD=${cfg.requireSecret("pluginPassword")}`],
    connection: sudo,
  });

  // Both keys are secret; the service returns them on read, and they stay encrypted in state.
  const duo = new svc.secrets.mfa.DualFactorMethod("duo", {
    secretKey: cfg.requireSecret("duoSecretKey"),
    integrationKey: cfg.requireSecret("duoIntegrationKey"),
    apiHostname: cfg.get("duoApiHostname") ?? "api-1234abcd.example.com",
    usernameFormat: "{{identity.entity.name}}@example.com",
    pushInfo: edits.pushInfo,
  });

  // The emulator seeds the entity and the userpass mount; on a real server give their ids.
  const alias = new svc.secrets.identity.EntityAlias("alice", {
    name: "alice",
    canonicalId: cfg.get("entityId") ?? "ent-alice0000000001",
    mountAccessor: cfg.get("mountAccessor") ?? "auth_userpass_1234abcd",
    customMetadata: { team: edits.team },
  });

  return {
    pluginName: plugin.name,
    pluginBuiltin: plugin.builtin,
    duoMethodId: duo.id,
    duoUsernameFormat: duo.usernameFormat,
    aliasId: alias.id,
    aliasMountType: alias.mountType,
    aliasTeam: alias.customMetadata.apply((m) => m?.team ?? ""),
  };
}
