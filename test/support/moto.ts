/**
 * moto's server (PyPI `moto[server]`, installed by scripts/moto.sh into a venv in the cache) on a
 * free port of 127.0.0.1: a throwaway S3 state backend, and the CLI stacks' KMS key
 * (test/support/kms.ts). It keeps everything in memory, so stopping the process removes it.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { request } from "undici";
import { cacheBase } from "./cache";
import { onFreePort, startFailure } from "./ports";
import { needsReal } from "./real";

/** scripts/moto.sh's default. */
export const MOTO_VERSION = "5.2.5";

function binDir(): string | undefined {
  if (process.env.SVC_MOTO_BIN) return process.env.SVC_MOTO_BIN;
  const venv = path.join(cacheBase, "moto", MOTO_VERSION);
  // scripts/moto.sh writes `installed` last: without it the install was cut short.
  return fs.existsSync(path.join(venv, "installed")) ? path.join(venv, "bin") : undefined;
}

/**
 * .ci/run installs moto while the tests start, and names in SVC_MOTO_READY the file the install's
 * exit code goes to: wait for it (collection is synchronous, so a blocking wait), then report a
 * failed install with its error.
 */
function installFailure(): string | undefined {
  const ready = process.env.SVC_MOTO_READY;
  if (!ready) return undefined;
  const deadline = Date.now() + 15 * 60_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!fs.existsSync(ready) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 500);
  const code = fs.existsSync(ready) ? fs.readFileSync(ready, "utf8").trim() : "none after 15 minutes";
  if (code === "0") return undefined;
  const err = ready.replace(/\.rc$/, ".err");
  const why = fs.existsSync(err) ? fs.readFileSync(err, "utf8").trim().split("\n").slice(-3).join(" / ") : "";
  return `scripts/moto.sh failed (exit ${code})${why ? `: ${why}` : ""}`;
}

/** Why no server can be had here, or undefined when one can. */
export function motoUnavailable(): string | undefined {
  const failed = installFailure();
  if (failed) return failed;
  const bin = binDir();
  if (!bin || !fs.existsSync(path.join(bin, "moto_server"))) return `moto ${MOTO_VERSION} is not installed: run scripts/moto.sh (or set SVC_MOTO_BIN to a folder holding moto_server)`;
  return undefined;
}

/** The enclosing describe's tests need moto (test/support/real.ts); true when it can be had. */
export function needsMoto(): boolean {
  return needsReal("the S3 (moto) tests", motoUnavailable());
}

export interface Moto {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  createBucket(name: string): Promise<void>;
  /** Every object of the bucket: key → body. */
  objects(bucket: string): Promise<Map<string, Buffer>>;
  stop(): Promise<void>;
}

/**
 * Reads and writes go through boto3 from moto's venv, signed as the AWS SDK signs them: moto
 * refuses an unsigned GET of an object whose ACL is private, as a copied object's is.
 */
const BOTO = `
import base64, json, sys, boto3
endpoint, op, bucket = sys.argv[1:4]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="moto", aws_secret_access_key="moto")
if op == "create":
    s3.create_bucket(Bucket=bucket)
    print("{}")
else:
    out = {}
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
        for o in page.get("Contents", []):
            out[o["Key"]] = base64.b64encode(s3.get_object(Bucket=bucket, Key=o["Key"])["Body"].read()).decode()
    print(json.dumps(out))
`;

function boto(bin: string, endpoint: string, op: "create" | "dump", bucket: string): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    execFile(path.join(bin, "python"), ["-c", BOTO, endpoint, op, bucket], { maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`boto3 ${op} ${bucket} on ${endpoint}: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as Record<string, string>);
    });
  });
}

/** `pick` gives the port to try first (a test of a taken port holds one); freePort by default. */
export async function startMoto(pick?: () => Promise<number>): Promise<Moto> {
  const bin = binDir();
  const reason = motoUnavailable();
  if (reason || !bin) throw new Error(reason);
  return onFreePort((port) => serve(bin, port), pick);
}

/** moto's server on `port`, once it answers; PortTaken when another process had the port. */
async function serve(bin: string, port: number): Promise<Moto> {
  const endpoint = `http://127.0.0.1:${port}`;
  // Through sh, which ends the server when its stdin closes: when stop() closes it, or when this
  // process ends, however it ends (a test process may be killed before its exit handlers run).
  // sh waits on the server, so a server that fails to start ends sh at once too.
  const script = 'exec 3<&0; server="$1"; shift; "$server" "$@" </dev/null & m=$!; (read -r _ <&3; kill "$m" 2>/dev/null) & wait "$m"';
  const child: ChildProcess = spawn("sh", ["-c", script, "sh", path.join(bin, "moto_server"), "-H", "127.0.0.1", "-p", String(port)], { stdio: ["pipe", "pipe", "pipe"] });
  let log = "";
  child.stdout?.on("data", (c: Buffer) => (log += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (log += c.toString()));
  const exited = new Promise((r) => child.once("exit", r));
  // Python's imports take seconds on a loaded machine.
  const deadline = Date.now() + 60_000;
  for (;;) {
    // A server that could not listen has exited: whatever answers on the port is another's.
    if (child.exitCode !== null) {
      await exited;
      child.stdin?.end(); // ends the wrapper's watcher of stdin
      throw startFailure(`moto_server did not start on ${endpoint}\n${log}`, log);
    }
    try {
      const res = await request(`${endpoint}/`);
      await res.body.dump();
      if (res.statusCode === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`moto_server did not start on ${endpoint}\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    endpoint,
    async createBucket(name) {
      await boto(bin, endpoint, "create", name);
    },
    async objects(bucket) {
      return new Map(Object.entries(await boto(bin, endpoint, "dump", bucket)).map(([k, v]) => [k, Buffer.from(v, "base64")]));
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.stdin?.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
