// Issue 7, check and secrets in messages: bad inputs stopped at check with the property named,
// every failure in one pass, one spelling of a checksum, and redaction that neither mangles
// messages nor misses escaped forms.
import { beforeAll, describe, expect, it } from "vitest";
import { check, diff } from "../../src/core/provider";
import type { ResourceDefinition } from "../../src/core/definition";
import { KIND_NAMES, kindDefinition } from "../../src/kinds";
import { UNKNOWN } from "../../src/core/unknown";
import { redact, registerSecret, MIN_SECRET_LENGTH } from "../../src/http/redact";
import { HttpClient, InvalidInputError } from "../../src/http";
import { alreadyExists } from "../../src/secrets/pathObject";
import { ConfigError, baseUrlProblem } from "../../src/config";

// Kinds load on first use (src/kinds.ts); these tests use the definitions directly.
const DEFS: Record<string, ResourceDefinition> = {};
beforeAll(async () => {
  for (const k of KIND_NAMES) DEFS[k] = (await kindDefinition(k))!;
});

const failuresOf = (kind: string, inputs: Record<string, unknown>) => check(DEFS[kind], inputs).failures;

describe("names that become path segments are refused at check, naming the property", () => {
  const hostile = [".", "..", "a/b", "%2F", "a?b", "a#b", "a\u0001b", "\ud800", "x\udc00", "   ", "a\\b"];
  it.each(hostile.map((v) => [JSON.stringify(v), v]))("template name %s", (_label, value) => {
    const failures = failuresOf("secrets:TransformTemplate", { name: value, pattern: "(\\d{4})", alphabet: "builtin/numeric" });
    expect(failures.map((f) => f.property)).toContain("name");
  });

  it("a / in workspaceId is refused for notification configurations and runs", () => {
    expect(failuresOf("runs:NotificationConfiguration", { workspaceId: "ws-1/../x", name: "n", destinationType: "generic", url: "https://h.example.com" })
      .map((f) => f.property)).toContain("workspaceId");
    expect(failuresOf("runs:Run", { workspaceId: "ws/1" }).map((f) => f.property)).toContain("workspaceId");
  });

  it("a mount segment is checked too", () => {
    expect(failuresOf("secrets:KeymgmtKey", { name: "k", mount: "keymgmt/..", type: "rsa-2048" }).map((f) => f.property)).toContain("mount");
  });

  it("the request layer turns a lone surrogate into a typed invalid-input error, not a URIError", async () => {
    const client = new HttpClient({ service: "secrets", baseUrl: "http://127.0.0.1:9/v1", token: "t0ken-for-unit-test" });
    await expect(client.request({ route: "GET /keymgmt/key/{name}", params: { name: "\ud800" } })).rejects.toBeInstanceOf(InvalidInputError);
  });
});

describe("check reports every failure in one pass", () => {
  it("a bad trigger and the missing url of a generic configuration, together", () => {
    const failures = failuresOf("runs:NotificationConfiguration", { workspaceId: "ws-1", name: "n", destinationType: "generic", triggers: ["bogus"] });
    expect(failures.map((f) => f.property).sort()).toEqual(["triggers[0]", "url"]);
  });
});

describe("a plugin checksum in another letter case is no difference", () => {
  const sha = "ab".repeat(32);
  const inputs = { type: "database", name: "db", command: "db-plugin" };
  it("upper case in the program against lower case in state, and the other way round", () => {
    const def = DEFS["secrets:PluginCatalogEntry"];
    const upper = check(def, { ...inputs, sha256: sha.toUpperCase() });
    expect(upper.failures).toEqual([]);
    expect(upper.inputs.sha256).toBe(sha);
    expect(diff(def, { ...upper.inputs, sha256: sha }, upper.inputs).changes).toBe(false);
    expect(diff(def, { ...upper.inputs, sha256: sha.toUpperCase() }, check(def, { ...inputs, sha256: sha }).inputs).changes).toBe(false);
  });
});

describe("the conflict of a taken path points renames to aliases before adopt", () => {
  it("names aliases first and says why adopt is wrong for a rename", () => {
    const message = alreadyExists("POST", "transform/template/x", "template").message;
    expect(message.indexOf("aliases")).toBeGreaterThan(-1);
    expect(message.indexOf("aliases")).toBeLessThan(message.indexOf("adopt: true"));
    expect(message).toMatch(/old resource's delete would remove the template/);
  });
});

describe("redaction", () => {
  it(`leaves values shorter than ${MIN_SECRET_LENGTH} characters alone, so messages stay readable`, () => {
    registerSecret(" ");
    registerSecret("eu");
    expect(redact("GET /keymgmt/kms/aws in eu-west-1")).toBe("GET /keymgmt/kms/aws in eu-west-1");
  });

  it("removes a secret echoed with non-ASCII characters escaped as \\uXXXX (either case), JSON-escaped or URL-encoded", () => {
    const secret = "pässwörd-<geheim>&1";
    registerSecret(secret);
    const lower = secret.replace(/[^\x20-\x7e]|[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    for (const echoed of [secret, lower, JSON.stringify({ body: JSON.stringify({ password: secret }) }), encodeURIComponent(secret)]) {
      const out = redact(`server said: ${echoed}`);
      expect(out, echoed).toContain("[REDACTED]");
      expect(out).not.toContain("geheim");
    }
    const upperHex = secret.replace(/[^\x20-\x7e]|[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()}`);
    expect(redact(upperHex)).toBe("[REDACTED]");
  });

  it("a config error about a URL setting never prints the value beyond its scheme and host shape", () => {
    const pasted = "svc-token-pasted-into-the-url-setting";
    const problem = baseUrlProblem(pasted)!;
    expect(problem).not.toContain(pasted);
    expect(problem).toMatch(/does not start with a scheme/);
    expect(baseUrlProblem(`ftp://user:${pasted}@host/v1`)).toBe('must be an http(s) URL, got a "ftp://" URL with a host');
    registerSecret("cfg-secret-value-42");
    expect(new ConfigError("bad value cfg-secret-value-42").message).toBe("bad value [REDACTED]");
  });
});

describe("check fuzz: every field of every kind against hostile values", () => {
  const HOSTILE: unknown[] = [
    null, 0, -1, 1.5, NaN, true, [], {}, [null], { a: 1 }, "", " ", ".", "..", "/", "a/b", "%2F", "?", "#", "\u0000", "\ud800",
    "__proto__", "constructor", "toString", "x".repeat(100_000), UNKNOWN, [UNKNOWN], { [UNKNOWN]: UNKNOWN },
  ];
  const fieldsOf = (kind: string): string[] => {
    const schema = DEFS[kind].schema() as unknown as { shape?: Record<string, unknown>; _zod?: { def?: { shape?: Record<string, unknown> } } };
    return Object.keys(schema.shape ?? schema._zod?.def?.shape ?? {});
  };

  it.each(KIND_NAMES)("%s: no crash, and every failure names a property", (kind) => {
    const fields = fieldsOf(kind);
    expect(fields.length).toBeGreaterThan(0);
    for (const field of fields) {
      for (const value of HOSTILE) {
        let result: ReturnType<typeof check>;
        try {
          result = check(DEFS[kind], { [field]: value });
        } catch (e) {
          throw new Error(`${kind}.${field} = ${String(value).slice(0, 20)}: check threw ${(e as Error).message}`);
        }
        for (const f of result.failures) {
          expect(typeof f.property === "string" && f.property.length > 0, `${kind}.${field}`).toBe(true);
          expect(f.reason.length).toBeGreaterThan(0);
        }
        // A wrong type at a field is always refused at that field (never silently accepted).
        // `triggers` takes any value on purpose (it only forces a replacement when it changes).
        if (field !== "triggers" && typeof value === "number" && Number.isNaN(value) && !result.failures.some((f) => f.property.startsWith(field))) {
          throw new Error(`${kind}.${field} = NaN was accepted`);
        }
      }
    }
  });
});
