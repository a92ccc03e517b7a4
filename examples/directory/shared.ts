// What both steps of the directory example declare. Against the emulator's built-in directory the
// accounts are seeded first (POST /_emulator/directory/accounts {"accounts":["svc-app","pool-1","pool-2"]});
// against a real directory set directory:url, directory:binddn and directory:userdn.
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

/** `bindpassKey`: the stack config key holding the bind password (step2 gives the new one's). */
export function declare(poolAccounts: string[], bindpassKey = "bindpass") {
  const cfg = new pulumi.Config("directory");
  // bindpass is write-only and secret; after a rotate-root the service holds a newer one, and this
  // value is sent again only if you change it here.
  const config = new svc.secrets.directory.Config("ldap", {
    binddn: cfg.get("binddn") ?? "cn=admin,dc=example,dc=org",
    bindpass: cfg.requireSecret(bindpassKey),
    url: cfg.get("url") ?? "ldap://127.0.0.1",
    userdn: cfg.get("userdn") ?? "ou=users,dc=example,dc=org",
    ttl: "24h",
    maxTtl: "48h",
    length: 32,
  });

  const app = new svc.secrets.directory.Role("app", { name: "app", serviceAccountName: "svc-app", ttl: "12h" }, { dependsOn: [config] });

  // Accounts are updated in place: the set cannot be deleted while one is checked out.
  const pool = new svc.secrets.directory.LibrarySet("pool", {
    name: "deployers",
    serviceAccountNames: poolAccounts,
    ttl: "1h",
    maxTtl: "2h",
  }, { dependsOn: [config] });

  // Borrowed for the life of the resource; destroy checks it in, which rotates its password.
  const borrowed = new svc.secrets.directory.CheckOut("deployer", { setName: pool.name });

  // Secret outputs: the engine encrypts them in state. Waiting for the role's id reads the
  // credentials once the role exists (and not during a preview that creates it).
  const appCredentials = svc.secrets.directory.getCredentialsOutput({ role: pulumi.all([app.name, app.id]).apply(([name]) => name) });
  return {
    app,
    outputs: {
      appUser: appCredentials.username,
      appPassword: appCredentials.currentPassword,
      borrowedAccount: borrowed.serviceAccountName,
      borrowedPassword: borrowed.password,
      leaseSeconds: borrowed.leaseDuration,
      poolAccounts: pool.serviceAccountNames,
    },
  };
}
