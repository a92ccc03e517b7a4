// Policy packs through pulumi-svc/testing's engine double (docs/policy.md, "Testing a program
// against a pack"): the pack runs from its folder as the CLI's language host runs it, and is
// configured and called as the engine calls it. test/cli/policy.test.ts holds the double to the CLI.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { versionKeys } from "../../src/core/versions";
import { kindDefinition } from "../../src/kinds";
import { useEmulator } from "../support/emulator";
import { oneOfEachKind } from "../support/everyKind";
import { EVERY_CLASS_PACK, examplePack, packFolder, READY_PACK } from "../support/policyPack";
import { openStacks, svc, testStack, type testingTypes } from "../support/testing";

const { emu } = useEmulator({ secretsToken: "secretsRoot" });
const open = openStacks();
const PROGRAM = path.join(__dirname, "../cli/programs/policy");

/** What a policy of the every-class pack reported: the JSON after the description's line. */
const said = (v: testingTypes.PolicyViolation) => JSON.parse(v.message.slice(v.message.indexOf("\n") + 1)) as { type: string; keys: string[]; props: Record<string, unknown> };

/** The texts of a resource's secret inputs, as the kind's field record declares them. */
async function secretTexts(kind: string, inputs: Record<string, unknown>): Promise<string[]> {
  const def = (await kindDefinition(kind))!;
  const texts = (v: unknown): string[] => (typeof v === "string" ? [v] : v && typeof v === "object" ? Object.values(v).flatMap(texts) : []);
  return Object.entries(def.fields ?? {}).filter(([, f]) => f.flags.secret).flatMap(([k]) => texts(inputs[k]));
}

describe("policy packs in testStack", { timeout: 240_000 }, () => {
  it("every class matches its own resources, through @pulumi/policy's helpers and pulumi-svc/policy's; ours give the arguments alone, secrets masked", async () => {
    const cases = await oneOfEachKind(emu);
    const stack = await testStack({ dir: PROGRAM, emulator: emu, config: { "policy:cases": JSON.stringify(cases) }, policyPacks: [packFolder({ "index.js": EVERY_CLASS_PACK }, "every-class")] });
    open.push(stack);
    const { policyViolations: found } = await stack.preview();
    let versionsSeen = 0;
    for (const c of cases) {
      const of = (prefix: string) => found.filter((v) => v.policyName === `${prefix}-${c.kind.replace(":", "-")}`);
      // Each class's policy ran on its own resource and on no other.
      expect(of("raw").map((v) => v.name), c.kind).toEqual([c.name]);
      expect(of("typed").map((v) => v.name), c.kind).toEqual([c.name]);
      const raw = said(of("raw")[0]!);
      const typed = said(of("typed")[0]!);
      expect(raw.type).toBe(`pulumi-nodejs:dynamic/${c.kind}`);
      // The engine holds more than the arguments; pulumi-svc/policy's props are the class's arguments.
      const def = (await kindDefinition(c.kind))!;
      const argNames = new Set([...Object.entries(def.fields ?? {}).filter(([, f]) => !f.flags.output).map(([k]) => k), "connection"]);
      expect(raw.keys, c.kind).toContain("serverUrl");
      expect(typed.keys, c.kind).toEqual(raw.keys.filter((k) => argNames.has(k)));
      const bookkeeping = new Set(["serverUrl", ...versionKeys(def.fields)]);
      versionsSeen += raw.keys.filter((k) => bookkeeping.has(k) && k !== "serverUrl").length;
      expect(typed.keys.filter((k) => bookkeeping.has(k) || k.startsWith("__")), c.kind).toEqual([]);
      for (const s of await secretTexts(c.kind, c.inputs)) {
        expect(of("raw")[0]!.message, `${c.kind}: @pulumi/policy's props hold the secret as given`).toContain(s);
        expect(of("typed")[0]!.message, `${c.kind}: masked`).not.toContain(s);
      }
      // The stack policy of the class saw its one resource, with the same arguments.
      const stackSaid = found.filter((v) => v.policyName === `stack-${c.kind.replace(":", "-")}`);
      expect(stackSaid.map((v) => JSON.parse(v.message.slice(v.message.indexOf("\n") + 1)).n), c.kind).toEqual([1]);
    }
    // Some kinds do have secret inputs (and so their versions), so the masking and hiding above were put to the test.
    expect(versionsSeen).toBeGreaterThan(3);
    expect((await Promise.all(cases.map((c) => secretTexts(c.kind, c.inputs)))).flat().length).toBeGreaterThan(5);
  });

  it("the example pack: a mandatory violation fails the preview, an advisory one warns, and its config file moves a threshold and remediates", async () => {
    const pack = examplePack();
    const program = () => {
      new svc.runs.NotificationConfiguration("hook", { workspaceId: emu.workspaceId, name: "ci", destinationType: "generic", url: "http://hooks.example.com/run", token: "t".repeat(28), triggers: ["run:completed"] });
      new svc.secrets.keymgmt.Key("signing", { name: "signing", type: "ecdsa-p256", deletionAllowed: true });
    };
    const stack = await testStack({ program, emulator: emu, policyPacks: [pack] });
    open.push(stack);
    const failed = await stack.preview().then(() => undefined, (e: testingTypes.StackError) => e);
    expect(failed?.message).toBe("preview failed: a mandatory policy was violated");
    const levels = (r: testingTypes.PreviewResult) => r.policyViolations.map((v) => `${v.enforcementLevel} ${v.policyName} ${v.name}`).sort();
    expect(levels(failed!.result)).toEqual(["advisory key-deletion-allowed signing", "advisory notification-signing-token hook", "mandatory notification-url-tls hook"]);
    expect(failed!.result.policyViolations.find((v) => v.policyName === "notification-signing-token")!.message).toMatch(/\nci: token of 28 characters, fewer than 32$/);

    // The pack's config file: minLength 24 (the token passes), the key's deletion remediated.
    const configured = await testStack({ program, emulator: emu, policyPacks: [pack], policyPackConfigs: [path.join(pack, "policy-config.json")] });
    open.push(configured);
    const again = await configured.preview().then(() => undefined, (e: testingTypes.StackError) => e);
    expect(levels(again!.result)).toEqual(["mandatory notification-url-tls hook"]);
    expect(again!.result.policyRemediations.map((r) => [r.policyName, r.name, r.changed])).toEqual([["key-deletion-allowed", "signing", ["deletionAllowed"]]]);
  });

  it("an up stops at a mandatory violation before the resource is made, and applies remediations to what it creates", async () => {
    const config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-policy-config-")), "config.json");
    fs.writeFileSync(config, JSON.stringify({ "key-deletion-allowed": "remediate", "tokenization-exportable": "mandatory" }));
    const stack = await testStack({
      program: () => {
        new svc.secrets.keymgmt.Key("signing", { name: "signing", type: "ecdsa-p256", deletionAllowed: true });
        new svc.secrets.transform.TokenizationTransformation("cards", { name: "cards", mappingMode: "exportable", maxTtl: "24h" });
      },
      emulator: emu, policyPacks: [packFolder({ "index.js": READY_PACK }, "svc-guard")], policyPackConfigs: [config],
    });
    open.push(stack);
    const failed = await stack.up().then(() => undefined, (e: testingTypes.StackError) => e);
    expect(failed?.message).toContain("mandatory policy violation: tokenization-exportable (svc-guard)");
    expect((await stack.request("secrets", "GET", "/transform/transformation/cards")).status).toBe(404);
    // The key before it was made as remediated: its deletion not allowed.
    expect((await stack.request("secrets", "GET", "/keymgmt/key/signing")).body.data.deletion_allowed).toBe(false);
    fs.rmSync(path.dirname(config), { recursive: true, force: true });
  });

  it("a config the pack's schemas refuse stops the operation, naming the policy", async () => {
    const config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-policy-config-")), "config.json");
    fs.writeFileSync(config, JSON.stringify({ "library-set-ttl": { maximum: "a day" } }));
    const stack = await testStack({ program: () => undefined, emulator: emu, policyPacks: [packFolder({ "index.js": READY_PACK }, "svc-guard")], policyPackConfigs: [config] });
    open.push(stack);
    await expect(stack.preview()).rejects.toThrow(/validating policy config: svc-guard 1\.0\.0 +library-set-ttl: maximum: Does not match pattern/);
    fs.rmSync(path.dirname(config), { recursive: true, force: true });
  });
});
