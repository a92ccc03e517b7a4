// Our language host (scripts/langhost) against Pulumi's official one, where both can be had (the
// pinned CLI): which program a project runs, and the errors a user sees. Every example's plans,
// operations, outputs, states and errors without its config are compared in test/cli/example.ts.
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { root } from "../support/dist";
import { CliStack, describeCli, type LangHost } from "./cli";

const HOSTS: LangHost[] = ["official", "ours"];
let emu: Emulator;
const stacks: CliStack[] = [];

beforeAll(async () => {
  emu = await startEmulator();
});

afterAll(async () => {
  for (const s of stacks) s.remove();
  await emu?.close();
});

/** The errors of a preview, as the CLI reports them (each diagnostic of severity error). */
async function previewErrors(stack: CliStack): Promise<string[]> {
  const r = await stack.run(["preview", "--json"]);
  expect(r.code, r.stdout + r.stderr).not.toBe(0);
  const printed = JSON.parse(r.stdout) as { diagnostics?: { severity: string; message: string }[] };
  return (printed.diagnostics ?? []).filter((d) => d.severity === "error").map((d) => d.message.trim());
}

describeCli("our language host against Pulumi's official one", () => {
  it("a project whose main is a folder runs what the nearest package.json names, on both", async () => {
    // A folder inside the checkout (so @pulumi/pulumi resolves) with a package of its own.
    fs.mkdirSync(path.join(root, "test/.tmp"), { recursive: true });
    const dir = fs.mkdtempSync(path.join(root, "test/.tmp/hosts-"));
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

  it("a program that throws (a config value missing) and an input the provider refuses: the same errors on both", async () => {
    const seen: Record<string, string[][]> = {};
    for (const host of HOSTS) {
      const s = await CliStack.create({
        project: `hosts-errors-${host}`, program: { example: "quickstart" }, host,
        config: { "svc:runUrl": emu.runUrl, "svc:secretsUrl": emu.secretsUrl },
        secretConfig: { "svc:runToken": emu.tokens.runAdmin, "svc:secretsToken": emu.tokens.secretsUser, "quickstart:hookToken": "hosts-hook-token-0001" },
      });
      stacks.push(s);
      const thrown = await previewErrors(s);
      await s.setConfig({ "quickstart:hookUrl": "ftp://hooks.example.com" });
      const refused = await previewErrors(s);
      seen[host] = [thrown, refused];
    }
    expect(seen.ours).toEqual(seen.official);
    const [thrown, refused] = seen.official!;
    expect(thrown!.join("\n")).toContain("Missing required configuration variable 'quickstart:hookUrl'");
    expect(refused!.join("\n")).toContain("property url value {ftp://hooks.example.com} has a problem: must be an http or https URL");
  });
}, "official");
