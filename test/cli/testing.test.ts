// pulumi-svc/testing's two engines agree (docs/testing.md): the same calls on the same inline
// program through the engine double and through the real CLI (the Automation API) give the same
// change summaries, steps (properties changed, replacement reasons and order), outputs (secrets
// marked) and one-line failures.
import * as pulumi from "@pulumi/pulumi";
import { afterAll, expect, it } from "vitest";
import type * as svcTypes from "../../src";
import type * as testingTypes from "../../src/testing";
import { fromDist, root } from "../support/dist";
import { describeCli, installation } from "./cli";

const svc = fromDist<typeof svcTypes>("src/index.js");
const { testStack } = fromDist<typeof testingTypes>("src/testing/index.js");

const open: testingTypes.TestStack[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
});

const program = (prefix: string, pattern = "(\\d{4})-(\\d{4})") => () => {
  const digits = new svc.secrets.transform.Alphabet("digits", { name: `${prefix}-digits`, alphabet: "0123456789" });
  const tpl = new svc.secrets.transform.Template("tpl", { name: `${prefix}-tpl`, pattern, alphabet: digits.name });
  new svc.secrets.transform.FpeTransformation("card", { name: `${prefix}-card`, template: tpl.name, tweakSource: "internal", allowedRoles: ["payments"] });
  return { template: tpl.name, hookToken: new pulumi.Config().requireSecret("hookToken") };
};

const brief = (r: testingTypes.PreviewResult) => ({
  changes: r.changes,
  steps: r.steps.filter((s) => s.op !== "same").map((s) => ({ op: s.op, name: s.name, changed: s.changed, replaceReasons: s.replaceReasons, deleteBeforeReplace: s.deleteBeforeReplace })),
});

/** The same calls through one engine; what a test would assert on. */
async function scenario(engine: "double" | "cli"): Promise<Record<string, unknown>> {
  const stack = await testStack({ program: program(engine), config: { hookToken: { secret: "t0ken" } }, engine, cli: installation(), cwd: root });
  open.push(stack);
  const seen: Record<string, unknown> = {};
  const up = await stack.up();
  seen.up = { ...brief(up), outputs: up.outputs };
  seen.again = brief(await stack.preview());
  stack.setProgram(program(engine, "(\\d{4})-(\\d{6})"));
  seen.edit = brief(await stack.preview());
  stack.setProgram(program(`${engine}-renamed`));
  seen.renamed = brief(await stack.preview());
  stack.setProgram(program(engine, "no-group"));
  seen.failed = await stack.up().then(() => "no failure", (e: Error) => e.message);
  seen.destroy = brief(await stack.destroy());
  return JSON.parse(JSON.stringify(seen).replaceAll(engine, "<engine>")) as Record<string, unknown>;
}

describeCli("pulumi-svc/testing: the engine double and the real CLI", () => {
  it("agree on an up, a preview of no change, of an edit and of a rename, a failing up and a destroy", async () => {
    const [double, cli] = await Promise.all([scenario("double"), scenario("cli")]);
    expect(cli).toEqual(double);
    expect(double.up).toEqual({ changes: { create: 3 }, steps: expect.any(Array), outputs: { template: { value: "<engine>-tpl", secret: false }, hookToken: { value: "t0ken", secret: true } } });
    expect(double.edit).toEqual({ changes: { same: 2, update: 1 }, steps: [{ op: "update", name: "tpl", changed: ["pattern"], replaceReasons: [], deleteBeforeReplace: false }] });
    expect(double.failed).toBe("pulumi-nodejs:dynamic/secrets:TransformTemplate resource 'tpl' has a problem: pattern: must contain at least one capture group: the group selects the characters to transform");
  });
});
