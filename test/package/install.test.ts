// What npm does with the packed tarball in a fresh project, under the Node and the @pulumi/pulumi
// this suite runs with (CI: Node 20 with the lowest SDK of the peer range, and Node 22 with the
// newest published one): no engine or peer-range complaint, the SDK asked for is the one installed,
// and the shipped quickstart deploys through the installed commands. Needs the npm registry (or
// npm's cache); without it the tests skip with the reason, or fail under SVC_REQUIRE_REAL.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, type TestContext } from "vitest";
import { root } from "../support/dist";
import { requireReal, requiredButMissing } from "../support/real";
import { startEmulator } from "../../src/emulator";
import { control, requests, secretsApi } from "../support/emulator";
import { fillConfigScript, importedConfig } from "../support/imported";
import { seedEveryKind } from "../support/seed-import";
import { CLI_PASSPHRASE, cliDir, cliPath, hostMissing, installation, langHost } from "../cli/cli";
import { npm, packTarball, PULUMI_TEMPLATE, registryEnv } from "./tarball";

const sdkVersion = (JSON.parse(fs.readFileSync(require.resolve("@pulumi/pulumi/package.json", { paths: [root] }), "utf8")) as { version: string }).version;
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

/** A command's exit status and output, run without blocking this process (which may serve an emulator). */
function spawned(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => { stdout += d.toString(); });
    child.stderr!.on("data", (d: Buffer) => { stderr += d.toString(); });
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** Skips (or fails under SVC_REQUIRE_REAL) without the registry or a Pulumi CLI and its language host. */
function needsRegistryAndCli(ctx: TestContext): void {
  needsRegistry(ctx);
  const missing = cliDir ? hostMissing(langHost) : "no Pulumi CLI: run scripts/pulumi-cli.sh";
  if (!missing) return;
  if (requireReal) throw requiredButMissing(missing);
  console.log(`skipping: ${missing}`);
  ctx.skip();
}

function needsRegistry(ctx: TestContext): void {
  if (!unavailable) return;
  if (requireReal) throw requiredButMissing(unavailable);
  console.log(`skipping: ${unavailable}`);
  ctx.skip();
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "install-"));
  const tarball = packTarball(dir);
  project = path.join(dir, "program");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "program", version: "1.0.0", private: true }));
  // As the README says, with the SDK version pinned to the one under test, and `typescript` as a
  // user names it, whatever npm picks (a TypeScript program needs its own; the README says why).
  const r = spawnSync(npm, ["install", "--prefix", project, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=warn",
    `@pulumi/pulumi@${sdkVersion}`, "typescript", tarball], { cwd: project, env: registryEnv(cleanEnv()), encoding: "utf8", timeout: 300_000 });
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
  it("installs without an engine or peer-dependency complaint, with the SDK asked for and TypeScript 6 for typescript", (ctx) => {
    needsRegistry(ctx);
    expect(installOutput).not.toMatch(/EBADENGINE|ERESOLVE|peer dep|Could not resolve/i);
    const ls = spawnSync(npm, ["ls", "--prefix", project, "--json", "@pulumi/pulumi", "typescript"], { cwd: project, env: cleanEnv(), encoding: "utf8" });
    expect(ls.status, ls.stdout + ls.stderr).toBe(0);
    const tree = JSON.parse(ls.stdout) as { dependencies: Record<string, { version: string; dependencies?: Record<string, { version: string }> }> };
    expect(tree.dependencies["@pulumi/pulumi"]?.version).toBe(sdkVersion);
    // The newest TypeScript @pulumi/pulumi's peer range (below 7) admits: the CLI's ts-node can use it.
    expect(tree.dependencies.typescript?.version).toMatch(/^6\./);
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
    needsRegistryAndCli(ctx);
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

  it("pulumi-svc-import under the Pulumi CLI: the installed command writes the program; in a project laid out as pulumi new typescript makes it, the first up takes every object over and writes only the write-only values given, the next preview has no change, destroy removes them", async (ctx) => {
    needsRegistryAndCli(ctx);
    const emu = await startEmulator();
    try {
      const seeded = await seedEveryKind(emu);
      const installed = path.join(project, "node_modules/pulumi-svc");
      const { bin } = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8")) as { bin: Record<string, string> };
      // A fresh project beside the first, on the same node_modules: pulumi new typescript's files.
      const app = path.join(project, "imported");
      fs.mkdirSync(app);
      fs.writeFileSync(path.join(app, "Pulumi.yaml"), "name: imported\nruntime: nodejs\n");
      fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "imported", main: "index.ts" }));
      fs.writeFileSync(path.join(app, "tsconfig.json"), JSON.stringify({ compilerOptions: PULUMI_TEMPLATE, files: ["index.ts"] }));
      // Asynchronous: the emulator answers from this process.
      const imp = await spawned(process.execPath, [path.join(installed, bin["pulumi-svc-import"]!), "--workspace", emu.workspaceId, "--out", app], {
        cwd: app,
        env: { ...cleanEnv(), SVC_SECRETS_URL: emu.secretsUrl, SVC_SECRETS_TOKEN: emu.tokens.secretsRoot, SVC_RUN_URL: emu.runUrl, SVC_RUN_TOKEN: emu.tokens.runAdmin },
      });
      expect(imp.status, imp.stderr).toBe(0);
      expect(imp.stdout).toContain("21 objects to take over");
      expect(imp.stderr).toContain("pulumi-svc-import: secrets:TransformRole: 1");
      // What the user does with pulumi-config.sh: each value in place of its placeholder, then the script run as written.
      const values: Record<string, string> = { ...importedConfig(seeded), "svc:secretsToken": emu.tokens.secretsRoot, "svc:runToken": emu.tokens.runAdmin };
      const script = path.join(app, "pulumi-config.sh");
      fs.writeFileSync(script, fillConfigScript(fs.readFileSync(script, "utf8"), values));
      const env: NodeJS.ProcessEnv = {
        ...cleanEnv(), PATH: cliPath(langHost, cleanEnv().PATH), PULUMI_BACKEND_URL: `file://${path.join(dir, "backend-imported")}`,
        PULUMI_HOME: path.join(dir, "pulumi-home"), PULUMI_CONFIG_PASSPHRASE: CLI_PASSPHRASE, PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      };
      fs.mkdirSync(path.join(dir, "backend-imported"));
      const ok = async (args: string[]) => {
        const r = await spawned(path.join(installation(langHost), "pulumi"), [...args, "--non-interactive"], { cwd: app, env });
        expect(r.status, `pulumi ${args.join(" ")}\n${r.stdout}\n${r.stderr}`).toBe(0);
        return r.stdout;
      };
      await ok(["stack", "init", "dev"]);
      const set = await spawned("bash", ["pulumi-config.sh"], { cwd: app, env: { ...env, PATH: `${installation(langHost)}${path.delimiter}${env.PATH}` } });
      expect(set.status, `bash pulumi-config.sh\n${set.stdout}\n${set.stderr}`).toBe(0);
      expect(Object.keys(JSON.parse((await ok(["config", "--json"])))).sort()).toEqual(Object.keys(values).map((k) => (k.includes(":") ? k : `imported:${k}`)).concat("svc:runUrl", "svc:secretsUrl").sort());
      await control(emu, "DELETE", "/requests");
      const up = await ok(["up", "--yes"]);
      expect(up).toMatch(/22 created/);
      const writes = (await requests(emu)).filter((q) => !["GET", "LIST"].includes(q.method)).map((q) => `${q.method} ${q.path}`).sort();
      expect(writes).toEqual([`PATCH /api/v2/notification-configurations/${seeded.hookId}`, "POST /v1/keymgmt/kms/aws-east",
        "POST /v1/registry/config/access", "POST /v1/sys/plugins/catalog/database/acme-db", "POST /v1/directory/config",
        "POST /v1/transform/stores/tokens-db"].sort());
      // The key keeps both its versions: nothing rotated it or made it anew.
      expect((await secretsApi(emu, "GET", "/keymgmt/key/signing")).body.data).toMatchObject({ latest_version: 2, keys: { 1: expect.anything(), 2: expect.anything() } });
      await ok(["preview", "--expect-no-changes"]);
      expect(await ok(["destroy", "--yes"])).toMatch(/22 deleted/);
      expect((await requests(emu)).some((q) => q.method === "DELETE" && q.path === "/v1/keymgmt/key/signing" && q.status < 300)).toBe(true);
    } finally {
      await emu.close();
    }
  }, 600_000);
});
