// The fault matrix of issue 7: every resource kind but replication (two clusters: its own suite)
// × create/read/update/delete × {429 with and without Retry-After, 503, dropped connection} ×
// {before the server acted, after it acted}. Each cell plays deployments the way `pulumi up` does
// (a partial failure keeps its object; any other failure leaves state as it was, and the next up
// tries again) and then lists the server: 0 duplicates, 0 orphans, 0 lost updates, and state equal
// to the server. A read cell plays `pulumi refresh` under the fault: it may fail (state is kept) or
// succeed after a retry, but never reports the object gone. Store schemas run against a real
// PostgreSQL in matrix-postgres.test.ts.
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { KIND_NAMES } from "../../src/kinds";
import { root } from "../support/dist";
import { call } from "../../src/runtime";
import { CELLS, clearMetFaults, refreshUnderFault } from "./cells";
import { inSync, settle } from "./deploy";
import { control, useEmulator } from "../support/emulator";
import { KIND_CASES as CASES, type KindCase as Case } from "../support/kindCases";

// The cells test what a fault leaves behind, not how long a retry waits (backoffDelay has tests of
// its own, test/unit/http-retry.test.ts): a retry here waits under 10 ms, not up to 250, which was
// nine tenths of the suite's time (a CI worker waiting, beside the deployments of the others).
vi.mock("../../src/http/retry", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/http/retry")>();
  return { ...real, backoffDelay: (attempt: number, _base: number, _cap: number, random?: () => number) => real.backoffDelay(attempt, 2, 10, random) };
});

const { emu } = useEmulator({ secretsToken: "secretsRoot" });
beforeAll(() => {
  // One retry inside the client: most faults reach the provider, which is what this suite tests.
  process.env.SVC_MAX_RETRIES = "1";
});

/** Kinds whose cells live in a suite of their own, and where. */
const ELSEWHERE: Record<string, string> = {
  "secrets:TransformStoreSchema": "test/faults/matrix-postgres.test.ts",
  "secrets:ReplicationPerformancePrimary": "test/faults/replication.test.ts",
  "secrets:ReplicationPerformanceSecondary": "test/faults/replication.test.ts",
  "secrets:ReplicationSecondaryToken": "test/faults/replication.test.ts",
  "secrets:ReplicationPathsFilter": "test/faults/replication.test.ts",
};

// The cases (test/support/kindCases.ts) come from the list of kinds: a kind added without fault
// cells fails here.
describe("every resource kind has fault cells", () => {
  it.each(KIND_NAMES.map((k) => [k]))("%s", (kind) => {
    const here = CASES.filter((c) => c.kind === kind).length;
    const there = ELSEWHERE[kind];
    expect(here > 0 || there !== undefined, `${kind} has no case in test/support/kindCases.ts and no suite in ELSEWHERE`).toBe(true);
    if (there) expect(fs.readFileSync(path.join(root, there), "utf8"), `${there} covers ${kind}`).toContain(`"${kind}"`);
  });
});

const fault = (c: Case, method: string, how: Record<string, unknown>, when: string) =>
  // More faults than the client retries: the failure reaches the provider, and the next up follows.
  control(emu, "POST", "/faults", { method, path: c.prefix, ...how, when, count: 3 });

describe.each(CASES)("$kind under faults", (c) => {
  beforeEach(async () => {
    await c.setup?.(emu);
  });

  it.each(CELLS)("create: %s %s the server acted → exactly one object, in state", async (_n, when, how) => {
    const before = await c.count(emu);
    await fault(c, "POST", how, when);
    const state = await settle(c.kind, undefined, c.create(emu));
    await clearMetFaults(emu);
    expect(await c.count(emu), "no duplicate, no orphan").toBe(before + (c.creates === false ? 0 : 1));
    await inSync(c.kind, state, c.create(emu));
  });

  it.each(c.update ? CELLS : [])("update: %s %s the server acted → no lost update, state equals the server", async (_n, when, how) => {
    let state = await settle(c.kind, undefined, c.create(emu));
    const before = await c.count(emu);
    await fault(c, c.updateMethod ?? "POST", how, when);
    state = await settle(c.kind, state, c.update!(emu));
    await clearMetFaults(emu);
    expect(await c.count(emu)).toBe(before);
    await inSync(c.kind, state, c.update!(emu));
  });

  it.each(CELLS)("read: %s %s the server acted → refresh fails or retries, never drops the object", async (_n, when, how) => {
    const state = await settle(c.kind, undefined, c.create(emu));
    await refreshUnderFault(emu, c.kind, state, c.prefix, how, when);
    await inSync(c.kind, state, c.create(emu));
  });

  it.each(c.noDelete ? [] : CELLS)("delete: %s %s the server acted → gone after the next destroy at most", async (_n, when, how) => {
    const state = await settle(c.kind, undefined, c.create(emu));
    const before = await c.count(emu);
    await fault(c, c.deleteMethod ?? "DELETE", how, when);
    let done = false;
    for (let i = 0; i < 7 && !done; i++) {
      done = await call(c.kind, "delete", [state!.id, state!.outs]).then(() => true, () => false);
    }
    await clearMetFaults(emu);
    expect(done).toBe(true);
    expect(await c.count(emu)).toBe(before - (c.creates === false ? 0 : 1));
  });
});
