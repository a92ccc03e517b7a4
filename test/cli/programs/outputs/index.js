// The program of test/cli/outputs.test.ts: inputs with defaults left out, and a role whose mount is
// the config's output (what pulumi-svc-import writes), on a directory mount with no config yet.
"use strict";
const svc = require("pulumi-svc");

const dc = new svc.secrets.directory.Config("dc", { binddn: "cn=admin,dc=example,dc=org", bindpass: "pw", url: "ldap://127.0.0.1:1" });
new svc.secrets.directory.Role("role", { mount: dc.mount, name: "app", serviceAccountName: "svc-app" });
new svc.secrets.directory.LibrarySet("set", { mount: dc.mount, name: "pool", serviceAccountNames: ["svc-pool"] });
const key = new svc.secrets.keymgmt.Key("key", { name: "signing", deletionAllowed: true });
exports.mount = dc.mount;
exports.keyType = key.type;
