// A kind's type token is written in one place and read in one place (src/core/token.ts): the review,
// the recovery and the messages naming a resource all read it there, and a kind and a URN each
// have one reader too (src/core/token.ts, src/core/urn.ts).
import { describe, expect, it } from "vitest";
import { pathOfId } from "../../src/core/path";
import { resourceName } from "../../src/core/holders";
import { kindName, kindOfToken, serviceOfKind, shortToken, tokenPackage, typeToken } from "../../src/core/token";
import { isProviderUrn, isStackUrn, parseUrn, urnName, urnType } from "../../src/core/urn";
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

describe("kinds", () => {
  it("are read as their service and their name", () => {
    for (const kind of KIND_NAMES) expect(`${serviceOfKind(kind)}:${kindName(kind)}`).toBe(kind);
    expect(serviceOfKind("secrets:TransformRole")).toBe("secrets");
    expect(kindName("runs:NotificationConfiguration")).toBe("NotificationConfiguration");
    expect(tokenPackage("aws:s3/bucket:Bucket")).toBe("aws");
  });
});

describe("URNs", () => {
  const key = typeToken("secrets:KeymgmtKey");
  const top = `urn:pulumi:dev::app::${key}::signing`;
  // A component's child: the qualified type holds the parent chain; the name holds `::` itself.
  const nested = `urn:pulumi:dev::app::pulumi:pulumi:Stack$my:index:Component$${key}::team::signing::v2`;

  it("give the name after the third ::, whatever it holds, and the resource's own type after its parents'", () => {
    expect(parseUrn(top)).toEqual({ stack: "dev", project: "app", qualifiedType: key, type: key, parentTypes: [], name: "signing" });
    expect(parseUrn(nested)).toEqual({
      stack: "dev", project: "app", qualifiedType: `pulumi:pulumi:Stack$my:index:Component$${key}`, type: key,
      parentTypes: ["pulumi:pulumi:Stack", "my:index:Component"], name: "team::signing::v2",
    });
    expect(urnName(nested)).toBe("team::signing::v2");
    expect(urnType(nested)).toBe(key);
    expect(resourceName(nested)).toBe("team::signing::v2 (secrets:KeymgmtKey)");
    expect(resourceName(top)).toBe("signing (secrets:KeymgmtKey)");
  });

  it("tell the engine's own resources from the program's", () => {
    expect(isStackUrn("urn:pulumi:dev::app::pulumi:pulumi:Stack::app-dev")).toBe(true);
    expect(isStackUrn(nested)).toBe(false);
    expect(isStackUrn(`urn:pulumi:dev::app::${key}::x::pulumi:pulumi:Stack::y`)).toBe(false);
    expect(isProviderUrn("urn:pulumi:dev::app::pulumi:providers:pulumi-nodejs::default")).toBe(true);
    expect(isProviderUrn("urn:pulumi:dev::app::pulumi:pulumi:Stack$pulumi:providers:aws::east")).toBe(true);
    expect(isProviderUrn(top)).toBe(false);
  });

  it("read no URN in other text", () => {
    expect(parseUrn("signing")).toBeUndefined();
    expect(parseUrn("urn:pulumi:dev::app::signing")).toBeUndefined();
    expect(urnName("signing")).toBe("signing");
    expect(urnType("signing")).toBe("");
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
