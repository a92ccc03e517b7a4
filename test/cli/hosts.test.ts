// Our language host (langhost) against Pulumi's official one, where both can be had (the
// pinned CLI): which program a project runs, and what a program's exit code makes of the run. Every
// example's plans, operations, outputs, states and refused inputs are compared in test/cli/example.ts.
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, expect, it } from "vitest";
import { root } from "../support/dist";
import { CliStack, describeCli, type LangHost } from "./cli";

const HOSTS: LangHost[] = ["official", "ours"];
const stacks: CliStack[] = [];

afterAll(() => {
  for (const s of stacks) s.remove();
});

/** A temporary folder inside the checkout, where a program's require("@pulumi/pulumi") resolves. */
function checkoutFolder(): string {
  fs.mkdirSync(path.join(root, "test/.tmp"), { recursive: true });
  return fs.mkdtempSync(path.join(root, "test/.tmp/hosts-"));
}

describeCli("our language host against Pulumi's official one", () => {
  it("a project whose main is a folder runs what the nearest package.json names, on both", async () => {
    // With a package of its own.
    const dir = checkoutFolder();
    try {
      const program = (which: string) => `const pulumi = require("@pulumi/pulumi");\nmodule.exports = { which: pulumi.output(${JSON.stringify(which)}) };\n`;
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "hosts-main", main: "package-main.js" }));
      fs.writeFileSync(path.join(dir, "package-main.js"), program("the package's main"));
      fs.mkdirSync(path.join(dir, "folder"));
      fs.writeFileSync(path.join(dir, "folder/index.js"), program("the folder's index.js"));
      const ran: Record<string, unknown> = {};
      for (const host of HOSTS) {
        const s = await CliStack.create({ project: `hosts-main-${host}`, program: path.join(dir, "folder/index.js"), host });
        stacks.push(s);
        // As Pulumi.yaml's `main: folder` (CliStack writes the file it is given).
        fs.writeFileSync(path.join(s.dir, "Pulumi.yaml"), `name: hosts-main-${host}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: ${path.join(dir, "folder")}\n`);
        const up = await s.up();
        expect(up.code, up.text).toBe(0);
        ran[host] = (await s.outputs()).which;
      }
      // Our host once ran the folder's index.js here, and hid that every example deployed nothing
      // under the official one (docs/real-cli.md#which-language-host).
      expect(ran).toEqual({ official: "the package's main", ours: "the package's main" });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a program that exits with an error code, or with the runner's code for an error it has printed: the same on both", async () => {
    // What the host itself reports: the runner's exit code. (A program that throws is printed by the
    // runner, the same under any host; examples' checks that fail are compared in test/cli/example.ts.)
    const dir = checkoutFolder();
    try {
      const seen: Record<string, unknown> = {};
      for (const host of HOSTS) {
        const outcome: Record<string, unknown> = {};
        for (const code of [3, 32]) {
          const file = path.join(dir, `exit-${code}.js`);
          fs.writeFileSync(file, `require("@pulumi/pulumi");\nprocess.exit(${code});\n`);
          const s = await CliStack.create({ project: `hosts-exit-${host}-${code}`, program: file, host });
          stacks.push(s);
          const r = await s.run(["preview", "--json"]);
          const printed = JSON.parse(r.stdout) as { diagnostics?: { severity: string; message: string }[] };
          outcome[code] = { failed: r.code !== 0, errors: (printed.diagnostics ?? []).filter((d) => d.severity === "error").map((d) => d.message.trim()) };
        }
        seen[host] = outcome;
      }
      expect(seen.ours).toEqual(seen.official);
      expect(seen.official).toEqual({
        3: { failed: true, errors: [expect.stringContaining("Program exited with non-zero exit code: 3")] },
        32: { failed: true, errors: [] },
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}, "official");
