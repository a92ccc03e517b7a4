import { describe, expect, it } from "vitest";
import { check, diff } from "../../src/core/provider";
import { UNKNOWN } from "../../src/core/unknown";
import { keyDefinition as key } from "../../src/secrets/keymgmt/key";
import { kmsProviderDefinition as kms } from "../../src/secrets/keymgmt/kmsProvider";
import { registerSecrets } from "../../src/core/fields";
import { redact } from "../../src/http/redact";
import { keyDistributionDefinition as dist, purposeSet } from "../../src/secrets/keymgmt/keyDistribution";
import { failureLinesOf } from "../support/calls";

const PROVIDER = { __provider: "exports.handler = ..." };

describe("Key check", () => {
  it("fills the seed's defaults", () => {
    const r = check(key, { name: "k", ...PROVIDER });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toEqual({ name: "k", mount: "keymgmt", type: "rsa-2048", deletionAllowed: false, minEnabledVersion: 0, ...PROVIDER });
  });

  it("accepts the seven key types and nothing else", () => {
    for (const type of ["aes256-gcm96", "rsa-2048", "rsa-3072", "rsa-4096", "ecdsa-p256", "ecdsa-p384", "ecdsa-p521"]) {
      expect(failureLinesOf(key, { name: "k", type })).toEqual([]);
    }
    expect(failureLinesOf(key, { name: "k", type: "rsa-1024" })).toEqual([
      "type: must be one of aes256-gcm96, rsa-2048, rsa-3072, rsa-4096, ecdsa-p256, ecdsa-p384, ecdsa-p521",
    ]);
  });

  it("names the property of every problem", () => {
    const byProp = Object.fromEntries(check(key, {
      name: "a/b", mount: "/km", deletionAllowed: "yes", minEnabledVersion: -1, rotationTrigger: { at: 1 },
    }).failures.map((f) => [f.property, f.reason]));
    expect(byProp.name).toMatch(/must not contain \//);
    expect(byProp.mount).toMatch(/slashes/);
    expect(byProp.deletionAllowed).toMatch(/boolean/);
    expect(byProp.minEnabledVersion).toMatch(/0 or more/);
    expect(byProp.rotationTrigger).toMatch(/string or a number/);
    expect(failureLinesOf(key, { name: "k", minEnabledVersion: 1.5 })).toEqual(["minEnabledVersion: must be a whole number"]);
  });

  it("skips unknown values during preview", () => {
    expect(failureLinesOf(key, { name: UNKNOWN, type: UNKNOWN, deletionAllowed: UNKNOWN, minEnabledVersion: UNKNOWN, rotationTrigger: UNKNOWN })).toEqual([]);
  });
});

describe("Key diff", () => {
  const olds = { name: "k", mount: "keymgmt", type: "rsa-2048", deletionAllowed: true, minEnabledVersion: 0, latestVersion: 1, keys: { 1: { creationTime: "t" } } };
  const news = { name: "k", mount: "keymgmt", type: "rsa-2048", deletionAllowed: true, minEnabledVersion: 0, ...PROVIDER };

  it("has no change when only outputs and the provider text differ", () => {
    expect(diff(key, olds, news)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  it("replaces a type change at the same path by deleting first", () => {
    expect(diff(key, olds, { ...news, type: "ecdsa-p256" })).toEqual({ changes: true, replaces: ["type"], deleteBeforeReplace: true });
  });

  it("replaces a renamed key by creating first (a new path)", () => {
    expect(diff(key, olds, { ...news, name: "k2" })).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
    expect(diff(key, olds, { ...news, mount: "km-eu" })).toEqual({ changes: true, replaces: ["mount"], deleteBeforeReplace: false });
  });

  it("updates in place for deletionAllowed, minEnabledVersion and a new rotationTrigger", () => {
    expect(diff(key, olds, { ...news, deletionAllowed: false })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(diff(key, olds, { ...news, minEnabledVersion: 1 })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(diff(key, { ...olds, rotationTrigger: "q1" }, { ...news, rotationTrigger: "q2" })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(diff(key, { ...olds, rotationTrigger: "q1" }, { ...news, rotationTrigger: "q1" })).toMatchObject({ changes: false });
  });

  it("treats an unknown type during preview as a replacement", () => {
    expect(diff(key, olds, { ...news, type: UNKNOWN })).toMatchObject({ changes: true, replaces: ["type"] });
  });
});

describe("KmsProvider", () => {
  const base = { name: "aws", provider: "awskms", keyCollection: "eu-west-1" };

  it("fills the mount and validates provider, collection and credentials", () => {
    expect(check(kms, base).inputs.mount).toBe("keymgmt");
    expect(failureLinesOf(kms, { ...base, provider: "vaultkms" })).toEqual(["provider: must be one of azurekeyvault, awskms, gcpckms"]);
    expect(failureLinesOf(kms, { ...base, keyCollection: "" })[0]).toMatch(/^keyCollection: must not be empty/);
    expect(failureLinesOf(kms, { ...base, credentials: { access_key: 1 } })).toEqual(["credentials.access_key: must be a string"]);
  });

  it("checks credential names against the provider kind", () => {
    expect(failureLinesOf(kms, { ...base, credentials: { access_key: "a", secret_key: "s" } })).toEqual([]);
    expect(failureLinesOf(kms, { ...base, credentials: { client_secret: "s" } })).toEqual([
      "credentials.client_secret: is not a awskms credential; use access_key, secret_key, session_token, endpoint, region",
    ]);
    expect(failureLinesOf(kms, { ...base, provider: "gcpckms", credentials: { service_account_file: "/x.json" } })).toEqual([]);
    expect(failureLinesOf(kms, { ...base, provider: UNKNOWN, credentials: { anything: "x" } })).toEqual([]);
  });

  it("replaces on provider or collection change at the same path, deleting first", () => {
    const olds = { ...base, mount: "keymgmt", credentials: { access_key: "a" } };
    const news = { ...olds, ...PROVIDER };
    expect(diff(kms, olds, news)).toMatchObject({ changes: false });
    expect(diff(kms, olds, { ...news, provider: "azurekeyvault" })).toEqual({ changes: true, replaces: ["provider"], deleteBeforeReplace: true });
    expect(diff(kms, olds, { ...news, keyCollection: "us-east-1" })).toEqual({ changes: true, replaces: ["keyCollection"], deleteBeforeReplace: true });
  });

  it("updates credentials in place, compared with the previous input only", () => {
    const olds = { ...base, mount: "keymgmt", credentials: { access_key: "a" } };
    expect(diff(kms, olds, { ...olds, credentials: { access_key: "b" } })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(kms.writeOnly).toEqual(["credentials"]);
    expect(kms.secrets).toEqual(["credentials"]);
  });
});

describe("KeyDistribution", () => {
  const base = { keyName: "k", kmsName: "aws", purpose: ["sign"] };

  it("defaults protection to hsm and treats purpose as a set", () => {
    const r = check(dist, { ...base, purpose: ["verify", "sign", "verify"] });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toMatchObject({ mount: "keymgmt", protection: "hsm", purpose: ["sign", "verify"] });
  });

  it("requires at least one known purpose and a known protection, naming the property", () => {
    expect(failureLinesOf(dist, { ...base, purpose: [] })[0]).toMatch(/^purpose: must hold at least one purpose/);
    expect(failureLinesOf(dist, { ...base, purpose: ["sign", "mint"] })[0]).toMatch(/^purpose\[1\]: must be one of encrypt, decrypt, sign, verify, wrap, unwrap/);
    expect(failureLinesOf(dist, { ...base, protection: "cloud" })).toEqual(["protection: must be one of hsm, software"]);
    expect(failureLinesOf(dist, { keyName: "k", kmsName: "aws" })[0]).toMatch(/^purpose: /);
  });

  it("reads the comma-joined purpose as a sorted set", () => {
    expect(purposeSet("verify,sign")).toEqual(["sign", "verify"]);
    expect(purposeSet("sign, verify ,sign")).toEqual(["sign", "verify"]);
    expect(purposeSet(["wrap", "encrypt"])).toEqual(["encrypt", "wrap"]);
    expect(purposeSet("")).toEqual([]);
  });

  it("compares purposes as a set, and every parameter change redistributes", () => {
    const olds = { ...base, mount: "keymgmt", protection: "hsm", purpose: ["sign", "verify"], providerKeyName: "k-1", versions: {} };
    const news = { ...base, mount: "keymgmt", protection: "hsm", purpose: ["verify", "sign"], ...PROVIDER };
    expect(diff(dist, olds, news)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(diff(dist, olds, { ...news, purpose: ["sign"] })).toEqual({ changes: true, replaces: ["purpose"], deleteBeforeReplace: true });
    expect(diff(dist, olds, { ...news, protection: "software" })).toEqual({ changes: true, replaces: ["protection"], deleteBeforeReplace: true });
  });

  it("deletes first when the same key moves to another provider (one provider per key)", () => {
    const olds = { ...base, mount: "keymgmt", protection: "hsm" };
    expect(diff(dist, olds, { ...olds, kmsName: "azure" })).toEqual({ changes: true, replaces: ["kmsName"], deleteBeforeReplace: true });
    expect(diff(dist, olds, { ...olds, keyName: "k2" })).toEqual({ changes: true, replaces: ["keyName"], deleteBeforeReplace: false });
  });
});

describe("KMS provider credentials are registered for redaction from the record", () => {
  it("every value of the map, at any name", () => {
    registerSecrets(kms.fields!, { name: "aws", credentials: { access_key: "kms-access-key-0a1b2c", secret_key: "kms-secret-key-3d4e5f" } });
    expect(redact("kms-access-key-0a1b2c / kms-secret-key-3d4e5f / aws")).toBe("[REDACTED] / [REDACTED] / aws");
  });
});
