import { describe, expect, it } from "vitest";
import { check, diff } from "../../src/core/provider";
import { UNKNOWN } from "../../src/core/unknown";
import { aliasInfo, aliasState, entityAliasDefinition as alias } from "../../src/secrets/identity/entityAlias";
import { failureLinesOf } from "../support/calls";

const PROVIDER = { __provider: "exports.handler = ..." };

describe("EntityAlias", () => {
  const base = { name: "alice", canonicalId: "ent-1", mountAccessor: "auth_userpass_1" };

  it("requires name, canonicalId and mountAccessor, naming each", () => {
    expect(failureLinesOf(alias, base)).toEqual([]);
    const props = check(alias, {}).failures.map((f) => f.property).sort();
    expect(props).toEqual(["canonicalId", "mountAccessor", "name"]);
    expect(failureLinesOf(alias, { ...base, name: "" })[0]).toMatch(/^name: must not be empty/);
    expect(failureLinesOf(alias, { ...base, customMetadata: { team: 7 } })).toEqual(["customMetadata.team: must be a string"]);
    expect(failureLinesOf(alias, { ...base, canonicalId: UNKNOWN })).toEqual([]);
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

describe("function results keep their shape", () => {
  it("getEntityAlias reports no custom metadata as {} and the id", () => {
    const data = { id: "a1", name: "alice", canonical_id: "ent-1", mount_accessor: "auth_userpass_1", mount_path: "auth/userpass/", mount_type: "userpass",
      custom_metadata: {}, metadata: {}, local: false, creation_time: "t0", last_update_time: "t1" };
    expect(aliasInfo("a1", data)).toEqual({ id: "a1", name: "alice", canonicalId: "ent-1", mountAccessor: "auth_userpass_1", mountPath: "auth/userpass/",
      mountType: "userpass", customMetadata: {}, metadata: {}, local: false, creationTime: "t0", lastUpdateTime: "t1" });
  });
});
