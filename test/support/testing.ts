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

/** The package's resource class of `kind` (`secrets:TransformAlphabet`), as a program constructs it. */
export function classOf(kind: string): new (name: string, args: object, opts?: pulumi.CustomResourceOptions) => pulumi.CustomResource {
  const token = `pulumi-nodejs:dynamic/${kind}`;
  const visit = (o: object, depth: number): unknown => {
    for (const v of Object.values(o)) {
      if (typeof v === "function" && typeof (v as { isInstance?: unknown }).isInstance === "function" && "get" in v &&
        (v as { isInstance(x: unknown): boolean }).isInstance({ __pulumiType: token })) return v;
      if (v !== null && typeof v === "object" && depth < 3) {
        const found = visit(v, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  const cls = visit(svc, 0);
  if (!cls) throw new Error(`the package exports no class of ${kind}`);
  return cls as new (name: string, args: object, opts?: pulumi.CustomResourceOptions) => pulumi.CustomResource;
}
