import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root } from "../support/dist";

// The Pulumi CLI cannot be installed here, so a stub named `pulumi` records how npm start drives it.
const bin = fs.mkdtempSync(path.join(os.tmpdir(), "fake-pulumi-"));
const log = path.join(bin, "calls.log");
fs.writeFileSync(path.join(bin, "pulumi"), `#!/bin/sh
printf '%s|%s\\n' "$PULUMI_BACKEND_URL" "$*" >> "${log}"
`, { mode: 0o755 });
afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

describe("npm start with the Pulumi CLI on PATH", () => {
  it("initialises a stack on a file backend in a temporary directory, sets config there and runs pulumi up", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:/usr/bin:/bin` };
    for (const k of Object.keys(env)) if (k.startsWith("SVC_")) delete env[k];
    const r = spawnSync(process.execPath, [path.join(root, "dist/src/scripts/start.js")], { cwd: root, env, encoding: "utf8", timeout: 60_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Pulumi CLI found: running `pulumi up` on a local file backend in a temporary directory.");
    const calls = fs.readFileSync(log, "utf8").trim().split("\n").map((l) => l.split("|"));
    const backend = calls[0][0];
    expect(backend).toMatch(/^file:\/\/.*pulumi-svc-quickstart-/);
    expect(calls.every(([b]) => b === backend)).toBe(true);
    const args = calls.map(([, a]) => a);
    expect(args[0]).toBe(`stack init dev --cwd ${root} --non-interactive`);
    const configFile = `${backend.slice("file://".length)}/Pulumi.dev.yaml`;
    for (const key of ["svc:runUrl", "svc:secretsUrl", "quickstart:hookUrl", "quickstart:workspaceId"]) {
      expect(args).toContainEqual(expect.stringMatching(new RegExp(`^config set ${key} \\S+ --config-file ${configFile} `)));
    }
    for (const key of ["svc:runToken", "svc:secretsToken", "quickstart:hookToken"]) {
      expect(args).toContainEqual(expect.stringMatching(new RegExp(`^config set --secret ${key} \\S+ --config-file ${configFile} `)));
    }
    expect(args.at(-1)).toBe(`up --yes --config-file ${configFile} --cwd ${root} --non-interactive`);
    // The temporary backend and config are removed afterwards; nothing is written into the repository.
    expect(fs.existsSync(backend.slice("file://".length))).toBe(false);
    expect(fs.existsSync(path.join(root, "Pulumi.dev.yaml"))).toBe(false);
  });
});
