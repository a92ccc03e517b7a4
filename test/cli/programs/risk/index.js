// The program of test/cli/review-risk.test.ts: step 2 makes changes that put data at risk (an
// alphabet a transformation's template uses, a key's type, a store's database, a secondary
// activated, a store schema dropped) beside harmless ones (an unused alphabet, a role). Step 2 is only previewed.
"use strict";
const pulumi = require("@pulumi/pulumi");
const svc = require("pulumi-svc");

const step = new pulumi.Config("risk").getNumber("step") ?? 1;
const digits = new svc.secrets.transform.Alphabet("digits", { name: "digits", alphabet: step === 1 ? "0123456789" : "0123456789X" });
const ssn = new svc.secrets.transform.Template("ssn", { name: "ssn", type: "regex", pattern: "(\\d{3})-(\\d{2})", alphabet: digits.name });
// The transformation that makes the template, and so the alphabet, in use.
new svc.secrets.transform.FpeTransformation("card", { name: "card", template: ssn.name, tweakSource: "internal" });
new svc.secrets.transform.Alphabet("spare", { name: "spare", alphabet: step === 1 ? "01" : "012" });
new svc.secrets.keymgmt.Key("signing", { name: "signing", type: step === 1 ? "ecdsa-p256" : "rsa-2048", deletionAllowed: true });
new svc.secrets.transform.Role("payments", { name: "payments", transformations: step === 1 ? [] : ["card"] });
// A store connects to its database when written (a throwaway PostgreSQL of the test); step 2 points
// it at another database of that server, which the preview alone never reaches.
const cfg = new pulumi.Config("risk");
const store = new svc.secrets.transform.Store("tokens-db", {
  name: "tokens-db", driver: "postgres", username: "risk_tokens", password: cfg.requireSecret("storePassword"),
  connectionString: `postgresql://{{username}}:{{password}}@127.0.0.1:${cfg.require("pgPort")}/${step === 1 ? "postgres" : "tokens2"}`,
});
// Its tables, made with the server's superuser; step 2 drops the declaration (a delete).
if (step === 1) {
  new svc.secrets.transform.StoreSchema("tokens-schema", { store: store.name, username: cfg.require("pgAdmin"), password: cfg.requireSecret("pgAdminPassword") });
}
if (step === 2) {
  const token = new svc.secrets.replication.SecondaryToken("west-token", { secondaryId: "west" });
  new svc.secrets.replication.PerformanceSecondary("west", { token: token.token, acknowledgeDataWipe: true });
}
