import { describe, expect, it } from "vitest";
import { check, diff } from "../../src/core/provider";
import { UNKNOWN } from "../../src/core/unknown";
import { checkOutDefinition as out } from "../../src/secrets/directory/checkOut";
import { directoryConfigDefinition as config } from "../../src/secrets/directory/config";
import { librarySetDefinition as set } from "../../src/secrets/directory/librarySet";
import { directoryRoleDefinition as role } from "../../src/secrets/directory/role";
import { failuresOf } from "../support/calls";

describe("directory check and diff", () => {
  it("config: defaults filled, bad values named, unknowns skipped", () => {
    const r = check(config, { binddn: "cn=a", bindpass: "p" });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toMatchObject({ mount: "directory", url: "ldap://127.0.0.1", ttl: 0, connectionTimeout: 30, requestTimeout: 90, lastRotationTolerance: 5 });
    expect(failuresOf(config, { binddn: "cn=a", bindpass: "p", formatter: "abcdefghijklmn{{PASSWORD}}", length: 14, maxTtl: "forever" })).toEqual({
      formatter: "leaves no room for the password within length 14", maxTtl: expect.stringMatching(/duration/),
    });
    expect(failuresOf(config, { binddn: UNKNOWN, bindpass: UNKNOWN, url: UNKNOWN, length: UNKNOWN, formatter: UNKNOWN, passwordPolicy: UNKNOWN })).toEqual({});
  });

  it("config: a new bind password is an update, never a replacement", () => {
    const olds = check(config, { binddn: "cn=a", bindpass: "p" }).inputs;
    const news = check(config, { binddn: "cn=a", bindpass: "q" }).inputs;
    expect(diff(config, olds, news)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  it("role and library set: the account list changes in place; a new name replaces (deleting first while it keeps an account, below)", () => {
    const olds = check(set, { name: "s", serviceAccountNames: ["a"] }).inputs;
    expect(diff(set, olds, check(set, { name: "s", serviceAccountNames: ["a", "b"] }).inputs)).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    expect(diff(set, olds, check(set, { name: "t", serviceAccountNames: ["a"] }).inputs)).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: true });
    const r = check(role, { name: "r", serviceAccountName: "a" }).inputs;
    expect(diff(role, r, check(role, { name: "r", serviceAccountName: "b" }).inputs)).toMatchObject({ replaces: [] });
    expect(failuresOf(set, { name: "s", serviceAccountNames: [UNKNOWN, UNKNOWN], ttl: UNKNOWN })).toEqual({});
  });

  it("check-out: any input change replaces, checking in first while the set stays", () => {
    const olds = check(out, { setName: "s" }).inputs;
    expect(diff(out, olds, check(out, { setName: "s", ttl: "1h" }).inputs)).toEqual({ changes: true, replaces: ["ttl"], deleteBeforeReplace: true });
    expect(diff(out, olds, check(out, { setName: "s", triggers: [2] }).inputs)).toEqual({ changes: true, replaces: ["triggers"], deleteBeforeReplace: true });
    expect(diff(out, olds, check(out, { setName: "t" }).inputs)).toEqual({ changes: true, replaces: ["setName"], deleteBeforeReplace: false });
    expect(failuresOf(out, { setName: "", ttl: "later" })).toEqual({ setName: expect.stringMatching(/must not/), ttl: expect.stringMatching(/duration/) });
  });
});

describe("renaming a directory role or library set that keeps an account deletes first", () => {
  // The service lets one role or set manage an account per mount: the new one could not be created first.
  const r = { name: "app", mount: "directory", serviceAccountName: "svc-app" };
  it("Role: same account on the same mount deletes first; another account or another mount creates first", () => {
    expect(diff(role, r, { ...r, name: "app-v2" })).toEqual({ changes: true, replaces: ["name"], deleteBeforeReplace: true });
    expect(diff(role, r, { ...r, name: "app-v2", serviceAccountName: "svc-other" }).deleteBeforeReplace).toBe(false);
    expect(diff(role, r, { ...r, name: "app-v2", mount: "ad-eu" }).deleteBeforeReplace).toBe(false);
    expect(diff(role, r, { ...r, name: "app-v2", serviceAccountName: UNKNOWN }).deleteBeforeReplace).toBe(false);
  });

  const s = { name: "pool", mount: "directory", serviceAccountNames: ["a", "b"], ttl: "1h", maxTtl: "24h", disableCheckInEnforcement: false };
  it("LibrarySet: any account in common deletes first; none in common creates first", () => {
    expect(diff(set, s, { ...s, name: "pool-v2", serviceAccountNames: ["b", "c"] }).deleteBeforeReplace).toBe(true);
    expect(diff(set, s, { ...s, name: "pool-v2", serviceAccountNames: ["c"] }).deleteBeforeReplace).toBe(false);
    // A change of the accounts alone stays an update in place.
    expect(diff(set, s, { ...s, serviceAccountNames: ["a", "c"] })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });
});
