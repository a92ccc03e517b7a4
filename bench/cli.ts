/**
 * The real Pulumi CLI for the benches that deploy: where it is (as the tests find it), and an
 * environment on a local file backend with every network feature off.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export const root = path.resolve(__dirname, "../..");
const cache = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "pulumi-svc/pulumi-cli/v3.259.0/bin");
export const cliDir = [process.env.SVC_PULUMI_BIN, cache].find((d): d is string => !!d && fs.existsSync(path.join(d, "pulumi")));

/** PATH and Pulumi settings for a project whose backend and home live under `dir`. */
export function cliEnv(dir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const sdkDir = path.dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [root] }));
  const langhost = cliDir && fs.existsSync(path.join(cliDir, "pulumi-language-nodejs")) ? cliDir : path.join(root, "langhost");
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("SVC_") && !k.startsWith("PULUMI_")));
  fs.mkdirSync(path.join(dir, "backend"), { recursive: true });
  return {
    ...env,
    PATH: [cliDir, langhost, sdkDir, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
    PULUMI_BACKEND_URL: `file://${path.join(dir, "backend")}`,
    PULUMI_HOME: path.join(dir, "home"),
    PULUMI_CONFIG_PASSPHRASE: "pulumi-svc-bench",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    ...extra,
  };
}

/** One CLI command in `dir`; never rejects on a failed command, the caller reads the code. */
export function pulumi(dir: string, env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(cliDir!, "pulumi"), [...args, "--non-interactive"], { cwd: dir, env });
    let out = "";
    child.stdout.on("data", (d: Buffer) => { out += d.toString(); });
    child.stderr.on("data", (d: Buffer) => { out += d.toString(); });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, out }));
  });
}

/** A CLI command that must succeed. */
export async function mustPulumi(dir: string, env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  const r = await pulumi(dir, env, args);
  if (r.code !== 0) throw new Error(`pulumi ${args.join(" ")} failed:\n${r.out.slice(-4000)}`);
  return r.out;
}

export const seconds = (since: bigint): number => Number(process.hrtime.bigint() - since) / 1e9;

/** One emulator control call (`/_emulator/...`); a refusal throws with the emulator's answer. */
export async function control(emu: { controlUrl: string }, method: string, p: string, body?: unknown): Promise<any> {
  const res = await fetch(`${emu.controlUrl}${p}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`control ${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}
