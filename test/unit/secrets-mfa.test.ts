import { describe, expect, it } from "vitest";
import { check, diff } from "../../src/core/provider";
import { UNKNOWN } from "../../src/core/unknown";
import { registerSecrets } from "../../src/core/fields";
import { redact } from "../../src/http/redact";
import { dualFactorMethodDefinition as mfa, methodInfo, methodState } from "../../src/secrets/mfa/dualFactorMethod";
import { failureLinesOf } from "../support/calls";

const PROVIDER = { __provider: "exports.handler = ..." };

describe("DualFactorMethod", () => {
  const base = { secretKey: "sk", integrationKey: "ik", apiHostname: "api-1234abcd.example.com" };

  it("defaults usePasscode and validates each field by name", () => {
    expect(check(mfa, base)).toMatchObject({ failures: [], inputs: { usePasscode: false } });
    expect(check(mfa, {}).failures.map((f) => f.property).sort()).toEqual(["apiHostname", "integrationKey", "secretKey"]);
    expect(failureLinesOf(mfa, { ...base, apiHostname: "https://api.example.com/x" })[0]).toMatch(/^apiHostname: must be a host name/);
    expect(failureLinesOf(mfa, { ...base, apiHostname: "api.example.com:8443" })).toEqual([]);
    expect(failureLinesOf(mfa, { ...base, usernameFormat: "{{identity.entity.name}@x" })).toEqual(["usernameFormat: must close every {{ with }}"]);
    expect(failureLinesOf(mfa, { ...base, usePasscode: "yes" })).toEqual(["usePasscode: must be a boolean"]);
    expect(failureLinesOf(mfa, { ...base, secretKey: UNKNOWN })).toEqual([]);
  });

  it("reads pushinfo back as pushInfo, so the written push_info does not diff forever", () => {
    const data = { id: "u1", type: "dualfactor", username_format: "", secret_key: "sk", integration_key: "ik", api_hostname: base.apiHostname, pushinfo: "from=ci", use_passcode: false };
    const news = { ...base, pushInfo: "from=ci", usePasscode: false, ...PROVIDER };
    const outs = methodState("u1", data, news);
    expect(outs).toEqual({ type: "dualfactor", secretKey: "sk", integrationKey: "ik", apiHostname: base.apiHostname, pushInfo: "from=ci", usePasscode: false });
    expect(diff(mfa, outs, news)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    // A server that echoes the write name is read the same way.
    const { pushinfo: _p, ...echo } = data;
    expect(methodState("u1", { ...echo, push_info: "from=ci" }, news).pushInfo).toBe("from=ci");
  });

  it("treats blank username format and push info like absent ones, unless the program gave them", () => {
    const data = { id: "u1", username_format: "", secret_key: "sk", integration_key: "ik", api_hostname: base.apiHostname, pushinfo: "", use_passcode: true };
    const omitted = methodState("u1", data, base);
    expect(omitted).not.toHaveProperty("pushInfo");
    expect(omitted).not.toHaveProperty("usernameFormat");
    expect(diff(mfa, omitted, { ...base, usePasscode: true })).toMatchObject({ changes: false });
    const blank = methodState("u1", data, { ...base, pushInfo: "", usernameFormat: "" });
    expect(diff(mfa, blank, { ...base, pushInfo: "", usernameFormat: "", usePasscode: true })).toMatchObject({ changes: false });
  });

  it("updates the keys in place and keeps them secret", () => {
    const olds = { ...base, usePasscode: false, type: "dualfactor" };
    expect(diff(mfa, olds, { ...base, usePasscode: false, secretKey: "sk2" })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(mfa.secrets).toEqual(["secretKey", "integrationKey"]);
  });
});

describe("secrets declared on the records are registered for redaction", () => {
  it("the secret and integration keys of a dual-factor method, not its other fields", () => {
    registerSecrets(mfa.fields!, { secretKey: "mfa-secret-key-1a2b3c", integrationKey: "mfa-integration-4d5e6f", apiHostname: "api-host-7a8b9c.example.com" });
    expect(redact("sk=mfa-secret-key-1a2b3c ik=mfa-integration-4d5e6f")).toBe("sk=[REDACTED] ik=[REDACTED]");
    expect(redact("api-host-7a8b9c.example.com")).toBe("api-host-7a8b9c.example.com");
  });
});

describe("function results keep their shape", () => {
  it("getDualFactorMethod reports blanks as empty strings and the id", () => {
    const info = methodInfo("u1", { id: "u1", type: "dualfactor", username_format: "", secret_key: "sk", integration_key: "ik", api_hostname: "h", pushinfo: "", use_passcode: false });
    expect(info).toEqual({ id: "u1", type: "dualfactor", usernameFormat: "", secretKey: "sk", integrationKey: "ik", apiHostname: "h", pushInfo: "", usePasscode: false });
  });
});
