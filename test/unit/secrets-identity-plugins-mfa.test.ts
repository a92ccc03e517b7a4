import { describe, expect, it } from "vitest";
import { check, diff } from "../../src/core/provider";
import { UNKNOWN } from "../../src/core/unknown";
import { aliasState, entityAliasDefinition as alias } from "../../src/secrets/identity/entityAlias";
import { catalogEntryDefinition as plugin } from "../../src/secrets/plugins/catalogEntry";
import { dualFactorMethodDefinition as mfa, methodInfo, methodState } from "../../src/secrets/mfa/dualFactorMethod";
import { aliasInfo } from "../../src/secrets/identity/entityAlias";
import { registerSecrets } from "../../src/core/fields";
import { redact } from "../../src/http/redact";

const PROVIDER = { __provider: "exports.handler = ..." };
const failures = (def: Parameters<typeof check>[0], news: Record<string, unknown>) =>
  check(def, news).failures.map((f) => `${f.property}: ${f.reason}`);

describe("EntityAlias", () => {
  const base = { name: "alice", canonicalId: "ent-1", mountAccessor: "auth_userpass_1" };

  it("requires name, canonicalId and mountAccessor, naming each", () => {
    expect(failures(alias, base)).toEqual([]);
    const props = check(alias, {}).failures.map((f) => f.property).sort();
    expect(props).toEqual(["canonicalId", "mountAccessor", "name"]);
    expect(failures(alias, { ...base, name: "" })[0]).toMatch(/^name: must not be empty/);
    expect(failures(alias, { ...base, customMetadata: { team: 7 } })).toEqual(["customMetadata.team: must be a string"]);
    expect(failures(alias, { ...base, canonicalId: UNKNOWN })).toEqual([]);
  });

  it("updates every field in place (the server assigns the id)", () => {
    const olds = { ...base, mountPath: "auth/userpass/", mountType: "userpass", metadata: {}, local: false, creationTime: "t", lastUpdateTime: "t" };
    expect(diff(alias, olds, { ...base, ...PROVIDER })).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
    expect(diff(alias, olds, { ...base, canonicalId: "ent-2" })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(diff(alias, olds, { ...base, customMetadata: { a: "b" } })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("keeps an empty custom metadata map only when the program gave one, so neither form diffs", () => {
    const data = { id: "a1", name: "alice", canonical_id: "ent-1", mount_accessor: "auth_userpass_1", custom_metadata: {}, metadata: {}, local: false };
    const omitted = aliasState("a1", data, base);
    expect(omitted).not.toHaveProperty("customMetadata");
    expect(diff(alias, omitted, base)).toMatchObject({ changes: false });
    const empty = aliasState("a1", data, { ...base, customMetadata: {} });
    expect(empty.customMetadata).toEqual({});
    expect(diff(alias, empty, { ...base, customMetadata: {} })).toMatchObject({ changes: false });
    expect(aliasState("a1", { ...data, custom_metadata: { a: "b" } }, base).customMetadata).toEqual({ a: "b" });
  });
});

describe("CatalogEntry", () => {
  const sha = "a".repeat(64);
  const base = { type: "secret", name: "my-plugin", sha256: sha, command: "my-plugin" };

  it("defaults args and validates type, sha256, command and env entries", () => {
    expect(check(plugin, base)).toMatchObject({ failures: [], inputs: { args: [] } });
    expect(failures(plugin, { ...base, type: "engine" })).toEqual(["type: must be one of auth, database, secret"]);
    expect(failures(plugin, { ...base, sha256: "abc" })[0]).toMatch(/^sha256: must be the SHA-256 .*64 hexadecimal/);
    expect(failures(plugin, { ...base, sha256: "g".repeat(64) })[0]).toMatch(/^sha256: /);
    expect(failures(plugin, { ...base, command: "/usr/bin/x" })).toEqual(["command: must be relative to the plugin directory (no leading /)"]);
    expect(failures(plugin, { ...base, command: "../x" })).toEqual(["command: must stay inside the plugin directory (no .. segment)"]);
    expect(failures(plugin, { ...base, env: ["TOKEN=abc", "novalue", "=x", "1A=b"] })).toEqual([
      "env[1]: must be KEY=value (KEY: letters, digits and _, not starting with a digit)",
      "env[2]: must be KEY=value (KEY: letters, digits and _, not starting with a digit)",
      "env[3]: must be KEY=value (KEY: letters, digits and _, not starting with a digit)",
    ]);
    expect(failures(plugin, { ...base, env: ["EMPTY="] })).toEqual([]);
    expect(failures(plugin, { ...base, name: "a/b" })[0]).toMatch(/^name: must not contain \//);
  });

  it("replaces only when the path changes, creating the new entry first; env is a secret write-only input", () => {
    const olds = { ...base, args: [], builtin: false, env: ["A=1"] };
    const news = { ...base, args: [], env: ["A=1"], ...PROVIDER };
    expect(diff(plugin, olds, news)).toMatchObject({ changes: false });
    expect(diff(plugin, olds, { ...news, name: "other" })).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: false });
    expect(diff(plugin, olds, { ...news, type: "auth" })).toEqual({ changes: true, replaces: ["type"], deleteBeforeReplace: false });
    expect(diff(plugin, olds, { ...news, env: ["A=2"] })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(diff(plugin, olds, { ...news, args: ["-v"] })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(plugin.secrets).toEqual(["env"]);
    expect(plugin.writeOnly).toEqual(["env"]);
  });
});

describe("DualFactorMethod", () => {
  const base = { secretKey: "sk", integrationKey: "ik", apiHostname: "api-1234abcd.example.com" };

  it("defaults usePasscode and validates each field by name", () => {
    expect(check(mfa, base)).toMatchObject({ failures: [], inputs: { usePasscode: false } });
    expect(check(mfa, {}).failures.map((f) => f.property).sort()).toEqual(["apiHostname", "integrationKey", "secretKey"]);
    expect(failures(mfa, { ...base, apiHostname: "https://api.example.com/x" })[0]).toMatch(/^apiHostname: must be a host name/);
    expect(failures(mfa, { ...base, apiHostname: "api.example.com:8443" })).toEqual([]);
    expect(failures(mfa, { ...base, usernameFormat: "{{identity.entity.name}@x" })).toEqual(["usernameFormat: must close every {{ with }}"]);
    expect(failures(mfa, { ...base, usePasscode: "yes" })).toEqual(["usePasscode: must be a boolean"]);
    expect(failures(mfa, { ...base, secretKey: UNKNOWN })).toEqual([]);
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
  it("a plugin env entry, and its value alone (it can appear without its KEY=)", () => {
    registerSecrets(plugin.fields!, { env: ["DB_PASSWORD=plugin-env-value-9f8e7d"] });
    expect(redact("connect failed with password plugin-env-value-9f8e7d")).toBe("connect failed with password [REDACTED]");
    expect(redact("env DB_PASSWORD=plugin-env-value-9f8e7d")).not.toContain("plugin-env-value");
  });

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

  it("getEntityAlias reports no custom metadata as {} and the id", () => {
    const data = { id: "a1", name: "alice", canonical_id: "ent-1", mount_accessor: "auth_userpass_1", mount_path: "auth/userpass/", mount_type: "userpass",
      custom_metadata: {}, metadata: {}, local: false, creation_time: "t0", last_update_time: "t1" };
    expect(aliasInfo("a1", data)).toEqual({ id: "a1", name: "alice", canonicalId: "ent-1", mountAccessor: "auth_userpass_1", mountPath: "auth/userpass/",
      mountType: "userpass", customMetadata: {}, metadata: {}, local: false, creationTime: "t0", lastUpdateTime: "t1" });
  });
});
