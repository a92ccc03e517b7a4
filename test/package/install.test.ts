// What npm does with the packed tarball in a fresh project, under the Node and the @pulumi/pulumi
// this suite runs with (CI: Node 20 with the lowest SDK of the peer range, and Node 22 with the
// newest published one): no engine or peer-range complaint, the SDK asked for is the one installed,
// and the shipped quickstart deploys through the installed commands. Needs the npm registry (or
// npm's cache); without it the tests skip with the reason, or fail under SVC_REQUIRE_REAL=1.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { root } from "../support/dist";
import { control } from "../support/emulator";
import { CLI_PASSPHRASE, cliDir, cliPath, hostMissing, installation, langHost } from "../cli/cli";
import { npm, packTarball } from "./tarball";

const sdkVersion = (JSON.parse(fs.readFileSync(require.resolve("@pulumi/pulumi/package.json", { paths: [root] }), "utf8")) as { version: string }).version;
const tsVersion = (JSON.parse(fs.readFileSync(require.resolve("typescript/package.json", { paths: [root] }), "utf8")) as { version: string }).version;
const offline = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH)\b/;

let dir: string;
let project: string;
let installOutput = "";
let unavailable: string | undefined;
let emulator: ChildProcess | undefined;

/** A clean environment: npm's own variables from an enclosing `npm test` would point it elsewhere. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|SVC_)/i.test(k)) env[k] = v;
  // npm runs on the Node that runs this test, so its engine checks are about that Node.
  env.PATH = [path.dirname(process.execPath), process.env.PATH].join(path.delimiter);
  return env;
}

function needsRegistry(ctx: TestContext): void {
  if (!unavailable) return;
  if (process.env.SVC_REQUIRE_REAL === "1") throw new Error(`SVC_REQUIRE_REAL=1 but ${unavailable}`);
  console.log(`skipping: ${unavailable}`);
  ctx.skip();
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "install-"));
  const tarball = packTarball(dir);
  project = path.join(dir, "program");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "program", version: "1.0.0", private: true }));
  // As the README says, with the SDK version pinned to the one under test, and the TypeScript a
  // TypeScript program needs (Pulumi's template lists it; the README says why).
  const r = spawnSync(npm, ["install", "--prefix", project, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=warn",
    `@pulumi/pulumi@${sdkVersion}`, `typescript@${tsVersion}`, tarball], { cwd: project, env: cleanEnv(), encoding: "utf8", timeout: 300_000 });
  installOutput = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.status !== 0 && offline.test(installOutput)) unavailable = `the npm registry cannot be reached: ${offline.exec(installOutput)![1]}`;
  else if (r.status !== 0) throw new Error(`npm install exited ${r.status ?? r.signal}\n${installOutput}`);
}, 360_000);

afterAll(() => {
  emulator?.kill();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

let started: Promise<Record<string, string>> | undefined;

/** The installed pulumi-svc-emulator (started once) and the settings it printed. */
function installedEmulator(): Promise<Record<string, string>> {
  const installed = path.join(project, "node_modules/pulumi-svc");
  const { bin } = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8")) as { bin: Record<string, string> };
  started ??= startInstalledEmulator(path.join(installed, bin["pulumi-svc-emulator"]!));
  return started;
}

/** Starts the installed pulumi-svc-emulator and reads the settings it prints. */
function startInstalledEmulator(bin: string): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    emulator = spawn(process.execPath, [bin, "--port", "0"], { cwd: project, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    emulator.stderr!.on("data", (d: Buffer) => { out += d.toString(); });
    emulator.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const control = /\(control (\S+)\)/.exec(out);
      if (!control) return;
      const settings: Record<string, string> = { controlUrl: control[1]! };
      for (const m of out.matchAll(/^export (\w+)=(\S+)$/gm)) settings[m[1]!] = m[2]!;
      resolve(settings);
    });
    emulator.on("error", reject);
    emulator.on("exit", (code) => reject(new Error(`the installed emulator exited ${code}\n${out}`)));
  });
}

describe(`the packed tarball installed by npm with @pulumi/pulumi ${sdkVersion} on Node ${process.version}`, () => {
  it("installs without an engine or peer-dependency complaint, with the SDK asked for", (ctx) => {
    needsRegistry(ctx);
    expect(installOutput).not.toMatch(/EBADENGINE|ERESOLVE|peer dep|Could not resolve/i);
    const ls = spawnSync(npm, ["ls", "--prefix", project, "--json", "@pulumi/pulumi"], { cwd: project, env: cleanEnv(), encoding: "utf8" });
    expect(ls.status, ls.stdout + ls.stderr).toBe(0);
    const tree = JSON.parse(ls.stdout) as { dependencies: Record<string, { version: string; dependencies?: Record<string, { version: string }> }> };
    expect(tree.dependencies["@pulumi/pulumi"]?.version).toBe(sdkVersion);
    expect(tree.dependencies["pulumi-svc"]?.version).toBe((JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version);
  });

  it("deploys the shipped quickstart with the installed engine command against the installed emulator", async (ctx) => {
    needsRegistry(ctx);
    const installed = path.join(project, "node_modules/pulumi-svc");
    const { bin } = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8")) as { bin: Record<string, string> };
    const emu = await installedEmulator();
    // The user's program: the compiled quickstart from the tarball, beside the project's node_modules.
    fs.copyFileSync(path.join(installed, "dist/examples/quickstart/index.js"), path.join(project, "quickstart.js"));
    const args = ["up", "--skip-preview", "--json", "--program", "quickstart.js", "--state", path.join(dir, "stack.json"), "--project", "quickstart",
      "--stack", "dev", "--cwd", project,
      "--config", `svc:runUrl=${emu.SVC_RUN_URL}`, "--secret-config", `svc:runToken=${emu.SVC_RUN_TOKEN}`,
      "--config", `svc:secretsUrl=${emu.SVC_SECRETS_URL}`, "--secret-config", `svc:secretsToken=${emu.SVC_SECRETS_TOKEN}`,
      "--config", `quickstart:hookUrl=${emu.controlUrl}/sink/quickstart`, "--secret-config", "quickstart:hookToken=install-test-hook-token"];
    const r = spawnSync(process.execPath, [path.join(installed, bin["pulumi-svc-engine"]!), ...args],
      { cwd: project, env: cleanEnv(), encoding: "utf8", timeout: 240_000 });
    const result = JSON.parse(r.stdout) as { error?: string; steps: { name: string; op: string }[]; outputs: Record<string, unknown> };
    expect(result.error, r.stderr).toBeUndefined();
    expect(Object.fromEntries(result.steps.map((s) => [s.name, s.op]))).toEqual({ digits: "create", ssn: "create", "ci-hook": "create" });
    expect(result.outputs).toMatchObject({ alphabet: "0123456789", hookVerified: true });
  }, 300_000);

  it(`with the Pulumi CLI (${langHost === "official" ? "Pulumi's official" : "our"} language host): pulumi install, pulumi about, and pulumi up of the shipped quickstart as a TypeScript project with no main`, async (ctx) => {
    needsRegistry(ctx);
    const missing = cliDir ? hostMissing(langHost) : "no Pulumi CLI: run scripts/pulumi-cli.sh";
    if (missing) {
      if (process.env.SVC_REQUIRE_REAL === "1") throw new Error(`SVC_REQUIRE_REAL=1 but ${missing}`);
      console.log(`skipping: ${missing}`);
      ctx.skip();
    }
    // The layout of `pulumi new typescript`: Pulumi.yaml without main, package.json (written by npm
    // install above, no main), index.ts; the language host runs the folder, ts-node compiles it
    // (the engine double's test above ran quickstart.js, a name the folder does not run).
    const installed = path.join(project, "node_modules/pulumi-svc");
    const app = project;
    fs.copyFileSync(path.join(installed, "examples/quickstart/index.ts"), path.join(app, "index.ts"));
    fs.writeFileSync(path.join(app, "Pulumi.yaml"), "name: quickstart\nruntime: nodejs\n");
    const env: NodeJS.ProcessEnv = {
      ...cleanEnv(),
      PATH: cliPath(langHost, cleanEnv().PATH),
      PULUMI_BACKEND_URL: `file://${path.join(dir, "backend")}`,
      PULUMI_HOME: path.join(dir, "pulumi-home"),
      PULUMI_CONFIG_PASSPHRASE: CLI_PASSPHRASE,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      npm_config_prefer_offline: "true",
    };
    fs.mkdirSync(path.join(dir, "backend"));
    const settings = await installedEmulator();
    // The test above deployed the same objects and left them.
    await control({ controlUrl: settings.controlUrl! }, "POST", "/reset");
    const pulumi = (args: string[]) => spawnSync(path.join(installation(langHost), "pulumi"), [...args, "--non-interactive"], { cwd: app, env, encoding: "utf8", timeout: 240_000 });
    const ok = (args: string[]) => {
      const r = pulumi(args);
      expect(r.status, `pulumi ${args.join(" ")}\n${r.stdout}\n${r.stderr}`).toBe(0);
      return r.stdout;
    };

    // pulumi install: the official host runs the project's package manager (here nothing is new);
    // ours installs nothing (docs/real-cli.md#where-the-two-hosts-differ-by-design).
    const install = ok(["install"]);
    if (langHost === "official") expect(install).toMatch(/Finished installing dependencies/);
    ok(["stack", "init", "dev"]);
    ok(["config", "set-all", "--plaintext", `svc:runUrl=${settings.SVC_RUN_URL}`, "--secret", `svc:runToken=${settings.SVC_RUN_TOKEN}`,
      "--plaintext", `svc:secretsUrl=${settings.SVC_SECRETS_URL}`, "--secret", `svc:secretsToken=${settings.SVC_SECRETS_TOKEN}`,
      "--plaintext", `quickstart:hookUrl=${settings.controlUrl}/sink/quickstart`, "--secret", "quickstart:hookToken=install-test-hook-token"]);
    // pulumi about: the language plugin and the program's dependencies, pulumi-svc among them.
    const about = ok(["about"]);
    expect(about).toMatch(/language\s+nodejs/);
    expect(about).toMatch(/^pulumi-svc\s+\S+/m);
    const up = ok(["up", "--yes"]);
    expect(up).toMatch(/\+ {2}pulumi-nodejs:dynamic\/secrets:TransformTemplate ssn created/);
    expect(up).toMatch(/hookVerified\s*: true/);
    expect(up).toMatch(/4 created/);
    // A CLI that came alone (built from the Go modules): the package's langhost/ folder on PATH
    // gives it a language host and the dynamic-provider plugin (docs/real-cli.md).
    const bare = path.join(dir, "bare-cli");
    fs.mkdirSync(bare);
    fs.linkSync(path.join(installation(langHost), "pulumi"), path.join(bare, "pulumi"));
    for (const name of ["pulumi-language-nodejs", "pulumi-resource-pulumi-nodejs"]) {
      expect(fs.statSync(path.join(installed, "langhost", name)).mode & 0o111, name).not.toBe(0);
    }
    const alone = spawnSync(path.join(bare, "pulumi"), ["preview", "--expect-no-changes", "--non-interactive"], {
      cwd: app, encoding: "utf8", timeout: 240_000,
      env: { ...env, PATH: [path.join(installed, "langhost"), cleanEnv().PATH].join(path.delimiter) },
    });
    expect(alone.status, `${alone.stdout}\n${alone.stderr}`).toBe(0);
    expect(alone.stderr).toContain(`using pulumi-language-nodejs from $PATH at ${path.join(installed, "langhost")}`);
    expect(ok(["destroy", "--yes"])).toMatch(/4 deleted/);
  }, 600_000);
});
