import { describe, expect, it } from "vitest";
import { check, diff } from "../../src/core/provider";
import { registerSecrets } from "../../src/core/fields";
import { redact } from "../../src/http/redact";
import { catalogEntryDefinition as plugin } from "../../src/secrets/plugins/catalogEntry";
import { failureLinesOf } from "../support/calls";

const PROVIDER = { __provider: "exports.handler = ..." };

describe("CatalogEntry", () => {
  const sha = "a".repeat(64);
  const base = { type: "secret", name: "my-plugin", sha256: sha, command: "my-plugin" };

  it("defaults args and validates type, sha256, command and env entries", () => {
    expect(check(plugin, base)).toMatchObject({ failures: [], inputs: { args: [] } });
    expect(failureLinesOf(plugin, { ...base, type: "engine" })).toEqual(["type: must be one of auth, database, secret"]);
    expect(failureLinesOf(plugin, { ...base, sha256: "abc" })[0]).toMatch(/^sha256: must be the SHA-256 .*64 hexadecimal/);
    expect(failureLinesOf(plugin, { ...base, sha256: "g".repeat(64) })[0]).toMatch(/^sha256: /);
    expect(failureLinesOf(plugin, { ...base, command: "/usr/bin/x" })).toEqual(["command: must be relative to the plugin directory (no leading /)"]);
    expect(failureLinesOf(plugin, { ...base, command: "../x" })).toEqual(["command: must stay inside the plugin directory (no .. segment)"]);
    expect(failureLinesOf(plugin, { ...base, env: ["TOKEN=abc", "novalue", "=x", "1A=b"] })).toEqual([
      "env[1]: must be KEY=value (KEY: letters, digits and _, not starting with a digit)",
      "env[2]: must be KEY=value (KEY: letters, digits and _, not starting with a digit)",
      "env[3]: must be KEY=value (KEY: letters, digits and _, not starting with a digit)",
    ]);
    expect(failureLinesOf(plugin, { ...base, env: ["EMPTY="] })).toEqual([]);
    expect(failureLinesOf(plugin, { ...base, name: "a/b" })[0]).toMatch(/^name: must not contain \//);
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

describe("secrets declared on the records are registered for redaction", () => {
  it("a plugin env entry, and its value alone (it can appear without its KEY=)", () => {
    registerSecrets(plugin.fields!, { env: ["DB_PASSWORD=plugin-env-value-9f8e7d"] });
    expect(redact("connect failed with password plugin-env-value-9f8e7d")).toBe("connect failed with password [REDACTED]");
    expect(redact("env DB_PASSWORD=plugin-env-value-9f8e7d")).not.toContain("plugin-env-value");
  });
});
