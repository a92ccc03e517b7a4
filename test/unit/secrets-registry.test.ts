import { describe, expect, it } from "vitest";
import { check } from "../../src/core/provider";
import { UNKNOWN } from "../../src/core/unknown";
import { accessConfigDefinition as access } from "../../src/secrets/registry/accessConfig";
import { registryRoleDefinition as rrole } from "../../src/secrets/registry/role";
import { failuresOf } from "../support/calls";

describe("registry check", () => {
  it("access config: all problems at once; unknowns skipped", () => {
    expect(failuresOf(access, { address: "h", token: "t", clientKey: "-----BEGIN PRIVATE KEY-----" })).toEqual({ address: "must be host:port", clientCert: "is required with clientKey" });
    expect(failuresOf(access, { address: UNKNOWN, token: UNKNOWN, clientCert: UNKNOWN })).toEqual({});
  });

  it("role: policies are a set, a client needs a policy, an unknown policy is not judged yet", () => {
    const r = check(rrole, { name: "r", policies: ["b", "a", "b"] });
    expect(r.inputs.policies).toEqual(["a", "b"]);
    expect(failuresOf(rrole, { name: "r", tokenType: "client" })).toEqual({ policies: expect.stringMatching(/needs policy or policies/) });
    expect(failuresOf(rrole, { name: "r", policies: UNKNOWN })).toEqual({});
    expect(failuresOf(rrole, { name: "r", tokenType: "management" })).toEqual({});
  });
});
