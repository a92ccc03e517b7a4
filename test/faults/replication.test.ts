// The fault matrix for the replication kinds, on two clusters reached through connections:
// create, update (where the kind updates in place) and delete × {429 with and without Retry-After, 503, dropped connection} × {before, after
// the server acted}. After the deployments settle: the cluster is in the mode the state says, a
// token in state activates a secondary, no filter is lost or left behind.
import { request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call } from "../../src/core/runtime";
import { startEmulator, type Emulator } from "../../src/emulator";
import type { Props } from "../support/calls";
import { inSync, settle } from "./deploy";

const emu = {} as Emulator;
const saved = { url: process.env.SVC_SECRETS_URL, token: process.env.SVC_SECRETS_TOKEN, retries: process.env.SVC_MAX_RETRIES };
beforeAll(async () => {
  Object.assign(emu, await startEmulator({ clusters: 2 }));
  delete process.env.SVC_SECRETS_URL;
  delete process.env.SVC_SECRETS_TOKEN;
  process.env.SVC_MAX_RETRIES = "1";
});
afterAll(async () => {
  await emu.close?.();
  for (const [k, v] of [["SVC_SECRETS_URL", saved.url], ["SVC_SECRETS_TOKEN", saved.token], ["SVC_MAX_RETRIES", saved.retries]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

async function control(i: number, method: string, path: string, body?: unknown): Promise<any> {
  const res = await request(`${emu.clusters[i]!.controlUrl}${path}`, {
    method: method as "GET", headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`control ${method} ${path}: ${res.statusCode} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function raw(i: number, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await request(`${emu.clusters[i]!.secretsUrl}/${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "x-svc-token": emu.clusters[i]!.secretsToken, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

const A = 0;
const B = 1;
const conn = (i: number) => ({ url: emu.clusters[i]!.secretsUrl, token: emu.clusters[i]!.secretsToken });
const status = async (i: number) => (await raw(i, "sys/replication/performance/status")).body.data;
const enablePrimary = () => raw(A, "sys/replication/performance/primary/enable", {});
const issue = async (id: string) => {
  const r = await raw(A, "sys/replication/performance/primary/secondary-token", { id });
  return String(r.body.wrap_info.token);
};

beforeEach(async () => {
  for (const i of [A, B]) await control(i, "POST", "/reset");
});

const FAULTS: [string, Record<string, unknown>][] = [
  ["429 with Retry-After", { status: 429, retryAfter: 0 }],
  ["429 without Retry-After", { status: 429 }],
  ["503", { status: 503 }],
  ["a dropped connection", { drop: true }],
];
const cells = FAULTS.flatMap(([name, how]) => (["before", "after"] as const).map((when) => [name, when, how] as const));
const fault = (i: number, how: Record<string, unknown>, when: string) =>
  control(i, "POST", "/faults", { method: "POST", path: "/v1/sys/replication/*", ...how, when, count: 3 });

interface Case {
  kind: string;
  /** The cluster whose requests fail. */
  on: number;
  setup(): Promise<void>;
  inputs(): Props;
  /** What the server must show once the deployments settled (created: true) or after the delete. */
  holds(created: boolean, outs?: Props): Promise<void>;
  /** An in-place update: prepared after the create, its inputs, and what the server shows after it. */
  update?: { prepare(): Promise<void>; inputs(): Props; holds(): Promise<void> };
}

const CASES: Case[] = [
  {
    kind: "secrets:ReplicationPerformancePrimary", on: A,
    setup: async () => undefined,
    inputs: () => ({ disableOnDelete: true, connection: conn(A) }),
    holds: async (created) => expect((await status(A)).mode).toBe(created ? "primary" : "disabled"),
  },
  {
    kind: "secrets:ReplicationSecondaryToken", on: A,
    setup: async () => void (await enablePrimary()),
    inputs: () => ({ secondaryId: "b", connection: conn(A) }),
    holds: async (created, outs) => {
      if (!created) return;
      // The token in state is the one that works: B activates with it.
      const r = await raw(B, "sys/replication/performance/secondary/enable", { token: outs!.token });
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
      expect((await status(A)).known_secondaries).toEqual(["b"]);
    },
  },
  {
    kind: "secrets:ReplicationPerformanceSecondary", on: B,
    setup: async () => {
      await enablePrimary();
      token = await issue("b");
    },
    inputs: () => ({ token, acknowledgeDataWipe: true, connection: conn(B) }),
    holds: async (created) => expect((await status(B)).mode).toBe(created ? "secondary" : "disabled"),
    // A new token is an update-primary; a token is single-use, so a lost response must not leave
    // state asking for the used token again.
    update: {
      prepare: async () => void (newToken = await issue("b2")),
      inputs: () => ({ token: newToken, acknowledgeDataWipe: true, connection: conn(B) }),
      holds: async () => {
        expect((await status(B)).secondary_id).toBe("b2");
        expect((await status(A)).known_secondaries).toContain("b2");
      },
    },
  },
  {
    kind: "secrets:ReplicationPathsFilter", on: A,
    setup: async () => {
      await enablePrimary();
      await raw(B, "sys/replication/performance/secondary/enable", { token: await issue("b") });
      secondaryClusterId = (await status(B)).cluster_id;
    },
    inputs: () => ({ secondaryClusterId, mode: "deny", paths: ["keymgmt/"], connection: conn(A) }),
    holds: async (created) => {
      const r = await raw(A, `sys/replication/performance/primary/paths-filter/${secondaryClusterId}`);
      expect(r.status).toBe(created ? 200 : 404);
    },
    update: {
      prepare: async () => undefined,
      inputs: () => ({ secondaryClusterId, mode: "allow", paths: ["transform/", "keymgmt/"], connection: conn(A) }),
      holds: async () => {
        const r = await raw(A, `sys/replication/performance/primary/paths-filter/${secondaryClusterId}`);
        expect(r.body.data).toMatchObject({ mode: "allow", paths: expect.arrayContaining(["transform/", "keymgmt/"]) });
        expect(r.body.data.paths).toHaveLength(2);
      },
    },
  },
];
let token = "";
let newToken = "";
let secondaryClusterId = "";

describe.each(CASES)("$kind under faults", (c) => {
  beforeEach(async () => {
    await c.setup();
  });

  it.each(cells)("create: %s %s the server acted", async (_n, when, how) => {
    await fault(c.on, how, when);
    const state = await settle(c.kind, undefined, c.inputs());
    await control(c.on, "DELETE", "/faults");
    if (c.kind !== "secrets:ReplicationSecondaryToken") await inSync(c.kind, state, c.inputs());
    expect(state).toBeDefined();
    await c.holds(true, state!.outs);
  });

  it.each(c.update ? cells : [])("update: %s %s the server acted", async (_n, when, how) => {
    let state = await settle(c.kind, undefined, c.inputs());
    await c.update!.prepare();
    await fault(c.on, how, when);
    state = await settle(c.kind, state, c.update!.inputs());
    await control(c.on, "DELETE", "/faults");
    await inSync(c.kind, state, c.update!.inputs());
    await c.update!.holds();
  });

  it.each(cells)("delete: %s %s the server acted", async (_n, when, how) => {
    const state = await settle(c.kind, undefined, c.inputs());
    await fault(c.on, how, when);
    let done = false;
    for (let i = 0; i < 7 && !done; i++) done = await call(c.kind, "delete", [state!.id, state!.outs]).then(() => true, () => false);
    await control(c.on, "DELETE", "/faults");
    expect(done).toBe(true);
    await c.holds(false);
  });
});
