// Policy packs under the real CLI (docs/policy.md): `pulumi preview --policy-pack DIR`, each pack
// run by the official language host from its own folder. Kept to a few previews (CI's time):
// - one resource of every kind (the kind table) under a pack with a policy per class, through
//   @pulumi/policy's helpers and pulumi-svc/policy's: the CLI reports what testStack reports;
// - the example pack (examples/policy) on the quickstart: a mandatory violation fails the
//   preview, an advisory one warns, the pack's config file moves a threshold, and
//   pulumi-svc-review shows the violations of the preview's event log, mandatory first.
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";
import { main as reviewMain } from "../../src/review/cli";
import { root } from "../support/dist";
import { useEmulator } from "../support/emulator";
import { oneOfEachKind } from "../support/everyKind";
import { EVERY_CLASS_PACK, examplePack, packFolder } from "../support/policyPack";
import { openStacks, testStack, type testingTypes } from "../support/testing";
import { CliStack, describeCli, nameOf } from "./cli";

const { emu } = useEmulator({ secretsToken: "secretsRoot", reset: false });
const open = openStacks();
const PROGRAM = path.join(__dirname, "programs/policy");

interface Seen { policyName: string; enforcementLevel: string; name: string; message: string }
const brief = (v: Seen) => `${v.enforcementLevel} ${v.policyName} ${v.name}: ${v.message}`;

/** `pulumi preview` with the packs, its event log read back: the policy violations, and what the CLI printed. */
async function preview(stack: CliStack, args: string[]): Promise<{ code: number; json: string; events: string; violations: Seen[]; remediations: string[] }> {
  const log = path.join(stack.dir, `policy-events-${Date.now()}.jsonl`);
  const r = await stack.run(["preview", ...args, "--json", "--event-log", log]);
  const events = fs.existsSync(log) ? fs.readFileSync(log, "utf8") : "";
  const violations = events.split("\n").filter((l) => l.includes('"policyEvent"')).map((l) => {
    const e = (JSON.parse(l) as { policyEvent: { policyName: string; enforcementLevel: string; resourceUrn: string; message: string } }).policyEvent;
    return { policyName: e.policyName, enforcementLevel: e.enforcementLevel, name: nameOf(e.resourceUrn), message: e.message.replace(/\n$/, "") };
  });
  const remediations = events.split("\n").filter((l) => l.includes('"policyRemediationEvent"')).map((l) => {
    const e = (JSON.parse(l) as { policyRemediationEvent: { policyName: string; resourceUrn: string; before: Record<string, unknown>; after: Record<string, unknown> } }).policyRemediationEvent;
    const changed = Object.keys({ ...e.before, ...e.after }).filter((k) => !k.startsWith("__") && JSON.stringify(e.before[k]) !== JSON.stringify(e.after[k]));
    return `${e.policyName} ${nameOf(e.resourceUrn)}: ${changed.join(", ")}`;
  });
  return { code: r.code, json: r.stdout, events, violations, remediations };
}

const emulatorConfig = () => ({ config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl }, secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsRoot } });

describeCli("policy packs under the real CLI", () => {
  it("every kind: the CLI and testStack report the same violations of a pack with a policy per class", async () => {
    const cases = JSON.stringify(await oneOfEachKind(emu));
    const pack = packFolder({ "index.js": EVERY_CLASS_PACK }, "every-class");
    const { config, secretConfig } = emulatorConfig();
    const stack = await CliStack.create({ project: "policy", program: path.join(PROGRAM, "index.js"), config: { ...config, "policy:cases": cases }, secretConfig });
    try {
      const cli = await preview(stack, ["--policy-pack", pack]);
      expect(cli.code, cli.json).toBe(0);
      const double = await testStack({ dir: PROGRAM, emulator: emu, config: { "policy:cases": cases }, policyPacks: [pack] });
      open.push(double);
      const { policyViolations: found, policyRemediations } = await double.preview();
      // Three policies a kind (through @pulumi/policy's helper, ours, and a stack policy), each once.
      expect(found.length).toBe(3 * JSON.parse(cases).length);
      expect(cli.violations.map(brief).sort()).toEqual(found.map(brief).sort());
      // The remediation, made by both before the analyses (which saw the key's deletion turned off).
      expect(cli.remediations).toEqual(["remediate-key KeymgmtKey: deletionAllowed"]);
      expect(policyRemediations.map((r) => `${r.policyName} ${r.name}: ${r.changed.join(", ")}`)).toEqual(cli.remediations);
      expect(found.find((v) => v.policyName === "typed-secrets-KeymgmtKey")!.message).toContain('"deletionAllowed":false');
    } finally {
      stack.remove();
    }
  });

  it("the example pack on the quickstart: mandatory fails, advisory warns, its config moves a threshold; the review lists them, mandatory first", async () => {
    const pack = examplePack();
    const { config, secretConfig } = emulatorConfig();
    const quickstart = { "quickstart:hookUrl": "http://hooks.example.com/run", "quickstart:workspaceId": emu.workspaceId };
    // 30 characters: under the pack's default minLength (32), over its config file's (24).
    const tokens = { "quickstart:hookToken": "quickstart-policy-hook-token-1", "quickstart:hookToken2": "quickstart-policy-hook-token-2" };
    const stack = await CliStack.create({ project: "pulumi-svc-quickstart", program: { example: "quickstart" }, config: { ...config, ...quickstart }, secretConfig: { ...secretConfig, ...tokens } });
    try {
      const first = await preview(stack, ["--policy-pack", pack]);
      expect(first.code).not.toBe(0);
      expect(first.violations.map((v) => `${v.enforcementLevel} ${v.policyName} ${v.name}`).sort()).toEqual(["advisory notification-signing-token ci-hook", "mandatory notification-url-tls ci-hook"]);
      expect(first.violations.find((v) => v.policyName === "notification-signing-token")!.message).toMatch(/\nci: token of 30 characters, fewer than 32$/);

      // The same program and pack through testStack: the same violations.
      const double = await testStack({ dir: path.join(root, "examples/quickstart"), emulator: emu, config: { ...quickstart, "quickstart:hookToken": { secret: tokens["quickstart:hookToken"] }, "quickstart:hookToken2": { secret: tokens["quickstart:hookToken2"] } }, project: "pulumi-svc-quickstart", policyPacks: [pack] });
      open.push(double);
      const failed = await double.preview().then(() => undefined, (e: testingTypes.StackError) => e);
      expect(failed!.result.policyViolations.map(brief).sort()).toEqual(first.violations.map(brief).sort());

      const tuned = await preview(stack, ["--policy-pack", pack, "--policy-pack-config", path.join(pack, "policy-config.json")]);
      expect(tuned.violations.map((v) => `${v.enforcementLevel} ${v.policyName} ${v.name}`)).toEqual(["mandatory notification-url-tls ci-hook"]);

      const file = path.join(stack.dir, "preview.json");
      const events = path.join(stack.dir, "preview-events.jsonl");
      fs.writeFileSync(file, first.json);
      fs.writeFileSync(events, first.events);
      const reviewed = await reviewMain(["--policy", events, file]);
      expect(reviewed.code).toBe(3);
      const text = reviewed.out;
      expect(text).toContain("### ⛔ Policy violations: 1 mandatory, 1 advisory");
      expect(text.indexOf("⛔ **mandatory** `notification-url-tls` on `ci-hook`")).toBeGreaterThan(0);
      expect(text.indexOf("⛔ **mandatory** `notification-url-tls`")).toBeLessThan(text.indexOf("⚠️ advisory `notification-signing-token` on `ci-hook`"));
      for (const t of Object.values(tokens)) expect(text).not.toContain(t);
    } finally {
      stack.remove();
    }
  });
});
