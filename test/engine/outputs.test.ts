// Every output a resource class declares exists when the program leaves its input out, carries the
// value the provider settled on (a default included), and a reference to it orders its dependents
// (docs/architecture.md, "Outputs"): a role given `mount: config.mount` waits for the config, on a
// directory mount with no config yet, and is deleted before it.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { openStacks, svc, testStack } from "../support/testing";

const open = openStacks();

const program = () => {
  // Every input with a default left out: mount, ttl and the rest come from the provider.
  const dc = new svc.secrets.directory.Config("dc", { binddn: "cn=admin,dc=example,dc=org", bindpass: "pw", url: "ldap://127.0.0.1:1" });
  new svc.secrets.directory.Role("role", { mount: dc.mount, name: "app", serviceAccountName: "svc-app" });
  const key = new svc.secrets.keymgmt.Key("key", { name: "signing", deletionAllowed: true });
  return { mount: dc.mount, ttl: dc.ttl, starttls: dc.starttls, keyType: key.type, keyMount: key.mount, deletionAllowed: key.deletionAllowed };
};

describe("outputs of inputs the program left out", { timeout: 120_000 }, () => {
  it("exist with the provider's values and order what refers to them: a role waits for its mount's config", async () => {
    const stack = await testStack({ program });
    open.push(stack);
    await stack.control("POST", "/directory/accounts", { accounts: ["svc-app"] });
    const up = await stack.up();
    expect(up.changes).toEqual({ create: 3 });
    const value = (k: string) => up.outputs[k]?.value;
    expect([value("mount"), value("keyMount"), value("keyType"), value("deletionAllowed"), value("starttls")]).toEqual(["directory", "keymgmt", "rsa-2048", true, false]);
    expect(typeof value("ttl")).toBe("number");
    // The engine records the reference as a dependency: the role after the config, and before it on destroy.
    const { resources } = JSON.parse(fs.readFileSync(path.join(stack.dir, "stack.json"), "utf8")) as { resources: { urn: string; dependencies?: string[] }[] };
    const urnOf = (name: string) => resources.find((r) => r.urn.endsWith(`::${name}`))!.urn;
    expect(resources.find((r) => r.urn === urnOf("role"))!.dependencies).toEqual([urnOf("dc")]);
    expect((await stack.preview()).changes).toEqual({ same: 3 });
    expect((await stack.destroy()).changes).toEqual({ delete: 3 });
  });
});
