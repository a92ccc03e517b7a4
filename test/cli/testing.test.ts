// pulumi-svc/testing's two engines agree (docs/testing.md): the same calls on the same inline
// program through the engine double and through the real CLI (the Automation API) give the same
// change summaries, steps (properties changed, replacement reasons and order), outputs (secrets
// marked) and one-line failures.
import { expect, it } from "vitest";
import { root } from "../support/dist";
import { openStacks, testStack, threeObjects, type testingTypes } from "../support/testing";
import { describeCli, installation } from "./cli";

const open = openStacks();
const program = threeObjects;

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
