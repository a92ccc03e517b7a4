// npm start's CLI branch for real: with `pulumi` on PATH it deploys the quickstart with the real
// CLI on a file backend in a temporary directory, against the emulator it starts itself.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, it } from "vitest";
import { root } from "../support/dist";
import { cliPath, describeCli } from "./cli";

function start(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "dist/src/scripts/start.js")], { cwd: root, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on("data", (d: Buffer) => { stderr += d.toString(); });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describeCli("npm start with the real Pulumi CLI on PATH", () => {
  it("deploys the quickstart with pulumi up on a temporary file backend and leaves nothing behind", async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith("SVC_") || k.startsWith("PULUMI_")) delete env[k];
    Object.assign(env, {
      PATH: cliPath(undefined, "/usr/bin:/bin"),
      PULUMI_HOME: fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-home-")),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    });
    try {
      const r = await start(env);
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toContain("Pulumi CLI found: running `pulumi up` on a local file backend in a temporary directory.");
      expect(r.stdout).toMatch(/\+ {2}pulumi-nodejs:dynamic\/secrets:TransformTemplate ssn created/);
      expect(r.stdout).toMatch(/hookVerified\s*: true/);
      expect(r.stdout).toMatch(/4 created/);
      expect(r.stdout).toContain("Quickstart deployed.");
      // The project file, config and backend lived in the temporary directory, now removed.
      expect(fs.existsSync(path.join(root, "Pulumi.dev.yaml"))).toBe(false);
    } finally {
      fs.rmSync(env.PULUMI_HOME!, { recursive: true, force: true });
    }
  });
});
