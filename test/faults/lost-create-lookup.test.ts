// Issue 17, item 1: a create that failed ambiguously looks for what it may have created; when that
// look-up fails too, the provider must end in one typed error, never an unhandled rejection (plain
// Node and the dynamic-provider host exit on one). Each kind runs in a child process on the compiled
// package with Node's default unhandled-rejection behaviour.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";
import { control, secretsApi, useEmulator } from "../support/emulator";

const { emu } = useEmulator({ secretsToken: "secretsRoot" });

// Check, then create; prints the outcome as one JSON line, closes the pooled connections and ends
// by itself: a process ends only once nothing is left to run, so a rejection still to come has
// surfaced first (unhandled, it exits 1 with its stack on stderr). No sleep decides whether it did.
const CHILD = `
const { call } = require(${JSON.stringify(path.join(root, "dist/src/runtime.js"))});
const { closeAgents } = require(${JSON.stringify(path.join(root, "dist/src/http/client.js"))});
const [kind, inputs] = JSON.parse(process.argv[2]);
(async () => {
  const { inputs: checked, failures } = await call(kind, "check", [{}, inputs]);
  if (failures.length) throw new Error("check failed: " + JSON.stringify(failures));
  try {
    await call(kind, "create", [checked]);
    console.log(JSON.stringify({ created: true }));
  } catch (e) {
    console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message }));
  }
  await closeAgents();
})();
`;

interface Case {
  kind: string;
  inputs(): Record<string, unknown>;
  setup?(): Promise<void>;
  post(): string;
  /**
   * The look-up's request, and how many matching requests come before it: check's record of what the
   * create could be confused with, the create's look for a twin, the list taken before it (a Run
   * without a URN has no claim to look for; an alias's twins are for the service to refuse).
   */
  lookup(): { method: string; path: string; skip: number };
}

const ws = () => emu.workspaceId;
const CASES: Case[] = [
  {
    kind: "runs:Run",
    inputs: () => ({ workspaceId: ws(), message: "deploy", pollIntervalSeconds: 0.02 }),
    post: () => "/api/v2/runs",
    lookup: () => ({ method: "GET", path: `/api/v2/workspaces/${ws()}/runs*`, skip: 1 }),
  },
  {
    kind: "runs:NotificationConfiguration",
    inputs: () => ({ workspaceId: ws(), name: "ci", destinationType: "generic", url: "https://hooks.example.com/ci", triggers: ["run:completed"] }),
    post: () => `/api/v2/workspaces/${ws()}/notification-configurations`,
    lookup: () => ({ method: "GET", path: `/api/v2/workspaces/${ws()}/notification-configurations*`, skip: 3 }),
  },
  {
    kind: "secrets:MfaDualFactorMethod",
    inputs: () => ({ secretKey: "s3cr3t-key-0001", integrationKey: "int-key-0001", apiHostname: "api-1.example.com" }),
    post: () => "/v1/identity/mfa/method/dualfactor",
    lookup: () => ({ method: "LIST", path: "/v1/identity/mfa/method/dualfactor", skip: 3 }),
  },
  {
    kind: "secrets:IdentityEntityAlias",
    inputs: () => ({ name: "carol", canonicalId: "ent-alice0000000001", mountAccessor: "auth_userpass_1234abcd" }),
    post: () => "/v1/identity/entity-alias",
    lookup: () => ({ method: "LIST", path: "/v1/identity/entity-alias/id", skip: 1 }),
  },
  {
    kind: "secrets:KeymgmtKey",
    inputs: () => ({ name: "k", type: "aes256-gcm96" }),
    post: () => "/v1/keymgmt/key/k",
    lookup: () => ({ method: "GET", path: "/v1/keymgmt/key/k", skip: 2 }),
  },
  {
    kind: "secrets:KeymgmtKeyDistribution",
    setup: async () => {
      await secretsApi(emu, "POST", "/keymgmt/key/k", { type: "aes256-gcm96" });
      await secretsApi(emu, "POST", "/keymgmt/kms/aws", { provider: "awskms", key_collection: "eu-west-1" });
    },
    inputs: () => ({ kmsName: "aws", keyName: "k", purpose: ["encrypt"], protection: "hsm" }),
    post: () => "/v1/keymgmt/kms/aws/key/k",
    lookup: () => ({ method: "GET", path: "/v1/keymgmt/kms/aws/key/k", skip: 1 }),
  },
];

function run(script: string, args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [script, ...args], { env, timeout: 30_000 });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    p.on("error", reject);
    p.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("a lost create whose look-up fails as well ends in one typed error, never a crash", () => {
  it.each(CASES.map((c) => [c.kind, c] as const))("%s: 503 after the server acted, then 431 on the look-up", async (_kind, c) => {
    await c.setup?.();
    await control(emu, "POST", "/faults", { method: "POST", path: c.post(), status: 503, when: "after" });
    await control(emu, "POST", "/faults", { ...c.lookup(), status: 431, count: 20 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-lookup-"));
    const script = path.join(dir, "child.js");
    fs.writeFileSync(script, CHILD);
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("NODE_OPTIONS")) env[k] = v;
    Object.assign(env, { SVC_MAX_RETRIES: "0", SVC_SECRETS_TOKEN: emu.tokens.secretsRoot });
    // Asynchronous: the emulator serving the child runs in this process.
    const child = await run(script, [JSON.stringify([c.kind, c.inputs()])], env);
    fs.rmSync(dir, { recursive: true, force: true });
    expect(child.stderr, "nothing on stderr (an unhandled rejection prints its stack there)").toBe("");
    expect(child.status, "the process ends by itself, normally (null: it hung and was killed)").toBe(0);
    const out = JSON.parse(child.stdout.trim().split("\n").pop()!);
    expect(out.name).toBe("ServerError");
    expect(out.code).toBe("server");
    expect(out.message).toMatch(/503/);
    expect(out.message).toMatch(/looking for what it may have created failed too \(.*431/);
    expect(out.message).not.toMatch(/\n\s+at /);
    const left = (await control<{ faults: { remaining: number }[] }>(emu, "GET", "/faults")).faults;
    expect(left.length === 0 || left[0]!.remaining < 20, "the look-up met its fault").toBe(true);
  });
});
