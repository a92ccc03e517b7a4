import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";

describe("npm start", () => {
  it("starts the emulator and deploys the quickstart through the engine double when no CLI is on PATH", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: "/usr/bin:/bin" };
    for (const k of Object.keys(env)) if (k.startsWith("SVC_")) delete env[k];
    const r = spawnSync(process.execPath, [path.join(root, "dist/src/scripts/start.js")], { cwd: root, env, encoding: "utf8", timeout: 120_000 });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("No Pulumi CLI on PATH: running the quickstart through the engine double");
    expect(r.stdout).toMatch(/\+ create {2}pulumi-nodejs:dynamic\/secrets:TransformTemplate {2}ssn/);
    expect(r.stdout).toMatch(/hookVerified: true/);
    expect(r.stdout).toContain("Quickstart deployed.");
  });
});
