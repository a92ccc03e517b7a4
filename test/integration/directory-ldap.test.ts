import { describe, expect, it } from "vitest";
import { makeContext } from "../../src/core/context";
import { call } from "../../src/runtime";
import { writeProgram } from "../../src/import/program";
import { walk } from "../../src/import/walk";
import * as directory from "../../src/secrets/directory";
import { checked, created, type Props } from "../support/calls";
import { control, useEmulator } from "../support/emulator";
import { setPassword, useSlapd } from "../support/slapd";

/** The provider against the emulator's directory engine bound to a real OpenLDAP server. */
const { slapd } = useSlapd();
const { emu } = useEmulator();
const CONFIG = "secrets:DirectoryConfig";
const ROLE = "secrets:DirectoryRole";
const SET = "secrets:DirectoryLibrarySet";
const OUT = "secrets:DirectoryCheckOut";

let n = 0;
const fresh = (base: string) => `${base}-${++n}`;

async function config(): Promise<{ id: string; outs: Props; inputs: Props }> {
  const s = slapd();
  const inputs = { url: s.url, binddn: s.adminDn, bindpass: s.adminPassword, userdn: s.usersDn, ttl: "1h" };
  const res = await created(CONFIG, inputs);
  expect((await control<{ backend: string }>(emu, "GET", "/directory")).backend).toBe("ldap");
  return { ...res, inputs };
}

describe("directory resources on a real OpenLDAP server", () => {
  it("pulumi-svc-import writes the config with its bind password from stack config, and its role after it", async () => {
    const user = fresh("imp");
    await slapd().addUsers([user]);
    await config();
    await created(ROLE, { name: "imported", serviceAccountName: user });
    // The ordinary token: the plugin catalog it may not read is left out, the rest is imported.
    const { found, skipped } = await walk(makeContext(), { workspaces: [], mounts: {} }, () => {}, { runs: false, secrets: true });
    expect(found.map((f) => f.id)).toEqual(["directory/config", "directory/roles/imported"]);
    expect(skipped.find((k) => k.kind === "secrets:PluginCatalogEntry")?.why).toMatch(/^the token may not read it: /);
    const { program, config: values } = await writeProgram(found, { workspaces: [] });
    expect(program).toContain(`url: ${JSON.stringify(slapd().url)}`);
    expect(program).toContain('bindpass: config.requireSecret("directoryConfigBindpass")');
    expect(program).toContain("mount: directoryConfig.mount");
    expect(program).not.toContain(slapd().adminPassword);
    expect(values.map((v) => v.key)).toEqual(["directoryConfigBindpass"]);
  });


  it("getCredentials returns a password that binds; after rotateRole the previous one does not", async () => {
    const user = fresh("app");
    await slapd().addUsers([user]);
    await config();
    await created(ROLE, { name: "app", serviceAccountName: user });
    const first = await directory.getCredentials({ role: "app" });
    expect(await slapd().binds(slapd().userDn(user), first.currentPassword)).toBe(true);
    await directory.rotateRole({ name: "app" });
    const second = await directory.getCredentials({ role: "app" });
    expect(await slapd().binds(slapd().userDn(user), second.currentPassword)).toBe(true);
    expect(await slapd().binds(slapd().userDn(user), first.currentPassword)).toBe(false);
  });

  it("a CheckOut's password binds; deleting it checks the account in and the password stops working", async () => {
    const [a, b] = [fresh("lib"), fresh("lib")];
    await slapd().addUsers([a, b]);
    await config();
    await created(SET, { name: "pool", serviceAccountNames: [a, b], ttl: "1h" });
    const out = await created(OUT, { setName: "pool" });
    expect(out.outs.serviceAccountName).toBe(a);
    expect(await slapd().binds(slapd().userDn(a), out.outs.password as string)).toBe(true);
    await call(OUT, "delete", [out.id, out.outs]);
    expect(await slapd().binds(slapd().userDn(a), out.outs.password as string)).toBe(false);
  });

  it("after rotateRoot the service still binds, the old bind password does not, and an unrelated Config update keeps it that way", async () => {
    const user = fresh("root");
    await slapd().addUsers([user]);
    const cfg = await config();
    expect(await directory.rotateRoot()).toEqual({ rotated: true, warnings: [] });
    expect(await slapd().binds(slapd().adminDn, slapd().adminPassword)).toBe(false);
    // An unrelated change: the stale bindpass from the program is not sent, so the bind still works.
    const news = await checked(CONFIG, { ...cfg.inputs, ttl: "2h" }, cfg.outs);
    await call(CONFIG, "update", [cfg.id, cfg.outs, news]);
    expect(await slapd().binds(slapd().adminDn, slapd().adminPassword)).toBe(false);
    await created(ROLE, { name: "after-root", serviceAccountName: user });
    const creds = await directory.getCredentials({ role: "after-root" });
    expect(await slapd().binds(slapd().userDn(user), creds.currentPassword)).toBe(true);
    await setPassword(slapd(), slapd().adminDn, slapd().adminPassword);
  });
});
