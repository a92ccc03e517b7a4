// The directory engine's acting calls under faults: the CheckOut resource (create, delete) and the
// functions checkOut, checkIn, manageCheckIn, rotateRoot and rotateRole × {429 with Retry-After,
// 503, dropped connection} × {before the server acted, after it acted}. Each cell is judged by
// reading the server: every account out is held by a caller whose password works (0 orphans,
// 0 stuck, 0 lost), no account is held twice, a rotation happened exactly once. Then the named
// scenarios of issue 17 (items 6 and 7): a lost check-out never takes another borrower's loan, and
// repeated lost responses leave no lease that nobody holds.
import { request } from "undici";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { PartialFailure } from "../../src/core/definition";
import * as directory from "../../src/secrets/directory";
import { checked, type Props } from "../support/calls";
import { control, secretsApi, useEmulator } from "../support/emulator";
import { inSync, settle } from "./deploy";
import { cellsOf, clearMetFaults, FAULTS, WHEN } from "./cells";
import { mustStatus } from "../support/must";

const { emu } = useEmulator({ secretsToken: "secretsRoot" });
beforeAll(() => {
  // One retry inside the client: most faults reach the provider's own read-back, which is what this suite tests.
  process.env.SVC_MAX_RETRIES = "1";
});

const OUT = "secrets:DirectoryCheckOut";
const BINDDN = "cn=admin,dc=example,dc=org";
const BINDPASS = "Fb3Lq1Zb7Wm5Tx9K";
const ACCOUNTS = ["a", "b", "c"];
const LIBRARY = "/v1/directory/library";

beforeEach(async () => {
  await control(emu, "POST", "/directory/accounts", { accounts: [...ACCOUNTS, "svc-app"] });
  mustStatus((await secretsApi(emu, "POST", "/directory/config", { binddn: BINDDN, bindpass: BINDPASS, url: "ldap://127.0.0.1:1" })).status, 204, "POST /directory/config");
  mustStatus((await secretsApi(emu, "POST", "/directory/library/pool", { service_account_names: ACCOUNTS, ttl: "1h" })).status, 204, "POST /directory/library/pool");
});

// The matrix's faults but the 429 without Retry-After, before and after the server acts.
const cells = cellsOf(FAULTS.filter(([name]) => name !== "429 without Retry-After"));

/** The count of the fault a test installed (one each), for clearFaults' check. */
let installed = 0;
/** More faults than the provider's own attempts by default: the failure reaches the caller, who runs again. */
const fault = (path: string, how: Record<string, unknown>, when: string, count = 3) => {
  installed = count;
  return control(emu, "POST", "/faults", { method: "POST", path, ...how, when, count });
};
/** Clears the faults once a request met the test's fault: one on a path no request takes would pass as a happy path. */
const clearFaults = () => clearMetFaults(emu, installed);
const binds = async (name: string, password: string) => (await control<{ ok: boolean }>(emu, "POST", "/directory/bind", { name, password })).ok;

/** A raw request as a given token: another borrower, no provider code involved. */
async function as(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await request(`${emu.secretsUrl}${path}`, {
    method: method as "POST",
    headers: { "x-svc-token": token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

interface Loan { account: string; password: string }

async function borrowAs(token: string): Promise<Loan> {
  const r = await as(token, "POST", "/directory/library/pool/check-out", {});
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { account: r.body.data.service_account_name, password: r.body.data.password };
}

async function status(): Promise<Record<string, { available: boolean; borrower_client_token?: string }>> {
  return (await secretsApi(emu, "GET", "/directory/library/pool/status")).body.data;
}

/**
 * The server against what the callers hold: every account out is held by one of them and every
 * held loan is out with a working password (0 orphans, 0 stuck, 0 lost), and no account is held twice.
 */
async function judge(held: Loan[]): Promise<void> {
  const s = await status();
  expect(new Set(held.map((h) => h.account)).size, "no account lent twice").toBe(held.length);
  expect(Object.keys(s).filter((a) => !s[a].available).sort(), "the accounts out are exactly the ones callers hold").toEqual(held.map((h) => h.account).sort());
  for (const h of held) expect(await binds(h.account, h.password), `${h.account}: the holder's password works`).toBe(true);
}

const held = (outs: Props): Loan => ({ account: String(outs.serviceAccountName), password: String(outs.password) });

/** A call repeated the way a user runs `pulumi up` again after a failure. */
async function untilDone<T>(f: () => Promise<T>, times = 5): Promise<T> {
  let last: unknown;
  for (let i = 0; i < times; i++) {
    try {
      return await f();
    } catch (e) {
      last = e;
    }
  }
  throw last;
}

/** A create that failed partially is kept in state; the engine updates it on the next up. */
async function created(inputs: Props): Promise<{ id: string; outs: Props; partial?: PartialFailure }> {
  try {
    return (await call(OUT, "create", [await checked(OUT, inputs)])) as { id: string; outs: Props };
  } catch (e) {
    if (!(e instanceof PartialFailure)) throw e;
    return { id: e.id, outs: e.properties, partial: e };
  }
}

describe("directory acting calls under faults (check-outs declare soleBorrower: this process is the set's only borrower)", () => {
  const inputs = { setName: "pool", soleBorrower: true };

  it.each(cells)("CheckOut create: %s %s the server acted → one account out, held in state, nothing orphaned", async (_n, when, how) => {
    await fault(`${LIBRARY}/pool/check-out`, how, when);
    const state = await settle(OUT, undefined, inputs);
    await clearFaults();
    expect(state!.outs.lostCheckOuts).toBeUndefined();
    await judge([held(state!.outs)]);
    await inSync(OUT, state, inputs);
  });

  it.each(cells)("CheckOut delete: %s %s the server acted → the account is back, its password rotated, after the next destroy at most", async (_n, when, how) => {
    const state = await settle(OUT, undefined, inputs);
    await fault(`${LIBRARY}/pool/check-in`, how, when);
    const done = await untilDone(() => call(OUT, "delete", [state!.id, state!.outs])).then(() => true, () => false);
    await clearFaults();
    expect(done).toBe(true);
    await judge([]);
    expect(await binds(held(state!.outs).account, held(state!.outs).password)).toBe(false);
  });

  it.each(cells)("checkOut: %s %s the server acted → the caller holds the one account out", async (_n, when, how) => {
    await fault(`${LIBRARY}/pool/check-out`, how, when);
    const loan = await untilDone(() => directory.checkOut({ setName: "pool", soleBorrower: true }));
    await clearFaults();
    expect(loan.lostCheckOuts).toBeUndefined();
    await judge([{ account: loan.serviceAccountName, password: loan.password }]);
  });

  it.each(cells)("checkIn: %s %s the server acted → the account is back once, and the call says so", async (_n, when, how) => {
    const loan = await directory.checkOut({ setName: "pool" });
    await fault(`${LIBRARY}/pool/check-in`, how, when);
    const r = await untilDone(() => directory.checkIn({ setName: "pool", serviceAccountNames: [loan.serviceAccountName] }));
    await clearFaults();
    expect(r.checkIns).toEqual([loan.serviceAccountName]);
    await judge([]);
    expect(await binds(loan.serviceAccountName, loan.password)).toBe(false);
  });

  it.each(cells)("manageCheckIn: %s %s the server acted → another token's loan is back, nothing else touched", async (_n, when, how) => {
    const theirs = await borrowAs(emu.tokens.secretsUser);
    const mine = await directory.checkOut({ setName: "pool" });
    await fault(`${LIBRARY}/manage/pool/check-in`, how, when);
    const r = await untilDone(() => directory.manageCheckIn({ setName: "pool", serviceAccountNames: [theirs.account] }));
    await clearFaults();
    expect(r.checkIns).toEqual([theirs.account]);
    await judge([{ account: mine.serviceAccountName, password: mine.password }]);
    expect(await binds(theirs.account, theirs.password)).toBe(false);
  });

  it.each(cells)("rotateRoot: %s %s the server acted → the bind password is one only the service knows, and no rotation is left running", async (_n, when, how) => {
    await fault("/v1/directory/rotate-root", how, when);
    const r = await untilDone(() => directory.rotateRoot());
    await clearFaults();
    expect(r.rotated).toBe(true);
    expect(await binds(BINDDN, BINDPASS)).toBe(false);
    expect(await directory.rotateRoot()).toEqual({ rotated: true, warnings: [] });
    // The service still binds: it can lend and rotate.
    const loan = await directory.checkOut({ setName: "pool" });
    expect(await binds(loan.serviceAccountName, loan.password)).toBe(true);
  });

  it.each(cells)("rotateRole: %s %s the server acted → rotated exactly once (last_password is the one before)", async (_n, when, how) => {
    expect((await secretsApi(emu, "POST", "/directory/roles/app", { service_account_name: "svc-app" })).status).toBe(204);
    const before = (await secretsApi(emu, "GET", "/directory/creds/app")).body.data;
    await fault("/v1/directory/rotate-role/app", how, when);
    const r = await untilDone(() => directory.rotateRole({ name: "app" }));
    await clearFaults();
    expect(r).toEqual({ rotated: true, warnings: [] });
    const after = (await secretsApi(emu, "GET", "/directory/creds/app")).body.data;
    expect(after.last_password, "a second rotation would have pushed the old password out").toBe(before.current_password);
    expect(await binds("svc-app", after.current_password)).toBe(true);
    expect(await binds("svc-app", before.current_password)).toBe(false);
  });
});

describe("without soleBorrower an account a lost check-out may have taken is recorded and left out, never checked in", () => {
  const inputs = { setName: "pool" };

  it.each(cells)("CheckOut create: %s %s the server acted → before: one account, held; after: the account is recorded in state, then returned once soleBorrower is declared", async (_n, when, how) => {
    await fault(`${LIBRARY}/pool/check-out`, how, when, 1);
    const first = await created(inputs);
    await clearFaults();
    if (when === "before") {
      expect(first.partial).toBeUndefined();
      expect(first.outs.lostCheckOuts).toBeUndefined();
      await judge([held(first.outs)]);
      return;
    }
    // The first attempt took "a": nobody can tell it from another same-token borrower's loan, so it stays out.
    expect(first.partial?.message).toMatch(/the outcome is unknown: a \(the service returns it by .*\) went out while a check-out's response was lost.*set soleBorrower: true/);
    expect(first.id).toBe("directory/library/pool/check-out");
    expect(first.outs.lostCheckOuts).toEqual([{ serviceAccountName: "a", borrowerDigest: expect.any(String), sentAt: expect.any(String), returnsBy: expect.any(String) }]);
    expect(Date.parse((first.outs.lostCheckOuts as { returnsBy: string }[])[0].returnsBy) - Date.now()).toBeGreaterThan(3500_000);
    expect(Object.entries(await status()).filter(([, s]) => !s.available).map(([a]) => a)).toEqual(["a"]);
    // The next up (an update: the engine updates what a partial failure left) borrows; "a" stays recorded.
    const second = (await call(OUT, "update", [first.id, first.outs, await checked(OUT, inputs)])) as { outs: Props };
    expect(second.outs.serviceAccountName).toBe("b");
    expect((second.outs.lostCheckOuts as { serviceAccountName: string }[]).map((l) => l.serviceAccountName)).toEqual(["a"]);
    expect((await status()).a.available).toBe(false);
    // Declared the only borrower: the recorded account is checked in.
    const sole = await checked(OUT, { ...inputs, soleBorrower: true }, second.outs);
    expect(await call(OUT, "diff", [first.id, second.outs, sole])).toMatchObject({ changes: true, replaces: [] });
    const third = (await call(OUT, "update", [first.id, second.outs, sole])) as { outs: Props };
    expect(third.outs.lostCheckOuts).toBeUndefined();
    await judge([held(third.outs)]);
  });

  it.each(WHEN)("checkOut, a 503 %s the server acted: before → the loan; after → an error naming the account left out", async (when) => {
    await fault(`${LIBRARY}/pool/check-out`, { status: 503 }, when, 1);
    const outcome = await directory.checkOut({ setName: "pool" }).then((l) => l, (e: Error) => e);
    await clearFaults();
    if (when === "before") {
      expect(outcome).not.toBeInstanceOf(Error);
      const loan = outcome as directory.CheckOutResult;
      await judge([{ account: loan.serviceAccountName, password: loan.password }]);
      return;
    }
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toMatch(/^checkOut: POST \/directory\/library\/pool\/check-out: 503 Service Unavailable: .*; the outcome is unknown: a \(the service returns it by /);
    expect((await status()).a.available).toBe(false);
  });
});

describe("issue 17 item 6: recovery after a lost check-out response never takes another borrower's loan", () => {
  const scenarios = [
    // Another token: told apart by the borrower the status shows, so recovery may act for this program.
    ["another token", () => emu.tokens.secretsUser, { setName: "pool", soleBorrower: true }],
    // The same token: nothing tells the two loans apart, so nothing is checked in and both are recorded.
    ["the same token", () => emu.tokens.secretsRoot, { setName: "pool" }],
  ] as const;

  it.each(scenarios.flatMap(([who, token, inputs]) => WHEN.map((when) => [who, when, token, inputs] as const)))(
    "a borrower with %s checks out while the response (503 %s the server acted) is in flight: their loan stays theirs, their password works",
    async (who, when, token, inputs) => {
      // The server holds our request (before it acts, or its response after) until the other borrower has acted.
      await fault(`${LIBRARY}/pool/check-out`, { status: 503, hold: true }, when, 1);
      const ours = created(inputs);
      const holding = await control<{ timedOut: boolean }>(emu, "GET", "/faults/held?wait=1&timeoutMs=60000");
      expect(holding.timedOut, "our check-out reached the server").toBe(false);
      const theirs = await borrowAs(token());
      const theirBorrower = (await status())[theirs.account].borrower_client_token;
      await control(emu, "POST", "/faults/release");
      const result = await ours;
      await clearFaults();
      expect((await status())[theirs.account], "their loan is untouched").toEqual({ available: false, borrower_client_token: theirBorrower, borrower_entity_id: "" });
      expect(await binds(theirs.account, theirs.password), "their password still works").toBe(true);
      if (who === "another token") {
        // This program's own lost loan (if the server acted) was returned; it holds one account.
        expect(result.partial).toBeUndefined();
        await judge([theirs, held(result.outs)]);
      } else {
        // Every account that went out meanwhile is recorded, theirs included: none was checked in.
        expect(result.partial).toBeDefined();
        const lost = (result.outs.lostCheckOuts as { serviceAccountName: string }[]).map((l) => l.serviceAccountName);
        expect(lost).toContain(theirs.account);
        expect(lost).toHaveLength(when === "after" ? 2 : 1);
      }
    },
  );
});

describe("issue 17 item 7: after repeated lost responses no lease is left that nobody holds", () => {
  it("soleBorrower, every attempt's response lost after the server acted: the create fails with nothing out; the next up borrows one", async () => {
    const inputs = { setName: "pool", soleBorrower: true };
    await fault(`${LIBRARY}/pool/check-out`, { status: 503 }, "after", 3);
    await expect(call(OUT, "create", [await checked(OUT, inputs)])).rejects.toThrow(/^POST \/directory\/library\/pool\/check-out: 503 Service Unavailable/);
    expect((await control<{ faults: unknown[] }>(emu, "GET", "/faults")).faults, "all three attempts met a fault").toEqual([]);
    await judge([]);
    const state = await settle(OUT, undefined, inputs);
    await judge([held(state!.outs)]);
  });

  it("checkOut with soleBorrower, three responses lost after the server acted: it fails, and nothing is left out", async () => {
    await fault(`${LIBRARY}/pool/check-out`, { drop: true }, "after", 3);
    await expect(directory.checkOut({ setName: "pool", soleBorrower: true })).rejects.toThrow(/^checkOut: POST \/directory\/library\/pool\/check-out: /);
    await judge([]);
  });

  it("without soleBorrower the account is recorded in state as a partial failure; the next up, declaring soleBorrower, returns it and borrows", async () => {
    await fault(`${LIBRARY}/pool/check-out`, { status: 503 }, "after", 3);
    const first = await created({ setName: "pool" });
    await clearFaults();
    expect(first.partial).toBeDefined();
    expect((first.outs.lostCheckOuts as { serviceAccountName: string }[]).map((l) => l.serviceAccountName)).toEqual(["a"]);
    const inputs = await checked(OUT, { setName: "pool", soleBorrower: true });
    const next = (await call(OUT, "update", [first.id, first.outs, inputs])) as { outs: Props };
    expect(next.outs.lostCheckOuts).toBeUndefined();
    await judge([held(next.outs)]);
  });

  it("without soleBorrower, destroy of a recorded partial failure checks nothing in and says what is left out", async () => {
    await fault(`${LIBRARY}/pool/check-out`, { status: 503 }, "after", 1);
    const first = await created({ setName: "pool" });
    await clearFaults();
    await call(OUT, "delete", [first.id, first.outs]);
    expect((await status()).a.available, "a may be another borrower's: left to its lease").toBe(false);
  });
});
