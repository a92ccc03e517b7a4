import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { request } from "undici";
import { root } from "../support/dist";

/** npm start's environment without a CLI on PATH and without any SVC_* setting of the test run. */
function startEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: "/usr/bin:/bin" };
  for (const k of Object.keys(env)) if (k.startsWith("SVC_")) delete env[k];
  return env;
}

/**
 * Runs a shell command to its end without blocking this process. The test holds an idle keep-alive
 * connection to the kept emulator (undici's pool) across the step2 command; the emulator closes such
 * a connection after its keep-alive timeout (5 s, about 6 in practice). undici retires it 2 s earlier
 * on its own timer, and notices a close that has already arrived, but only while the event loop runs:
 * under spawnSync its timer stands still, and a step2 that took about 6 s (a loaded machine) had the
 * next request written just as the emulator closed the connection: "other side closed".
 */
function shell(command: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", command], { cwd: root, env, timeout: 120_000 });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on("data", (d: Buffer) => { stderr += d.toString(); });
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("npm start", () => {
  it("starts the emulator and deploys the quickstart through the engine double when no CLI is on PATH", () => {
    const r = spawnSync(process.execPath, [path.join(root, "dist/src/scripts/start.js")], { cwd: root, env: startEnv(), encoding: "utf8", timeout: 120_000 });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("No Pulumi CLI on PATH: running the quickstart through the engine double");
    expect(r.stdout).toMatch(/\+ create {2}pulumi-nodejs:dynamic\/secrets:TransformTemplate {2}ssn/);
    expect(r.stdout).toMatch(/hookVerified: true/);
    expect(r.stdout).toContain("Quickstart deployed.");
  });

  // README: `npm start -- --keep` leaves the emulator running and the stack in place (until Ctrl-C),
  // and prints the command that continues with step2 on that stack.
  it("--keep leaves the emulator and the stack in place: the printed exports reach the emulator, the printed step2 command updates the stack, Ctrl-C ends it", async () => {
    const child = spawn(process.execPath, [path.join(root, "dist/src/scripts/start.js"), "--keep"], { cwd: root, env: startEnv() });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => { stderr += d.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    let dir: string | undefined;
    try {
      // The printed step2 command ends with the last secret config value.
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => {
          stdout += d.toString();
          if (/--secret-config quickstart:hookToken2=\S+\n/.test(stdout)) resolve();
        });
        void exited.then((code) => reject(new Error(`npm start ended (${code}) before printing the step2 command:\n${stdout}\n${stderr}`)));
      });
      expect(stdout).toContain("Quickstart deployed.");
      expect(stdout).toContain("The emulator keeps running (Ctrl-C stops it and removes the stack).");

      // The stack is kept: its state file holds the three resources.
      dir = /The stack is kept in (\S+)\. /.exec(stdout)?.[1];
      expect(dir, stdout).toBeDefined();
      const state = JSON.parse(fs.readFileSync(path.join(dir!, "stack.json"), "utf8")) as { resources: { type: string; name: string; id: string }[] };
      const custom = state.resources.filter((r) => r.id !== "");
      expect(custom.map((r) => r.name).sort()).toEqual(["ci-hook", "digits", "ssn"]);
      const idOf = (name: string) => custom.find((r) => r.name === name)!.id;
      const hookId = idOf("ci-hook");

      // The printed exports reach the running emulator, which holds what was deployed.
      const vars = Object.fromEntries([...stdout.matchAll(/\b(SVC_\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
      expect(Object.keys(vars).sort()).toEqual(["SVC_RUN_TOKEN", "SVC_RUN_URL", "SVC_SECRETS_TOKEN", "SVC_SECRETS_URL"]);
      expect(idOf("ssn")).toBe("transform/template/us-ssn");
      const template = await request(`${vars.SVC_SECRETS_URL}/${idOf("ssn")}`, { headers: { "x-svc-token": vars.SVC_SECRETS_TOKEN } });
      expect(template.statusCode).toBe(200);
      expect(((await template.body.json()) as { data: { alphabet: string } }).data.alphabet).toBe("digits");
      const hook = async () => {
        const r = await request(`${vars.SVC_RUN_URL}/notification-configurations/${hookId}`, { headers: { authorization: `Bearer ${vars.SVC_RUN_TOKEN}` } });
        expect(r.statusCode).toBe(200);
        return ((await r.body.json()) as { data: { attributes: { triggers: string[] } } }).data.attributes;
      };
      expect((await hook()).triggers.sort()).toEqual(["run:completed", "run:errored"]);

      // The printed step2 command, run as printed in another shell, updates that very stack.
      const command = stdout.slice(stdout.indexOf("Continue with step2")).split("\n").slice(1).join("\n");
      // Not spawnSync: see shell() for why this process's event loop must keep running meanwhile.
      const step2 = await shell(command, { ...startEnv(), PATH: [path.dirname(process.execPath), "/usr/bin", "/bin"].join(path.delimiter) });
      expect(step2.status, `${step2.stdout}\n${step2.stderr}`).toBe(0);
      expect(step2.stdout).toMatch(/~ update {2}pulumi-nodejs:dynamic\/runs:NotificationConfiguration {2}ci-hook {2}\[changed: token, tokenVersion, triggers\]/);
      expect(step2.stdout).toMatch(/\+- replace {2}pulumi-nodejs:dynamic\/secrets:TransformTemplate {2}ssn/);
      expect(step2.stdout).toMatch(/hookId: "nc-/);
      expect((await hook()).triggers.sort()).toEqual(["run:completed", "run:errored", "run:needs_attention"]);
      const after = JSON.parse(fs.readFileSync(path.join(dir!, "stack.json"), "utf8")) as { resources: { name: string; id: string }[] };
      expect(after.resources.find((r) => r.name === "ssn")?.id, "step2 recorded the replacement in the kept state").toBe("transform/template/us-ssn-v2");

      // Ctrl-C stops the emulator and removes the stack whose objects it held; the process ends cleanly.
      child.kill("SIGINT");
      expect(await exited).toBe(0);
      expect(stderr).toBe("");
      expect(fs.existsSync(dir!)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
