// The replication example through the engine double: two clusters of one emulator, each reached
// through its own connection; step2 changes the paths filter; destroy disables the secondary.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { startEmulator, type Emulator } from "../../src/emulator";
import { runProgram, UNKNOWN } from "../../src/engine/program";
import type { Result } from "../../src/engine/types";
import { root, withoutSvcEnv } from "../support/dist";

const step1 = path.join(root, "dist/examples/replication/index.js");
const step2 = path.join(root, "dist/examples/replication/step2/index.js");

let emu: Emulator;
let dir: string;

function run(operation: "preview" | "up" | "refresh" | "destroy", program = step1, extra: Record<string, string> = {}): Promise<Result> {
  const [east, west] = emu.clusters;
  return runProgram({
    operation, program, state: path.join(dir, "stack.json"), cwd: root, stack: "dev", project: "pulumi-svc-replication",
    config: { "svc:secretsUrl": east.secretsUrl, "replication:primaryUrl": east.secretsUrl, "replication:secondaryUrl": west.secretsUrl, ...extra },
    secretConfig: {
      // The default token is not sudo; the primary's connection brings one (secondary-token needs it).
      "svc:secretsToken": east.tokens.secretsUser,
      "replication:primaryToken": east.secretsToken,
      "replication:secondaryToken": west.secretsToken,
    },
    env: withoutSvcEnv() as Record<string, string>,
    timeoutMs: 120_000,
  });
}

const ops = (r: Result) => Object.fromEntries(r.steps.map((s) => [s.name, s.op]));
const ALL = ["east", "west-token", "west", "west-filter", "digits", "signing"];

async function secrets(cluster: number, p: string): Promise<{ status: number; body: any }> {
  const c = emu.clusters[cluster];
  const res = await request(`${c.secretsUrl}/${p}`, { headers: { "x-svc-token": c.secretsToken } });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

async function writes(cluster: number): Promise<string[]> {
  const res = await request(`${emu.clusters[cluster].controlUrl}/requests`);
  const { requests } = (await res.body.json()) as { requests: { method: string; path: string }[] };
  return requests.filter((q) => !["GET", "LIST"].includes(q.method)).map((q) => `${q.method} ${q.path}`);
}

beforeAll(async () => {
  if (!fs.existsSync(step1)) throw new Error("dist/ is missing: run npm run build (npm test does)");
  emu = await startEmulator({ clusters: 2 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "replication-"));
  // Something of west's own, to see the wipe.
  const res = await request(`${emu.clusters[1].secretsUrl}/transform/alphabet/west-only`, {
    method: "POST", headers: { "x-svc-token": emu.clusters[1].secretsToken, "content-type": "application/json" }, body: JSON.stringify({ alphabet: "ab" }),
  });
  expect(res.statusCode).toBe(204);
});

afterAll(async () => {
  await emu?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the replication example through the engine double", () => {
  it("previews every create without a write to either cluster; what is read on west is unknown", async () => {
    for (const c of emu.clusters) await request(`${c.controlUrl}/requests`, { method: "DELETE" });
    const r = await run("preview");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual(Object.fromEntries(ALL.map((n) => [n, "create"])));
    expect(r.outputs.alphabetsOnSecondary).toBe(UNKNOWN);
    expect(await writes(0)).toEqual([]);
    expect(await writes(1)).toEqual([]);
  });

  it("up: west is wiped and replicates east, except the filtered keymgmt/; tokens only encrypted in state", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    const east = (await secrets(0, "sys/replication/performance/status")).body.data;
    const west = (await secrets(1, "sys/replication/performance/status")).body.data;
    expect(r.outputs).toMatchObject({
      primaryClusterId: east.cluster_id,
      secondaryClusterId: west.cluster_id,
      secondaryState: "stream-wals",
      secondaryConnection: "connected",
      alphabetsOnSecondary: ["digits"],
      keysOnSecondary: [],
      filteredOnSecondary: ["keymgmt/"],
      knownSecondaries: ["west"],
    });
    expect((await secrets(1, "transform/alphabet/west-only")).status).toBe(404);
    expect((await secrets(1, "transform/alphabet/digits")).body.data).toEqual({ alphabet: "0123456789" });
    expect((await secrets(1, "keymgmt/key/signing")).status).toBe(404);
    expect((await secrets(0, "keymgmt/key/signing")).status).toBe(200);

    const text = fs.readFileSync(path.join(dir, "stack.json"), "utf8");
    for (const c of emu.clusters) expect(text).not.toContain(c.secretsToken);
    const disk = JSON.parse(text) as { resources: { name: string; outputs: Record<string, any> }[] };
    expect(disk.resources.find((x) => x.name === "west-token")!.outputs.token).toEqual({ secure: expect.any(String) });
    expect(disk.resources.find((x) => x.name === "west")!.outputs.token).toEqual({ secure: expect.any(String) });
  });

  it("a second up changes nothing", async () => {
    const r = await run("up");
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual(Object.fromEntries(ALL.map((n) => [n, "same"])));
  });

  it("step2 updates the filter in place: the key reaches west, the alphabet leaves it", async () => {
    const r = await run("up", step2);
    expect(r.error).toBeUndefined();
    expect(ops(r)).toEqual({ ...Object.fromEntries(ALL.map((n) => [n, "same"])), "west-filter": "update" });
    expect(r.outputs).toMatchObject({ alphabetsOnSecondary: [], keysOnSecondary: ["signing"], filteredOnSecondary: ["transform/"], secondaryState: "stream-wals" });
    expect((await secrets(1, "keymgmt/key/signing")).body.data.type).toBe("aes256-gcm96");
  });

  // A new ttl replaces the token (revoke, then issue), and west follows the new one with
  // update-primary: the primary drops west's filter at both. The filter takes west's activation, so
  // the same up writes it again, after west; transform/ must never become readable on west.
  it("a new token (tokenTtl) re-applies the deny filter in the same up: the withheld path stays unreadable on west", async () => {
    const r = await run("up", step2, { "replication:tokenTtl": "2h" });
    expect(r.error).toBeUndefined();
    expect((await secrets(1, "transform/alphabet/digits")).status, "the withheld alphabet on west").toBe(404);
    expect((await secrets(1, "keymgmt/key/signing")).status).toBe(200);
    expect(r.outputs).toMatchObject({ alphabetsOnSecondary: [], keysOnSecondary: ["signing"], filteredOnSecondary: ["transform/"], secondaryState: "stream-wals" });
    expect(ops(r)).toEqual({ ...Object.fromEntries(ALL.map((n) => [n, "same"])), "west-token": "replace", west: "update", "west-filter": "update" });
    const westId = (await secrets(1, "sys/replication/performance/status")).body.data.cluster_id;
    expect((await secrets(0, `sys/replication/performance/primary/paths-filter/${westId}`)).body.data).toEqual({ mode: "deny", paths: ["transform/"] });
    const again = await run("up", step2, { "replication:tokenTtl": "2h" });
    expect(ops(again)).toEqual(Object.fromEntries(ALL.map((n) => [n, "same"])));
  });

  it("refresh finds everything in place", async () => {
    const r = await run("refresh", step2);
    expect(r.error).toBeUndefined();
    expect(r.steps.filter((s) => s.op !== "refresh" && s.op !== "same").map((s) => `${s.name}:${s.op}`)).toEqual([]);
  });

  it("destroy disables west and revokes its token; east stays primary (disableOnDelete is not set)", async () => {
    const r = await run("destroy", step2);
    expect(r.error).toBeUndefined();
    expect((await secrets(1, "sys/replication/performance/status")).body.data).toEqual({ mode: "disabled" });
    const east = (await secrets(0, "sys/replication/performance/status")).body.data;
    expect(east).toMatchObject({ mode: "primary", known_secondaries: [] });
  });
});
