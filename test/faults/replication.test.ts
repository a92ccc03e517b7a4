// The fault matrix for the replication kinds, on two clusters reached through connections:
// create, update and delete × {429 with and without Retry-After, 503, dropped connection} × {before,
// after the server acted}. An update of a PerformancePrimary is a change of address (demote, then
// promote), of a SecondaryToken a new ttl (a replacement: revoke, then issue), of a
// PerformanceSecondary a new token (update-primary), of a PathsFilter its mode and paths. After the
// deployments settle the servers are read: nothing lost (the object is there and in state), nothing
// stuck (the program's values hold and another up changes nothing), nothing duplicated or orphaned
// (one registration per secondary id, a token in state activates and a replaced or deleted one does
// not), the id is the same whichever way the create went, state equals what a refresh reads, and
// the set has exactly one primary.
//
// Then the transitions that once stopped half-way, by name, so they cannot come back.
import { request } from "undici";
import { beforeEach, describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { checked, type Props } from "../support/calls";
import { held, inSync, replaceOnRequest, sameAsServer, settle, up, type State } from "./deploy";
import { CELLS, cellsOf, FAULTS } from "./cells";
import { control, useEmulator } from "../support/emulator";
import { useEnv } from "../support/env";
import { mustStatus } from "../support/must";

// The environment names neither cluster: every resource gets its cluster through a connection.
const { emu } = useEmulator({ clusters: 2, env: false });
useEnv({ SVC_SECRETS_URL: undefined, SVC_SECRETS_TOKEN: undefined, SVC_MAX_RETRIES: "1" });

async function raw(i: number, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await request(`${emu.clusters[i]!.secretsUrl}/${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { "x-svc-token": emu.clusters[i]!.secretsToken, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

const PRIMARY = "secrets:ReplicationPerformancePrimary";
const TOKEN = "secrets:ReplicationSecondaryToken";
const SECONDARY = "secrets:ReplicationPerformanceSecondary";
const FILTER = "secrets:ReplicationPathsFilter";
const PRIMARY_ID = "sys/replication/performance/primary";
const SECONDARY_ID = "sys/replication/performance/secondary";
const V = "/v1/sys/replication/performance";
const NEW_ADDR = "https://a.internal:8201";

const A = 0;
const B = 1;
const conn = (i: number) => ({ url: emu.clusters[i]!.secretsUrl, token: emu.clusters[i]!.secretsToken });
const status = async (i: number) => (await raw(i, "sys/replication/performance/status")).body.data;
const enablePrimary = () => raw(A, "sys/replication/performance/primary/enable", {});
const issue = async (id: string) => {
  const r = await raw(A, "sys/replication/performance/primary/secondary-token", { id });
  return String(r.body.wrap_info.token);
};
const activate = (token: unknown) => raw(B, "sys/replication/performance/secondary/enable", { token });
/** B joins A with a token for `id`; A must be primary. A check, not an assertion: cases' setups call it. */
async function connectB(id = "b"): Promise<string> {
  const r = await activate(await issue(id));
  mustStatus(r.status, 204, `B's secondary/enable ${JSON.stringify(r.body)}`);
  return (await status(B)).cluster_id as string;
}
/** The number of active primaries in the set (the emulator's clusters). */
const primaries = async () => (await Promise.all([A, B].map(status))).filter((s) => s.mode === "primary").length;

const cells = CELLS;
// A 500 is not retried by the client, but the step may have acted all the same.
const transitionCells = cellsOf([...FAULTS, ["500", { status: 500 }]]);
// Each fault a cell installs, with its count, so that clearing checks it was met (a wrong method or
// path would turn the cell into a happy path that passes).
const installed = new Map<string, number>();
const faultKey = (i: number, f: { method?: string; path: string; when?: string }) => `${i} ${f.method} ${f.path} ${f.when ?? "before"}`;
const fault = (i: number, how: Record<string, unknown>, when: string, path = `${V}/*`, count = 3, method = "POST") => {
  installed.set(faultKey(i, { method, path, when }), count);
  return control(emu.clusters[i]!, "POST", "/faults", { method, path, ...how, when, count });
};
const clearFaults = async () => {
  const unmet: string[] = [];
  for (const i of [A, B]) {
    const left = (await control(emu.clusters[i]!, "GET", "/faults")) as { faults: { method?: string; path: string; when?: string; remaining: number }[] };
    for (const f of left.faults) if (f.remaining >= (installed.get(faultKey(i, f)) ?? Infinity)) unmet.push(faultKey(i, f));
    await control(emu.clusters[i]!, "DELETE", "/faults");
  }
  installed.clear();
  expect(unmet, "faults no request met").toEqual([]);
};

interface Case {
  kind: string;
  /** The cluster whose requests fail. */
  on: number;
  setup(): Promise<void>;
  inputs(): Props;
  /** The resource id, the same whichever way the create went. */
  id(): string;
  /** What the server must show once the deployments settled (created: true) or after the delete. */
  holds(created: boolean, outs: Props): Promise<void>;
  /** Active primaries once the object is deleted. */
  primariesAfterDelete: number;
  /** Whether a refresh can see the deletion (no endpoint shows an issued token: a token's read keeps state). */
  readsGone: boolean;
  /** The method of its delete request; POST (a disable, a demote, a revoke) unless said. */
  deleteMethod?: string;
  /** An update: prepared after the create, its inputs, and what the servers show after it. */
  update: { prepare(): Promise<void>; inputs(): Props; holds(before: Props, after: Props): Promise<void> };
}

let token = "";
let newToken = "";
let secondaryClusterId = "";
let primaryClusterId = "";

const CASES: Case[] = [
  {
    kind: PRIMARY, on: A,
    setup: async () => undefined,
    inputs: () => ({ disableOnDelete: true, connection: conn(A) }),
    id: () => PRIMARY_ID,
    holds: async (created, outs) => {
      const s = await status(A);
      expect(s.mode).toBe(created ? "primary" : "disabled");
      if (created) expect(outs.clusterId).toBe(s.cluster_id);
    },
    primariesAfterDelete: 0,
    readsGone: true,
    // Demote then promote with the new address: the cluster id and the secondary stay.
    update: {
      prepare: async () => {
        primaryClusterId = (await status(A)).cluster_id;
        await connectB();
      },
      inputs: () => ({ primaryClusterAddr: NEW_ADDR, disableOnDelete: true, connection: conn(A) }),
      holds: async () => {
        expect(await status(A)).toMatchObject({ mode: "primary", cluster_id: primaryClusterId, primary_cluster_addr: NEW_ADDR, known_secondaries: ["b"] });
        expect((await status(B)).state).toBe("stream-wals");
      },
    },
  },
  {
    kind: TOKEN, on: A,
    setup: async () => void (await enablePrimary()),
    inputs: () => ({ secondaryId: "b", connection: conn(A) }),
    id: () => "b",
    holds: async (created, outs) => {
      // The token in state is the one that works (created), or works no more (deleted: revoked).
      const r = await activate(outs.token);
      if (!created) {
        expect(r.status).toBe(400);
        expect((await status(A)).known_secondaries).toEqual([]);
        return;
      }
      expect(r.status, JSON.stringify(r.body)).toBe(204);
      expect((await status(A)).known_secondaries).toEqual(["b"]);
    },
    primariesAfterDelete: 1,
    readsGone: false,
    // A new ttl replaces the token, revoking first (same id): the old token must not work after.
    update: {
      prepare: async () => undefined,
      inputs: () => ({ secondaryId: "b", ttl: "2h", connection: conn(A) }),
      holds: async (before, after) => {
        expect(after.token).not.toBe(before.token);
        expect((await activate(before.token)).status).toBe(400);
        const r = await activate(after.token);
        expect(r.status, JSON.stringify(r.body)).toBe(204);
        expect((await status(A)).known_secondaries).toEqual(["b"]);
      },
    },
  },
  {
    kind: SECONDARY, on: B,
    setup: async () => {
      await enablePrimary();
      token = await issue("b");
    },
    inputs: () => ({ token, acknowledgeDataWipe: true, connection: conn(B) }),
    id: () => SECONDARY_ID,
    holds: async (created, outs) => {
      const s = await status(B);
      expect(s.mode).toBe(created ? "secondary" : "disabled");
      if (!created) return;
      expect(s).toMatchObject({ state: "stream-wals", secondary_id: "b", cluster_id: outs.clusterId });
      expect((await status(A)).known_secondaries).toEqual(["b"]);
      expect(outs.activation).toBe(1);
    },
    primariesAfterDelete: 1,
    readsGone: true,
    // A new token is an update-primary; a token is single-use, so a lost response must not leave
    // state asking for the used token again.
    update: {
      prepare: async () => void (newToken = await issue("b2")),
      inputs: () => ({ token: newToken, acknowledgeDataWipe: true, connection: conn(B) }),
      holds: async (before, after) => {
        expect(await status(B)).toMatchObject({ secondary_id: "b2", state: "stream-wals", cluster_id: before.clusterId });
        expect((await status(A)).known_secondaries).toContain("b2");
        expect(after).toMatchObject({ token: newToken, activation: 2 });
      },
    },
  },
  {
    kind: FILTER, on: A, deleteMethod: "DELETE",
    setup: async () => {
      await enablePrimary();
      mustStatus((await raw(A, "keymgmt/key/k", { type: "aes256-gcm96" })).status, 204, "POST keymgmt/key/k");
      secondaryClusterId = await connectB();
    },
    inputs: () => ({ secondaryClusterId, mode: "deny", paths: ["keymgmt/"], connection: conn(A) }),
    id: () => `sys/replication/performance/primary/paths-filter/${secondaryClusterId}`,
    holds: async (created) => {
      const r = await raw(A, `sys/replication/performance/primary/paths-filter/${secondaryClusterId}`);
      expect(r.status).toBe(created ? 200 : 404);
      // What the filter withholds is not on the secondary; without it, it is.
      expect((await raw(B, "keymgmt/key/k")).status).toBe(created ? 404 : 200);
    },
    primariesAfterDelete: 1,
    readsGone: true,
    update: {
      prepare: async () => undefined,
      inputs: () => ({ secondaryClusterId, mode: "allow", paths: ["transform/", "keymgmt/"], connection: conn(A) }),
      holds: async () => {
        const r = await raw(A, `sys/replication/performance/primary/paths-filter/${secondaryClusterId}`);
        expect(r.body.data).toEqual({ mode: "allow", paths: ["keymgmt/", "transform/"] });
        expect((await raw(B, "keymgmt/key/k")).status).toBe(200);
      },
    },
  },
];

/** Settled: the id, the program, the server and state agree, and the set has one primary. */
async function settled(c: Case, state: State, inputs: Props): Promise<void> {
  expect(state?.id, "the id").toBe(c.id());
  await inSync(c.kind, state, inputs);
  await sameAsServer(c.kind, state);
  expect(await primaries(), "active primaries").toBe(1);
}

describe.each(CASES)("$kind under faults", (c) => {
  beforeEach(async () => {
    await c.setup();
  });

  it.each(cells)("create: %s %s the server acted", async (_n, when, how) => {
    await fault(c.on, how, when);
    const state = await settle(c.kind, undefined, c.inputs());
    await clearFaults();
    await settled(c, state, c.inputs());
    await c.holds(true, state!.outs);
  });

  it.each(cells)("update: %s %s the server acted", async (_n, when, how) => {
    let state = await settle(c.kind, undefined, c.inputs());
    const before = state!.outs;
    await c.update.prepare();
    await fault(c.on, how, when);
    state = await settle(c.kind, state, c.update.inputs());
    await clearFaults();
    await settled(c, state, c.update.inputs());
    await c.update.holds(before, state!.outs);
  });

  it.each(cells)("delete: %s %s the server acted", async (_n, when, how) => {
    const state = await settle(c.kind, undefined, c.inputs());
    await fault(c.on, how, when, undefined, undefined, c.deleteMethod);
    let done = false;
    for (let i = 0; i < 7 && !done; i++) done = await call(c.kind, "delete", [state!.id, state!.outs]).then(() => true, () => false);
    await clearFaults();
    expect(done).toBe(true);
    if (c.readsGone) expect(await call(c.kind, "read", [state!.id, state!.outs]), "refresh finds it gone").toEqual({ id: "", props: {} });
    await c.holds(false, state!.outs);
    expect(await primaries(), "active primaries").toBe(c.primariesAfterDelete);
  });
});

// pulumi up --replace of each kind (test/engine/replace.test.ts plays the kinds of one cluster):
// one object again, holding the program's values, and the set has one primary.
describe.each(CASES.filter((c) => c.kind !== SECONDARY))("$kind replaced on request", (c) => {
  it("pulumi up --replace: deleted, then made again; the server, state and program agree", async () => {
    await c.setup();
    const first = await settle(c.kind, undefined, c.inputs());
    const state = await replaceOnRequest(c.kind, first, c.inputs());
    await settled(c, state, c.inputs());
    await c.holds(true, state!.outs);
  });
});

describe(`${SECONDARY} replaced on request`, () => {
  const c = CASES.find((x) => x.kind === SECONDARY)!;
  it("alone, its spent token is refused, saying to replace its SecondaryToken too; with a new token it is made again", async () => {
    await c.setup();
    const first = await settle(c.kind, undefined, c.inputs());
    const spent = await replaceOnRequest(c.kind, first, c.inputs()).catch((e: Error) => e);
    expect((spent as Error).message).toMatch(/secondary\/enable: 400 .*; a token activates a secondary once, so a secondary replaced \(pulumi up --replace\) needs a new one: replace the SecondaryToken it comes from too/);
    // Replaced with its token (revoked, then issued again): the secondary is made again with the new one.
    mustStatus((await raw(A, "sys/replication/performance/primary/revoke-secondary", { id: "b" })).status, 204, "revoke-secondary b");
    token = await issue("b");
    const state = (await call(c.kind, "create", [await checked(c.kind, c.inputs())])) as State;
    await settled(c, state, c.inputs());
    await c.holds(true, state!.outs);
  });
});

/** After a failed up: what state recorded is what a refresh would read now. */
async function recordsServer(kind: string, state: State): Promise<void> {
  const read = (await call(kind, "read", [state!.id, state!.outs])) as { id: string; props: Props };
  expect(read.id, "the object is still in state and on the server").toBe(state!.id);
  expect(held(read.props), "state is what the server holds").toEqual(held(state!.outs));
}

describe("a change of primaryClusterAddr (demote, then promote)", () => {
  const next = () => ({ primaryClusterAddr: NEW_ADDR, connection: conn(A) });

  /** A primary on A (created by the provider) with B connected. */
  async function primaryWithSecondary(inputs: Props = { connection: conn(A) }): Promise<State> {
    const state = await settle(PRIMARY, undefined, inputs);
    primaryClusterId = (await status(A)).cluster_id;
    await connectB();
    return state;
  }

  async function converged(state: State): Promise<void> {
    await settled(CASES[0]!, state, next());
    expect(await status(A)).toMatchObject({ mode: "primary", cluster_id: primaryClusterId, primary_cluster_addr: NEW_ADDR, known_secondaries: ["b"] });
    expect((await status(B)).state).toBe("stream-wals");
  }

  it.each(transitionCells)("with the promote failing (%s %s it acted) converges", async (_n, when, how) => {
    let state = await primaryWithSecondary();
    // Twice: the promote sent again once the status shows it did not act fails too.
    await fault(A, how, when, `${V}/secondary/promote`, 2);
    state = await up(PRIMARY, state, next());
    await clearFaults();
    if (when === "before") {
      // Demoted, and state says so: a partial failure, not the old primary.
      expect((await status(A)).mode).toBe("secondary");
      expect(state).toMatchObject({ initErrors: true, outs: { primaryClusterAddr: "", clusterId: primaryClusterId } });
    } else {
      // The status shows the promote done: the same up finishes.
      expect(state!.initErrors).toBeFalsy();
      expect(state!.outs.primaryClusterAddr).toBe(NEW_ADDR);
    }
    await recordsServer(PRIMARY, state);
    expect(await primaries()).toBeLessThanOrEqual(1);
    state = await settle(PRIMARY, state, next());
    await converged(state);
  });

  it.each(transitionCells)("with the demote failing (%s %s it acted) converges", async (_n, when, how) => {
    let state = await primaryWithSecondary();
    await fault(A, how, when, `${V}/primary/demote`, 1);
    state = await up(PRIMARY, state, next());
    await clearFaults();
    // Not acted: nothing changed, on the server or in state. Acted: the status shows the cluster
    // demoted, so the same up promotes it with the new address.
    expect(state!.outs.primaryClusterAddr).toBe(when === "before" ? undefined : NEW_ADDR);
    await recordsServer(PRIMARY, state);
    state = await settle(PRIMARY, state, next());
    await converged(state);
  });

  it("with the promote refused while another primary is active converges once that one is gone", async () => {
    let state = await primaryWithSecondary();
    // Between A's demote and its promote, B is promoted (force: its primary is demoted).
    await fault(A, { status: 503 }, "before", `${V}/secondary/promote`, 2);
    state = await up(PRIMARY, state, next());
    await clearFaults();
    expect((await raw(B, "sys/replication/performance/secondary/promote", { force: true })).status).toBe(204);
    state = await up(PRIMARY, state, next());
    expect(state).toMatchObject({ initErrors: true, outs: { primaryClusterAddr: "" } });
    expect(await primaries()).toBe(1);
    // B steps back (demoted): A's next up promotes it.
    expect((await raw(B, "sys/replication/performance/primary/demote", {})).status).toBe(204);
    state = await up(PRIMARY, state, next());
    expect(await status(A)).toMatchObject({ mode: "primary", cluster_id: primaryClusterId, primary_cluster_addr: NEW_ADDR });
    await sameAsServer(PRIMARY, state);
  });

  it.each([false, true])("a cluster left demoted reads as demoted; destroy with disableOnDelete %s leaves it primary or disabled", async (disableOnDelete) => {
    let state = await primaryWithSecondary({ disableOnDelete, connection: conn(A) });
    await fault(A, { status: 503 }, "before", `${V}/secondary/promote`, 2);
    state = await up(PRIMARY, state, { ...next(), disableOnDelete });
    await clearFaults();
    const read = (await call(PRIMARY, "read", [state!.id, state!.outs])) as { id: string; props: Props };
    expect(read).toMatchObject({ id: PRIMARY_ID, props: { primaryClusterAddr: "", clusterId: primaryClusterId } });
    await call(PRIMARY, "delete", [state!.id, read.props]);
    expect((await status(A)).mode).toBe(disableOnDelete ? "disabled" : "primary");
    expect(await primaries()).toBe(disableOnDelete ? 0 : 1);
  });
});

describe("a new token on a PerformanceSecondary (update-primary)", () => {
  async function secondaryOnB(): Promise<State> {
    await enablePrimary();
    token = await issue("b");
    const state = await settle(SECONDARY, undefined, { token, acknowledgeDataWipe: true, connection: conn(B) });
    newToken = await issue("b2");
    return state;
  }
  const next = () => ({ token: newToken, acknowledgeDataWipe: true, connection: conn(B) });

  async function converged(state: State): Promise<void> {
    expect(state).toMatchObject({ id: SECONDARY_ID, outs: { token: newToken, secondaryId: "b2", activation: 2 } });
    await inSync(SECONDARY, state, next());
    await sameAsServer(SECONDARY, state);
    expect(await status(B)).toMatchObject({ mode: "secondary", secondary_id: "b2", state: "stream-wals" });
  }

  it.each(FAULTS)("that acted but whose status read-back failed (%s) is a partial failure recording the new token; the next up converges", async (_n, how) => {
    let state = await secondaryOnB();
    // The status read before update-primary passes; the read-back after it, and the core's, fail.
    await control(emu.clusters[B]!, "POST", "/faults", { method: "GET", path: `${V}/status`, ...how, skip: 1, count: 4 });
    state = await up(SECONDARY, state, next());
    await clearFaults();
    expect(state).toMatchObject({ initErrors: true, outs: { token: newToken } });
    state = await settle(SECONDARY, state, next());
    await converged(state);
  });

  it("whose response and read-back were both lost: the next up finds the token used and records it", async () => {
    let state = await secondaryOnB();
    await fault(B, { drop: true }, "after", `${V}/secondary/update-primary`, 1);
    await control(emu.clusters[B]!, "POST", "/faults", { method: "GET", path: `${V}/status`, status: 503, skip: 1, count: 2 });
    state = await up(SECONDARY, state, next());
    await clearFaults();
    expect((await status(B)).secondary_id).toBe("b2");
    state = await settle(SECONDARY, state, next());
    await converged(state);
  });
});

describe("ids", () => {
  const variants = [
    { kind: PRIMARY, on: A, id: PRIMARY_ID, setup: async () => undefined, inputs: () => ({ connection: conn(A) }) },
    {
      kind: SECONDARY, on: B, id: SECONDARY_ID,
      setup: async () => {
        await enablePrimary();
        token = await issue("b");
      },
      inputs: () => ({ token, acknowledgeDataWipe: true, connection: conn(B) }),
    },
  ];

  it.each(variants)("a $kind create whose status read-back failed has the id of a clean create", async (v) => {
    await v.setup();
    const clean = await settle(v.kind, undefined, v.inputs());
    expect(clean!.id).toBe(v.id);
    for (const i of [A, B]) await control(emu.clusters[i]!, "POST", "/reset");
    await v.setup();
    // The create's read-back and the core's both fail: the create knows no cluster id.
    await control(emu.clusters[v.on]!, "POST", "/faults", { method: "GET", path: `${V}/status`, status: 503, count: 4 });
    let state = await up(v.kind, undefined, v.inputs());
    await clearFaults();
    expect(state).toMatchObject({ id: clean!.id, initErrors: true });
    state = await settle(v.kind, state, v.inputs());
    expect(state!.id).toBe(clean!.id);
    await inSync(v.kind, state, v.inputs());
    await sameAsServer(v.kind, state);
    expect(await primaries()).toBe(1);
  });
});
