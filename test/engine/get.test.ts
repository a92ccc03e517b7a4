// `Class.get(name, id)` like every Pulumi provider's (docs/adopting.md, "Reading an object without
// managing it"), served by the engine double through pulumi-svc/testing as the real engine serves it
// (test/cli/engine-import.test.ts): only the id, typed to the class, `isInstance`, and an id that
// is a path naming the inputs its read needs.
import { describe, expect, it } from "vitest";
import type * as kindsTypes from "../../src/kinds";
import { fromDist } from "../support/dist";
import { seedEveryKind } from "../support/seed-import";
import { classOf, openStacks, svc, testStack } from "../support/testing";

const { KIND_NAMES, kindDefinition } = fromDist<typeof kindsTypes>("src/kinds.js");

/**
 * Kinds that can be read by their id but of which the import's seed (test/support/kindCases.ts)
 * makes no object, each with the reason. Every other kind of KIND_NAMES is read below, but those
 * whose definition says why they cannot be read (`unreadable`).
 */
const NOT_READ: Record<string, string> = {
  "runs:Run": "the import takes no run over (a run is history), so its seed makes none; a run's read is test/integration/runs-resource.test.ts's",
  "secrets:ReplicationPerformancePrimary": "the import takes no replication role over (enabling one is the resource's create), so its seed makes none",
  "secrets:ReplicationPerformanceSecondary": "the import takes no replication role over (activating a secondary wipes its data), so its seed makes none",
  "secrets:ReplicationPathsFilter": "a paths filter is keyed by the cluster id of a secondary activated against the primary, and a test's emulator has no secondary (docs/testing.md)",
};

/** Every kind that can be read by its id (its definition gives no reason why not). */
async function readableKinds(): Promise<string[]> {
  const out: string[] = [];
  for (const kind of KIND_NAMES) if (!(await kindDefinition(kind))!.unreadable) out.push(kind);
  return out;
}

type Read = { id: unknown } & Record<string, unknown>;
/** A kind's name without its service: the resource's name and its id's output. */
const short = (kind: string) => kind.split(":")[1]!;
const getOf = (kind: string) => classOf(kind) as unknown as { get(name: string, id: string): Read; isInstance(o: unknown): boolean };
const open = openStacks();

describe("get: a read resource by its id alone", { timeout: 180_000 }, () => {
  it("reads every kind by its id, writes nothing, follows the server and is discarded when dropped", async () => {
    const stack = await testStack({ program: () => ({}) });
    open.push(stack);
    const seeded = await seedEveryKind(stack.emulator);
    // Every readable kind is read, or said here why not; nothing else is listed.
    const readable = await readableKinds();
    for (const kind of readable) expect(kind in NOT_READ, `${kind}: no object of it is seeded (test/support/kindCases.ts), and NOT_READ gives no reason`).toBe(!(kind in seeded.ids));
    for (const kind of Object.keys(NOT_READ)) expect(readable, `NOT_READ names ${kind}, which cannot be read by its id anyway`).toContain(kind);
    const kinds = readable.filter((k) => !(k in NOT_READ));
    expect(kinds.length).toBeGreaterThanOrEqual(20);
    const key = "secrets:KeymgmtKey";
    const program = () => {
      const got = Object.fromEntries(kinds.map((kind) => [kind, getOf(kind).get(short(kind), seeded.ids[kind]!)])) as Record<string, Read>;
      const at = (kind: string, output: string) => got[kind]![output];
      return {
        ...Object.fromEntries(kinds.map((kind) => [short(kind), got[kind]!.id])),
        keyVersion: at(key, "latestVersion"), keyType: at(key, "type"), keyMount: at(key, "mount"),
        alphabetChars: at("secrets:TransformAlphabet", "alphabet"), templateAlphabet: at("secrets:TransformTemplate", "alphabet"),
        roleTransformations: at("secrets:TransformRole", "transformations"), distributionPurpose: at("secrets:KeymgmtKeyDistribution", "purpose"),
        aliasName: at("secrets:IdentityEntityAlias", "name"), hookName: at("runs:NotificationConfiguration", "name"), hookWorkspace: at("runs:NotificationConfiguration", "workspaceId"),
        methodHost: at("secrets:MfaDualFactorMethod", "apiHostname"), storeDriver: at("secrets:TransformStore", "driver"), bindDn: at("secrets:DirectoryConfig", "binddn"),
        roleAccount: at("secrets:DirectoryRole", "serviceAccountName"), setAccounts: at("secrets:DirectoryLibrarySet", "serviceAccountNames"),
        isKey: getOf(key).isInstance(got[key]), alphabetIsKey: getOf(key).isInstance(got["secrets:TransformAlphabet"]), plainIsKey: getOf(key).isInstance({}),
      };
    };
    stack.setProgram(program);
    await stack.control("DELETE", "/requests");
    const up = await stack.up();
    expect(up.changes).toEqual({ read: kinds.length });
    const writes = (await stack.control("GET", "/requests")).requests.filter((q: { method: string }) => !["GET", "LIST"].includes(q.method));
    expect(writes).toEqual([]);
    const value = (name: string) => up.outputs[name]?.value;
    // Each read resource's id is the id it was given.
    for (const kind of kinds) expect(value(short(kind)), kind).toBe(seeded.ids[kind]);
    expect(value("KeymgmtKey")).toBe("keymgmt/key/signing");
    expect(value("NotificationConfiguration")).toBe(seeded.hookId);
    expect([value("keyVersion"), value("keyType"), value("keyMount")]).toEqual([2, "ecdsa-p256", "keymgmt"]);
    expect([value("alphabetChars"), value("templateAlphabet"), value("roleTransformations")]).toEqual(["0123456789abcdef", "hexits", ["account-fpe", "card-token", "ssn-mask"]]);
    expect([value("distributionPurpose"), value("aliasName"), value("hookName"), value("hookWorkspace"), value("methodHost")])
      .toEqual([["sign", "verify"], "carol", "ci-hook", stack.emulator.workspaceId, "api-1234abcd.example.com"]);
    expect([value("storeDriver"), value("bindDn"), value("roleAccount"), value("setAccounts")]).toEqual(["mysql", "cn=admin,dc=example,dc=org", "svc-app", ["lib-a", "lib-b"]]);
    expect([value("isKey"), value("alphabetIsKey"), value("plainIsKey")]).toEqual([true, false, false]);

    // A preview reads again; a change on the server shows in the next up's outputs.
    expect((await stack.preview()).changes).toEqual({ read: kinds.length });
    expect((await stack.request("secrets", "POST", "/keymgmt/key/signing/rotate")).status).toBe(204);
    expect((await stack.up()).outputs.keyVersion).toEqual({ value: 3, secret: false });

    // A refresh reads each as what it is, and keeps it.
    expect((await stack.refresh()).changes).toEqual({ refresh: kinds.length });

    // Dropped from the program: left out of the state, the objects stay.
    stack.setProgram(() => ({}));
    expect((await stack.up()).changes).toEqual({ discard: kinds.length });
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
