// The objects both steps declare: alphabet → template → fpe, masking and tokenization
// transformations → role, with the tokens in a PostgreSQL store.
import * as pulumi from "@pulumi/pulumi";
import * as svc from "pulumi-svc";

/**
 * `step2`: the fpe transformation takes card numbers written with spaces too, and the email
 * tokenization becomes exportable.
 */
export function declare(cfg: pulumi.Config, step2 = false) {
  const t = svc.secrets.transform;
  const digits = new t.Alphabet("digits", { name: "card-digits", alphabet: "0123456789" });
  const cardTemplate = new t.Template("card-template", { name: "card-number", pattern: "(\\d{4})-(\\d{4})-(\\d{4})-(\\d{4})", alphabet: digits.name });
  // A new template beside the old one (the masking transformation keeps that), and the fpe
  // transformation moves to it: what it encoded before no longer decodes to what it was, so
  // pulumi-svc-review lists `card` under "Data at risk". A new fpe transformation beside the old
  // one, values re-encoded before the old one goes, would lose nothing.
  const fpeTemplate = step2
    ? new t.Template("card-template-v2", { name: "card-number-v2", pattern: "(\\d{4})[- ](\\d{4})[- ](\\d{4})[- ](\\d{4})", alphabet: digits.name })
    : cardTemplate;

  // The service fills in the slots; the password is secret and never read back.
  const store = new t.Store("tokens", {
    name: "tokens",
    driver: "postgres",
    connectionString: pulumi.interpolate`postgresql://{{username}}:{{password}}@${cfg.require("database")}`,
    username: cfg.require("storeUser"),
    password: cfg.requireSecret("storePassword"),
    schema: "transform",
  });
  // Tables are created with schema-change credentials used for this call only. Given the store's
  // connection string and schema, the call runs again when the store moves to another database.
  const schema = new t.StoreSchema("tokens-schema", {
    store: store.name,
    connectionString: store.connectionString,
    schema: store.schema,
    username: cfg.require("adminUser"),
    password: cfg.requireSecret("adminPassword"),
  });

  const card = new t.FpeTransformation("card", { name: "card", template: fpeTemplate.name, tweakSource: "internal", allowedRoles: ["payments"] });
  const masked = new t.MaskingTransformation("masked", { name: "masked-card", template: cardTemplate.name, allowedRoles: ["payments", "support"] });
  const ssn = new t.TokenizationTransformation("ssn", { name: "ssn", stores: [store.name], maxTtl: "720h", allowedRoles: ["payments"] }, { dependsOn: [schema] });
  // Email addresses, tokenized through the `crm` role; their tokens stay in the engine's own
  // storage. Its mapping mode cannot change in place: step2's makes a new transformation at the
  // same path, the old one deleted first, and the role with it (the service refuses to delete a
  // transformation a role names: the engine deletes the role first and makes it again after). The
  // tokens issued under the old one no longer decode, so pulumi-svc-review lists `emails` under
  // "Data at risk". A new transformation beside it (another name), callers moved before the old
  // one goes, would keep them.
  const emails = new t.TokenizationTransformation("emails", { name: "email", mappingMode: step2 ? "exportable" : "default", maxTtl: "720h", allowedRoles: ["crm"] });
  new t.Role("crm", { name: "crm", transformations: [emails.name] });
  const payments = new t.Role("payments", { name: "payments", transformations: [card.name, masked.name, ssn.name] });
  return { t, card, masked, ssn, payments };
}

/** Encodes a card number with the role and decodes it again: both outputs are secret. */
export function roundTrip(t: typeof svc.secrets.transform, role: pulumi.Output<string>, card: pulumi.Output<string>) {
  const encoded = t.encodeOutput({ role, transformation: card, value: "4111-1111-1111-1111" }).apply((e) => e?.encodedValue ?? "");
  const decoded = t.decodeOutput({ role, transformation: card, value: encoded }).apply((d) => d?.decodedValue ?? "");
  return { encoded, decoded };
}
