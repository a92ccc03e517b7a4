// The registry kinds on field records (issue 23): a misspelt property is refused at check with the
// nearest known name, the declared lists are those the kinds had before the move (so state and
// diffs are unchanged), and every secret the records declare is redacted.
import { describe, expect, it } from "vitest";
import { redact } from "../../src/http/redact";
import { checkFailures, kindLists, NO_LISTS as none } from "../support/calls";
import { useEnv } from "../support/env";

// check reads the service's settings from the environment; nothing here reaches a server.
useEnv({ SVC_SECRETS_URL: "http://127.0.0.1:9/v1", SVC_SECRETS_TOKEN: "unit-test-secrets-token" });

describe("a misspelt property is refused at check, naming the nearest one", () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ["secrets:RegistryAccessConfig", { address: "h:1", token: "management-token" }, "adress", "address"],
    ["secrets:RegistryRole", { name: "r", policies: ["p"] }, "maxTTL", "maxTtl"],
  ];
  it.each(cases)("%s", async (kind, valid, misspelt, meant) => {
    expect(await checkFailures(kind, valid)).toEqual([]);
    expect(await checkFailures(kind, { ...valid, [misspelt]: 1 })).toEqual([{ property: misspelt, reason: `unknown property; did you mean ${meant}?` }]);
  });
});

describe("the lists derived from the records are the kinds' lists before the move", () => {
  it("registry", async () => {
    expect(await kindLists("secrets:RegistryAccessConfig")).toEqual({
      ...none, defaults: { mount: "registry", scheme: "http" }, immutable: ["mount"], identity: ["mount"],
      secrets: ["clientKey", "token"], writeOnly: ["clientKey", "token"], local: ["adopt"],
      // Not a field: whether the service reported the config at the last write or read (item 5 of issue 52).
      outputs: ["__readable"],
    });
    expect(await kindLists("secrets:RegistryRole")).toEqual({
      ...none, defaults: { mount: "registry", tokenType: "client", local: false }, sets: ["policies"],
      immutable: ["mount", "name"], identity: ["mount", "name"], local: ["adopt"],
    });
  });
});

describe("secrets declared in the records are redacted from then on", () => {
  const redacted = (value: string) => expect(redact(`server said: ${value}`)).toBe("server said: [REDACTED]");

  it("the access config's token and client key, from the inputs of any operation", async () => {
    const token = "registry-management-token-1";
    const clientKey = "-----BEGIN PRIVATE KEY-----unit-----END PRIVATE KEY-----";
    await checkFailures("secrets:RegistryAccessConfig", { address: "h:1", token, clientKey, clientCert: "-----BEGIN CERTIFICATE-----" });
    redacted(token);
    redacted(clientKey);
  });
});
