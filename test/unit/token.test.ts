// A kind's type token is written in one place and read in one place (src/core/token.ts): the review,
// the recovery and the messages naming a resource all read it there.
import { describe, expect, it } from "vitest";
import { pathOfId } from "../../src/core/path";
import { kindOfToken, shortToken, typeToken } from "../../src/core/token";
import { KIND_NAMES, kindDefinition } from "../../src/kinds";

describe("type tokens", () => {
  it("reads back every kind it writes", () => {
    for (const kind of KIND_NAMES) {
      expect(typeToken(kind)).toBe(`pulumi-nodejs:dynamic/${kind}`);
      expect(kindOfToken(typeToken(kind))).toBe(kind);
      expect(shortToken(typeToken(kind))).toBe(kind);
    }
  });

  it("names no kind of this package for another provider's token", () => {
    expect(kindOfToken("aws:s3/bucket:Bucket")).toBeUndefined();
    expect(kindOfToken("pulumi-nodejs:dynamic:Resource")).toBeUndefined();
    expect(kindOfToken("pulumi-nodejs:dynamic/other:Thing")).toBeUndefined();
    expect(shortToken("pulumi-nodejs:dynamic/other:Thing")).toBe("other:Thing");
    expect(shortToken("aws:s3/bucket:Bucket")).toBe("aws:s3/bucket:Bucket");
  });
});

describe("an object's path from its id", () => {
  it("is the id of an object whose id is a path, and the read route of one the service names", async () => {
    expect(pathOfId(await kindDefinition("secrets:TransformRole"), "transform/role/payments")).toBe("transform/role/payments");
    expect(pathOfId(await kindDefinition("runs:Run"), "run-1")).toBe("runs/run-1");
    expect(pathOfId(await kindDefinition("runs:NotificationConfiguration"), "nc-1")).toBe("notification-configurations/nc-1");
    expect(pathOfId(undefined, "a/b")).toBeUndefined();
    expect(pathOfId(await kindDefinition("runs:Run"), undefined)).toBeUndefined();
  });
});
