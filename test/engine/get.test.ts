// `Class.get(name, id)` like every Pulumi provider's (docs/adopting.md, "Reading an object without
// managing it"), served by the engine double through pulumi-svc/testing as the real engine serves it
// (test/cli/engine-import.test.ts): only the id, typed to the class, `isInstance`, and an id that
// is a path naming the inputs its read needs.
import { describe, expect, it } from "vitest";
import { seedEveryKind } from "../support/seed-import";
import { openStacks, svc, testStack } from "../support/testing";

const open = openStacks();

describe("get: a read resource by its id alone", { timeout: 180_000 }, () => {
  it("reads every importable kind by its id, writes nothing, follows the server and is discarded when dropped", async () => {
    const stack = await testStack({ program: () => ({}) });
    open.push(stack);
    const seeded = await seedEveryKind(stack.emulator);
    const t = svc.secrets.transform;
    const k = svc.secrets.keymgmt;
    const program = () => {
      const key = k.Key.get("key", "keymgmt/key/signing");
      const got = {
        alphabet: t.Alphabet.get("alphabet", "transform/alphabet/hexits"),
        template: t.Template.get("template", "transform/template/account"),
        fpe: t.FpeTransformation.get("fpe", "transform/transformation/account-fpe"),
        masking: t.MaskingTransformation.get("masking", "transform/transformation/ssn-mask"),
        tokenization: t.TokenizationTransformation.get("tokenization", "transform/transformation/card-token"),
        keyConfig: t.TokenizationKeyConfig.get("key-config", "transform/tokenization/keys/card-token"),
        role: t.Role.get("role", "transform/role/payments"),
        key,
        kms: k.KmsProvider.get("kms", "keymgmt/kms/aws-east"),
        distribution: k.KeyDistribution.get("distribution", "keymgmt/kms/aws-east/key/signing"),
        plugin: svc.secrets.plugins.CatalogEntry.get("plugin", "sys/plugins/catalog/database/acme-db"),
        access: svc.secrets.registry.AccessConfig.get("access", "registry/config/access"),
        registryRole: svc.secrets.registry.Role.get("registry-role", "registry/roles/deployer"),
        alias: svc.secrets.identity.EntityAlias.get("alias", seeded.aliasId),
        method: svc.secrets.mfa.DualFactorMethod.get("method", seeded.methodId),
        hook: svc.runs.NotificationConfiguration.get("hook", seeded.hookId),
        store: t.Store.get("store", "transform/stores/tokens-db"),
        directoryConfig: svc.secrets.directory.Config.get("directory-config", "directory/config"),
        directoryRole: svc.secrets.directory.Role.get("directory-role", "directory/roles/app"),
        librarySet: svc.secrets.directory.LibrarySet.get("library-set", "directory/library/pool"),
      };
      return {
        ...Object.fromEntries(Object.entries(got).map(([n, r]) => [n, r.id])),
        keyVersion: key.latestVersion, keyType: key.type, keyMount: key.mount,
        alphabetChars: got.alphabet.alphabet, templateAlphabet: got.template.alphabet, roleTransformations: got.role.transformations,
        distributionPurpose: got.distribution.purpose, aliasName: got.alias.name, hookName: got.hook.name, hookWorkspace: got.hook.workspaceId,
        methodHost: got.method.apiHostname, storeDriver: got.store.driver, bindDn: got.directoryConfig.binddn,
        roleAccount: got.directoryRole.serviceAccountName, setAccounts: got.librarySet.serviceAccountNames,
        isKey: k.Key.isInstance(key), alphabetIsKey: k.Key.isInstance(got.alphabet), plainIsKey: k.Key.isInstance({}),
      };
    };
    stack.setProgram(program);
    await stack.control("DELETE", "/requests");
    const up = await stack.up();
    expect(up.changes).toEqual({ read: 20 });
    const writes = (await stack.control("GET", "/requests")).requests.filter((q: { method: string }) => !["GET", "LIST"].includes(q.method));
    expect(writes).toEqual([]);
    const value = (name: string) => up.outputs[name]?.value;
    expect(value("key")).toBe("keymgmt/key/signing");
    expect(value("hook")).toBe(seeded.hookId);
    expect([value("keyVersion"), value("keyType"), value("keyMount")]).toEqual([2, "ecdsa-p256", "keymgmt"]);
    expect([value("alphabetChars"), value("templateAlphabet"), value("roleTransformations")]).toEqual(["0123456789abcdef", "hexits", ["account-fpe", "card-token", "ssn-mask"]]);
    expect([value("distributionPurpose"), value("aliasName"), value("hookName"), value("hookWorkspace"), value("methodHost")])
      .toEqual([["sign", "verify"], "carol", "ci-hook", stack.emulator.workspaceId, "api-1234abcd.example.com"]);
    expect([value("storeDriver"), value("bindDn"), value("roleAccount"), value("setAccounts")]).toEqual(["mysql", "cn=admin,dc=example,dc=org", "svc-app", ["lib-a", "lib-b"]]);
    expect([value("isKey"), value("alphabetIsKey"), value("plainIsKey")]).toEqual([true, false, false]);

    // A preview reads again; a change on the server shows in the next up's outputs.
    expect((await stack.preview()).changes).toEqual({ read: 20 });
    expect((await stack.request("secrets", "POST", "/keymgmt/key/signing/rotate")).status).toBe(204);
    expect((await stack.up()).outputs.keyVersion).toEqual({ value: 3, secret: false });

    // A refresh reads each as what it is, and keeps it.
    expect((await stack.refresh()).changes).toEqual({ refresh: 20 });

    // Dropped from the program: left out of the state, the objects stay.
    stack.setProgram(() => ({}));
    expect((await stack.up()).changes).toEqual({ discard: 20 });
    expect((await stack.request("secrets", "GET", "/keymgmt/key/signing")).status).toBe(200);
    expect((await stack.destroy()).changes).toEqual({});
  });

  it("names what is wrong: an id that is no such path, an input the id contradicts, an object that is not there, a kind with nothing to read", async () => {
    const stack = await testStack({ program: () => ({}) });
    open.push(stack);
    expect((await stack.request("secrets", "POST", "/transform/alphabet/digits", { alphabet: "0123456789" })).status).toBe(204);
    const fails = async (program: () => unknown) => {
      stack.setProgram(program);
      return ((await stack.up().catch((e: Error) => e)) as Error).message;
    };
    expect(await fails(() => svc.secrets.transform.Alphabet.get("a", "digits")))
      .toContain('id "digits" is not the path of a TransformAlphabet: its id has the form {mount}/alphabet/{name}');
    expect(await fails(() => svc.secrets.transform.Alphabet.get("a", "transform/alphabet/digits", { name: "other" })))
      .toContain('id "transform/alphabet/digits" names name "digits", the program gives "other": a read resource reads the object its id names, so give the same name or leave it out');
    expect(await fails(() => svc.secrets.transform.Alphabet.get("a", "transform/alphabet/gone")))
      .toContain("there is no TransformAlphabet with the id transform/alphabet/gone on the server");
    expect(await fails(() => svc.runs.NotificationConfiguration.get("nc", "nc-notthere00000000")))
      .toContain("there is no NotificationConfiguration with the id nc-notthere00000000 on the server (or the token cannot see it");
    expect(await fails(() => svc.secrets.directory.CheckOut.get("c", "lease-1")))
      .toContain('secrets:DirectoryCheckOut "c": cannot be read by its id: a check-out is a lease held by the stack that took it');
    // Inputs that agree with the id, and a mount that is not the default: read.
    await stack.control("POST", "/mounts", { path: "teams/transform", type: "transform" });
    expect((await stack.request("secrets", "POST", "/teams/transform/alphabet/hex", { alphabet: "0123456789abcdef" })).status).toBe(204);
    stack.setProgram(() => ({
      a: svc.secrets.transform.Alphabet.get("a", "transform/alphabet/digits", { name: "digits", mount: "transform" }).alphabet,
      b: svc.secrets.transform.Alphabet.get("b", "teams/transform/alphabet/hex").mount,
    }));
    const up = await stack.up();
    expect(up.outputs).toEqual({ a: { value: "0123456789", secret: false }, b: { value: "teams/transform", secret: false } });
    // Nothing was recorded of the failed ones.
    expect(up.changes).toEqual({ read: 2 });
  });
});

// Checked by the type check (npm run typecheck), never run: get returns its own class, takes the
// class's arguments as its optional state and needs only the id; isInstance narrows to the class.
export function typesOfGet(anything: unknown): void {
  const key: InstanceType<typeof svc.secrets.keymgmt.Key> = svc.secrets.keymgmt.Key.get("k", "keymgmt/key/k");
  svc.secrets.keymgmt.Key.get("k", "keymgmt/key/k", { mount: "keymgmt", connection: { url: "https://secrets.example.com/v1" } }, { protect: false });
  // @ts-expect-error an argument a Key does not have
  svc.secrets.keymgmt.Key.get("k", "keymgmt/key/k", { nmae: "k" });
  // @ts-expect-error a Key is no Alphabet
  const alphabet: InstanceType<typeof svc.secrets.transform.Alphabet> = svc.secrets.keymgmt.Key.get("k", "keymgmt/key/k");
  if (svc.secrets.keymgmt.Key.isInstance(anything)) void anything.latestVersion;
  void key;
  void alphabet;
}
