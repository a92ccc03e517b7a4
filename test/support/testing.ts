// What both tests of pulumi-svc/testing (test/engine/testing.test.ts, test/cli/testing.test.ts) use:
// the built package as users load it, the stacks a file opened (closed after it), and one program.
import * as pulumi from "@pulumi/pulumi";
import { afterAll } from "vitest";
import type * as svcTypes from "../../src";
import type * as testingTypes from "../../src/testing";
import { fromDist } from "./dist";

export const svc = fromDist<typeof svcTypes>("src/index.js");
export const { testStack } = fromDist<typeof testingTypes>("src/testing/index.js");
export type { testingTypes };

/** The stacks a test file opens; each is closed after the file. */
export function openStacks(): testingTypes.TestStack[] {
  const open: testingTypes.TestStack[] = [];
  afterAll(async () => {
    for (const s of open.splice(0)) await s.close();
  });
  return open;
}

/** Three transform objects, each named after `prefix`; `pattern` is the template's. Outputs the template's name and a secret of config. */
export const threeObjects = (prefix: string, pattern = "(\\d{4})-(\\d{4})") => () => {
  const digits = new svc.secrets.transform.Alphabet("digits", { name: `${prefix}-digits`, alphabet: "0123456789" });
  const tpl = new svc.secrets.transform.Template("tpl", { name: `${prefix}-tpl`, pattern, alphabet: digits.name });
  new svc.secrets.transform.FpeTransformation("card", { name: `${prefix}-card`, template: tpl.name, tweakSource: "internal", allowedRoles: ["payments"] });
  return { template: tpl.name, hookToken: new pulumi.Config().requireSecret("hookToken") };
};
