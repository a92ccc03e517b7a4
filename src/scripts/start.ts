/**
 * `npm start`: starts the emulator and deploys the quickstart program against it. With the Pulumi
 * CLI on PATH it runs a real `pulumi up` on a local file backend in a temporary directory; without
 * it, it runs the program through the engine double (the real dynamic-provider host over gRPC).
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../emulator";
import { formatPlan } from "../engine/plan";
import { runProgram } from "../engine/program";

const root = path.resolve(__dirname, "../../..");
const program = path.join(root, "dist/examples/quickstart/index.js");

function onPath(cmd: string): boolean {
  return (process.env.PATH ?? "").split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, cmd)));
}

interface StackConfig {
  plain: Record<string, string>;
  secret: Record<string, string>;
}

function stackConfig(emu: Emulator): StackConfig {
  return {
    plain: {
      "svc:runUrl": emu.runUrl,
      "svc:secretsUrl": emu.secretsUrl,
      "quickstart:workspaceId": emu.workspaceId,
      // The emulator's own webhook sink, so the verification request needs no outside server.
      "quickstart:hookUrl": `${emu.controlUrl}/sink/quickstart`,
    },
    secret: {
      "svc:runToken": emu.tokens.runAdmin,
      "svc:secretsToken": emu.tokens.secretsUser,
      "quickstart:hookToken": randomBytes(16).toString("hex"),
      // step2 rotates the hook's token; set now so `--keep` can hand over a stack ready for step2.
      "quickstart:hookToken2": randomBytes(16).toString("hex"),
    },
  };
}

/** Runs the CLI without blocking: the emulator answering its requests lives in this process. */
function pulumi(args: string[], dir: string, env: NodeJS.ProcessEnv, quiet = false): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("pulumi", [...args, "--cwd", dir, "--stack", "dev", "--non-interactive"], { env, stdio: quiet ? "pipe" : "inherit" });
    let err = "";
    child.stderr?.on("data", (d: Buffer) => { err += d.toString(); });
    child.on("error", reject);
    child.on("close", (code) => code === 0 ? resolve() : reject(new Error(`pulumi ${args[0]} failed${quiet ? `: ${err}` : ""}`)));
  });
}

async function withCli(cfg: StackConfig, dir: string): Promise<boolean> {
  // A project file of our own in the temporary directory, for the compiled quickstart (npm start
  // builds first), so nothing is written into the repository. `main` names the file: given a
  // folder, Pulumi's language host runs the nearest package.json's main, the package's own.
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"),
    `name: pulumi-svc-quickstart\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: ${program}\n`);
  fs.mkdirSync(path.join(dir, "backend"));
  const env = {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${path.join(dir, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? "pulumi-svc-quickstart",
    PULUMI_SKIP_UPDATE_CHECK: "true",
  };
  await pulumi(["stack", "init"], dir, env, true);
  const all = [
    ...Object.entries(cfg.plain).flatMap(([k, v]) => ["--plaintext", `${k}=${v}`]),
    ...Object.entries(cfg.secret).flatMap(([k, v]) => ["--secret", `${k}=${v}`]),
  ];
  await pulumi(["config", "set-all", ...all], dir, env, true);
  await pulumi(["up", "--yes"], dir, env);
  return true;
}

async function withEngineDouble(cfg: StackConfig, dir: string): Promise<boolean> {
  const options = {
    program, state: path.join(dir, "stack.json"), cwd: root, stack: "dev", project: "pulumi-svc-quickstart",
    config: cfg.plain, secretConfig: cfg.secret, timeoutMs: 300_000,
  };
  console.log("Previewing (no request is made to either service):\n");
  const preview = await runProgram({ ...options, operation: "preview" });
  console.log(indent(formatPlan(preview)));
  if (preview.error) return false;
  console.log("\nUpdating:\n");
  // As `pulumi up` after its preview: the preview above was it.
  const up = await runProgram({ ...options, operation: "up", skipPreview: true });
  console.log(indent(formatPlan(up)));
  return !up.error;
}

function indent(text: string): string {
  return text.split("\n").map((l) => `    ${l}`).join("\n");
}

/** How to continue with step2 on the stack that `--keep` leaves in place. */
function step2Command(cfg: StackConfig, dir: string, cli: boolean): string {
  if (cli) {
    return `PULUMI_BACKEND_URL=file://${dir} PULUMI_CONFIG_PASSPHRASE=${process.env.PULUMI_CONFIG_PASSPHRASE ?? "pulumi-svc-quickstart"} ` +
      `pulumi up --stack dev --cwd ${path.join(root, "examples/quickstart/step2")} --config-file ${path.join(dir, "Pulumi.dev.yaml")}`;
  }
  const config = [
    ...Object.entries(cfg.plain).map(([k, v]) => `--config ${k}=${v}`),
    ...Object.entries(cfg.secret).map(([k, v]) => `--secret-config ${k}=${v}`),
  ];
  return [`node ${path.join(root, "dist/src/engine/cli.js")} up`, `--program ${path.join(root, "dist/examples/quickstart/step2/index.js")}`,
    `--state ${path.join(dir, "stack.json")} --stack dev --project pulumi-svc-quickstart --cwd ${root}`, ...config].join(" \\\n    ");
}

async function main(): Promise<void> {
  // --keep: the emulator keeps running and the stack stays in place, ready for step2.
  const keep = process.argv.includes("--keep");
  const emu = await startEmulator();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-svc-quickstart-"));
  console.log(`Emulator running: run service ${emu.runUrl}, secrets service ${emu.secretsUrl}\n`);
  let ok = false;
  try {
    const cfg = stackConfig(emu);
    const cli = onPath("pulumi");
    if (cli) {
      console.log("Pulumi CLI found: running `pulumi up` on a local file backend in a temporary directory.\n");
      ok = await withCli(cfg, dir).catch((e: Error) => { console.error(e.message); return false; });
    } else {
      console.log("No Pulumi CLI on PATH: running the quickstart through the engine double\n" +
        "(the real @pulumi/pulumi dynamic-provider host, driven over gRPC the way the engine drives it).\n");
      ok = await withEngineDouble(cfg, dir);
    }
    console.log(ok ? "\nQuickstart deployed." : "\nQuickstart failed (see above).");
    if (ok && keep) {
      console.log(`\nThe emulator keeps running (Ctrl-C stops it and removes the stack). To use it from a shell:\n` +
        `  export SVC_RUN_URL=${emu.runUrl} SVC_RUN_TOKEN=${emu.tokens.runAdmin}\n` +
        `  export SVC_SECRETS_URL=${emu.secretsUrl} SVC_SECRETS_TOKEN=${emu.tokens.secretsUser}\n\n` +
        `The stack is kept in ${dir}. Continue with step2 (rotates the hook's token, adds a trigger):\n` +
        `  ${step2Command(cfg, dir, cli)}`);
      await new Promise<void>((resolve) => { process.once("SIGINT", resolve); process.once("SIGTERM", resolve); });
    }
  } finally {
    await emu.close();
    // A kept stack goes too: its objects lived in the emulator that just stopped.
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.exitCode = ok ? 0 : 1;
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
