// The Automation API under the real Pulumi CLI (docs/scale.md#the-automation-api): one Node process
// drives two inline-program stacks at once and a local program, with pulumi-svc installed under
// node_modules as users have it. The driver is test/cli/programs/automation/drive.js.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { installedProject } from "../../src/engine/installed";
import { secretsApi } from "../support/emulator";
import { cliDir, describeCli, langhostDir, sdkDir } from "./cli";

let emu: Emulator;
let project: { dir: string; remove(): void };

beforeAll(async () => {
  emu = await startEmulator();
});

afterAll(async () => {
  project?.remove();
  await emu?.close();
});

function drive(): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = project.dir;
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("SVC_") && !k.startsWith("PULUMI_")));
  env.PATH = [cliDir!, langhostDir, sdkDir, path.dirname(process.execPath), process.env.PATH].join(path.delimiter);
  const emulator = { secretsUrl: emu.secretsUrl, secretsToken: emu.tokens.secretsUser, runUrl: emu.runUrl, runToken: emu.tokens.runAdmin };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(dir, "drive.js"), cliDir!, dir, JSON.stringify(emulator)], { cwd: dir, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on("data", (d: Buffer) => { stderr += d.toString(); });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describeCli("the Automation API under the real Pulumi CLI", () => {
  it("inline programs (two stacks at once in one process) and a local program: preview, up with outputs, refresh, destroy", async () => {
    project = installedProject("pulumi-svc-automation-");
    const programs = path.join(__dirname, "programs");
    fs.copyFileSync(path.join(programs, "automation/drive.js"), path.join(project.dir, "drive.js"));
    for (const name of ["inline-one", "inline-two", "local"]) fs.mkdirSync(path.join(project.dir, name));
    fs.copyFileSync(path.join(programs, "behaviours/index.js"), path.join(project.dir, "local/index.js"));
    fs.writeFileSync(path.join(project.dir, "local/Pulumi.yaml"), "name: auto-local\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n");

    const r = await drive();
    expect(r.code, r.stderr).toBe(0);
    const seen = JSON.parse(r.stdout.trim().split("\n").pop()!);
    for (const name of ["one", "two"]) {
      expect(seen[name]).toEqual({
        preview: { create: 3 },
        up: { create: 3 },
        outputs: { alphabet: `${name}-digits`, template: `${name}-tpl`, serverUrl: emu.secretsUrl, secretsUrl: emu.secretsUrl },
        provider: expect.any(String),
        refresh: { same: 3 },
        destroy: { delete: 3 },
      });
    }
    expect(seen.local).toEqual({ preview: { create: 4 }, up: { create: 4 }, outputs: {}, provider: expect.any(String), refresh: { same: 4 }, destroy: { delete: 4 } });
    // The serialized provider each resource's state keeps: a require of the installed module, a few
    // hundred characters, nothing the inline program captured (its closure holds the token).
    for (const stack of [seen.one, seen.two, seen.local]) {
      expect(stack.provider).toContain('require("pulumi-svc/dist/src/providers/secrets/TransformAlphabet.js")');
      expect(stack.provider.length).toBeLessThan(1000);
      expect(stack.provider).not.toContain(emu.tokens.secretsUser);
    }
    // Everything the three stacks made is gone again.
    expect((await secretsApi(emu, "LIST", "/transform/alphabet")).status).toBe(404);
    expect((await secretsApi(emu, "LIST", "/transform/template")).status).toBe(404);
  }, 600_000);
});
