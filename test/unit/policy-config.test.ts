// The policy config the engine double gives a pack (src/engine/policyConfig.ts), reconciled as the
// CLI reconciles it (pkg/resource/analyzer/config.go): schema defaults and each policy's own level,
// the pack's initial config, then the config file, where "all" sets every level first.
import { describe, expect, it } from "vitest";
import { parseConfigFile, problems, reconcile, type PolicyInfo } from "../../src/engine/policyConfig";

const policies: PolicyInfo[] = [
  { name: "ttl", enforcementLevel: "advisory", configSchema: { properties: { maximum: { type: "string", pattern: "^\\d+h$", default: "24h" } }, required: [] } },
  { name: "tls", enforcementLevel: "mandatory", configSchema: { properties: { hosts: { type: "array", items: { type: "string" }, default: [] } }, required: [] } },
  { name: "plain", enforcementLevel: "advisory" },
];

describe("policy config", () => {
  it("starts from each policy's level and schema defaults", () => {
    expect(reconcile(policies, {}, {})).toEqual({
      config: { ttl: { enforcementLevel: "advisory", properties: { maximum: "24h" } }, tls: { enforcementLevel: "mandatory", properties: { hosts: [] } }, plain: { enforcementLevel: "advisory" } },
      errors: [],
    });
  });

  it("applies the initial config, then the file, whose all sets every level before its own entries", () => {
    const file = parseConfigFile(JSON.stringify({ all: "mandatory", ttl: { maximum: "12h" }, plain: "disabled" }), "c.json");
    const { config, errors } = reconcile(policies, { ttl: { enforcementLevel: "remediate" } }, file);
    expect(errors).toEqual([]);
    expect(config.ttl).toEqual({ enforcementLevel: "mandatory", properties: { maximum: "12h" } });
    expect(config.tls?.enforcementLevel).toBe("mandatory");
    expect(config.plain).toEqual({ enforcementLevel: "disabled" });
  });

  it("checks the result against each schema, one line a problem naming the policy", () => {
    const file = parseConfigFile(JSON.stringify({ ttl: { maximum: "a day" }, tls: { hosts: "x" } }), "c.json");
    expect(reconcile(policies, {}, file).errors).toEqual([
      "ttl: maximum: Does not match pattern '^\\d+h$'",
      "tls: hosts: Invalid type. Expected: array, given: string",
    ]);
  });

  it("refuses a level that is none, and a value that is neither a level nor an object", () => {
    expect(() => parseConfigFile(`{"ttl": "strict"}`, "c.json")).toThrow('c.json: parsing enforcement level for "ttl": "strict" is not a valid enforcement level');
    expect(() => parseConfigFile(`{"ttl": 3}`, "c.json")).toThrow('c.json: parsing "ttl": must be a string or object');
    expect(() => parseConfigFile(`{"ttl": {"enforcementLevel": "loud"}}`, "c.json")).toThrow('"loud" is not a valid enforcement level');
  });

  it("reads the schema keywords the policies use", () => {
    expect(problems({ type: "integer", minimum: 1 }, 0, "n")).toEqual(["n: Must be greater than or equal to 1"]);
    expect(problems({ type: "integer" }, 1.5, "n")).toEqual(["n: Invalid type. Expected: integer, given: number"]);
    expect(problems({ type: "array", items: { type: "string" } }, ["a", 2], "l")).toEqual(["l.1: Invalid type. Expected: string, given: integer"]);
    expect(problems({ enum: ["a", "b"] }, "c", "e")).toEqual(['e: must be one of "a", "b"']);
    expect(problems({ type: "object", required: ["x"], properties: { x: { type: "boolean" } } }, {}, "")).toEqual(["(root): x is required"]);
  });
});
