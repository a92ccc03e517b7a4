// The Automation API under the real Pulumi CLI (docs/scale.md#the-automation-api): two Node processes
// at once, one driving two inline-program stacks at once, the other an inline stack and a local
// program at once, against one emulator and one file backend, with pulumi-svc installed under
// node_modules as users have it. The driver is test/cli/programs/automation/drive.js.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, expect, it } from "vitest";
import { installedProject } from "../../src/engine/installed";
import { secretsApi, useEmulator } from "../support/emulator";
import { cliPath, describeCli, installation } from "./cli";

const { emu } = useEmulator({ reset: false, env: false });
let project: { dir: string; remove(): void };

afterAll(async () => {
  project?.remove();
});

function drive(stacks: string[]): Promise<{ code: number; stdout: string; stderr: string; seconds: number }> {
  const dir = project.dir;
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("SVC_") && !k.startsWith("PULUMI_")));
  env.PATH = cliPath();
  const emulator = { secretsUrl: emu.secretsUrl, secretsToken: emu.tokens.secretsUser, runUrl: emu.runUrl, runToken: emu.tokens.runAdmin };
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(dir, "drive.js"), installation(), dir, JSON.stringify(emulator), stacks.join(",")], { cwd: dir, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on("data", (d: Buffer) => { stderr += d.toString(); });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr, seconds: (Date.now() - started) / 1000 }));
  });
}

describeCli("the Automation API under the real Pulumi CLI", () => {
  it("two processes at once, one backend: inline programs (two stacks at once in one process, an inline and a local program in the other): preview, up with outputs, refresh, destroy", async () => {
    project = installedProject("pulumi-svc-automation-");
    const programs = path.join(__dirname, "programs");
    fs.copyFileSync(path.join(programs, "automation/drive.js"), path.join(project.dir, "drive.js"));
    for (const name of ["inline-one", "inline-two", "inline-three", "local"]) fs.mkdirSync(path.join(project.dir, name));
    fs.copyFileSync(path.join(programs, "behaviours/index.js"), path.join(project.dir, "local/index.js"));
    fs.writeFileSync(path.join(project.dir, "local/Pulumi.yaml"), "name: auto-local\nruntime:\n  name: nodejs\n  options:\n    typescript: false\n");

    // Both started before either is awaited: each has its own engines, provider hosts and limits.
    const runs = await Promise.all([drive(["one", "two"]), drive(["three", "local"])]);
    console.log(`Automation API: two processes at once took ${runs.map((r) => `${r.seconds.toFixed(0)} s`).join(" and ")}`);
    const seen: Record<string, any> = {};
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      Object.assign(seen, JSON.parse(r.stdout.trim().split("\n").pop()!));
    }
    for (const name of ["one", "two", "three"]) {
      expect(seen[name]).toEqual({
        preview: { create: 3 },
        up: { create: 3 },
        outputs: { alphabet: `${name}-digits`, template: `${name}-tpl`, serverUrl: emu.secretsUrl, secretsUrl: emu.secretsUrl },
        provider: expect.any(String),
        source: expect.stringMatching(/\/drive\.js#\d+,\d+$/),
        refresh: { same: 3 },
        destroy: { delete: 3 },
      });
    }
    expect(seen.local).toEqual({ preview: { create: 4 }, up: { create: 4 }, outputs: {}, provider: expect.any(String),
      source: expect.stringMatching(/^project:\/\/\/index\.js#\d+,\d+$/), refresh: { same: 4 }, destroy: { delete: 4 } });
    // The serialized provider each resource's state keeps: one require of the installed module,
    // nothing the inline program captured (its closure holds the token). The source position is the
    // user's line (above), not a line of this package's classes.
    for (const stack of [seen.one, seen.two, seen.three, seen.local]) {
      expect(stack.provider).toBe('exports.handler = () => require("pulumi-svc/dist/src/providers/secrets/TransformAlphabet.js");\n');
    }
    // Everything the four stacks made is gone again, and so are the stacks.
    expect((await secretsApi(emu, "LIST", "/transform/alphabet")).status).toBe(404);
    expect((await secretsApi(emu, "LIST", "/transform/template")).status).toBe(404);
    // The file backend keeps a stack as stacks/<project>/<stack>.json and holds a stack's lock as a
    // file under locks/ while an operation runs: neither is left.
    const files = (dir: string) => fs.readdirSync(path.join(project.dir, "backend/.pulumi", dir), { recursive: true, withFileTypes: true }).filter((f) => f.isFile()).map((f) => f.name);
    expect(files("stacks").filter((f) => f.endsWith(".json"))).toEqual([]);
    expect(files("stacks").filter((f) => f.endsWith(".json.bak")).sort()).toEqual(["local.json.bak", "one.json.bak", "three.json.bak", "two.json.bak"]);
    expect(files("locks")).toEqual([]);
  }, 600_000);
});
