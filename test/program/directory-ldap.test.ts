import { describe, expect, it } from "vitest";
import { useProgram } from "../support/program";
import { useSlapd } from "../support/slapd";

/** examples/directory against a real OpenLDAP server: the passwords it manages bind there. */
const { slapd } = useSlapd();

describe("the directory example on a real OpenLDAP server", () => {
  const { run, get, stateText } = useProgram({
    example: "directory", project: "pulumi-svc-directory", stack: "ldap",
    config: () => ({ "directory:url": slapd().url, "directory:binddn": slapd().adminDn, "directory:userdn": slapd().usersDn }),
    // The directory's admin password stays the same: step2's bindpass2 changes nothing here.
    secretConfig: () => ({ "directory:bindpass": slapd().adminPassword, "directory:bindpass2": slapd().adminPassword }),
  });

  it("up, step2 and destroy manage real passwords", async () => {
    const s = slapd();
    // In the test, not the harness's beforeAll: a beforeAll runs even when slapd is missing.
    await s.addUsers(["svc-app", "pool-1", "pool-2"]);
    const up = await run("up");
    expect(up.error).toBeUndefined();
    expect(up.outputs).toMatchObject({ borrowedAccount: "pool-1", appPassword: "[secret]" });
    const creds = (await get("/directory/creds/app")).body.data;
    expect(creds.current_password).toHaveLength(32);
    expect(await s.binds(s.userDn("svc-app"), creds.current_password)).toBe(true);
    expect(await s.binds(s.userDn("pool-1"), "initial-user-password")).toBe(false);

    const second = await run("up", 2);
    expect(second.error).toBeUndefined();
    expect(await s.binds(s.userDn("svc-app"), creds.current_password)).toBe(false);
    expect(await s.binds(s.userDn("svc-app"), (await get("/directory/creds/app")).body.data.current_password)).toBe(true);

    const down = await run("destroy", 2);
    expect(down.error).toBeUndefined();
    expect(stateText()).not.toContain(s.adminPassword);
  });
});
