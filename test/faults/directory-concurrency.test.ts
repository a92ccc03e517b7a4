// Two provider processes borrow from one library set at the same time while responses are lost
// (issue 17 item 7): each is the real dynamic-provider host running the compiled provider (dist/),
// driven as the engine drives it, and each round is a `pulumi up` of a CheckOut followed by its
// destroy. Throughout: no account is lent to both at once, and no loan stops working while its
// holder holds it (no recovery took it). At the end: no account is out that no one holds.
// Rounds per process: DIRECTORY_CONCURRENCY_ROUNDS (default 100). Needs `npm run build`.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PartialFailureError, type ProviderHost } from "../../src/engine/host";
import { control, secretsApi, useEmulator } from "../support/emulator";
import { configuredHost, hostChecked, urn } from "../support/protocol";
import { mustStatus } from "../support/must";

const { emu } = useEmulator({ secretsToken: "secretsRoot" });
const ROUNDS = Number(process.env.DIRECTORY_CONCURRENCY_ROUNDS ?? 100);
const OUT = "secrets:DirectoryCheckOut";
const POOL = Array.from({ length: 12 }, (_, i) => `pool-${i + 1}`);

type Props = Record<string, unknown>;

const hosts: ProviderHost[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.close()));
});

async function host(token: string): Promise<ProviderHost> {
  const h = await configuredHost({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": token, "svc:maxRetries": "1" });
  hosts.push(h);
  return h;
}

let root: ProviderHost;
let user: ProviderHost;
let second: ProviderHost;
beforeAll(async () => {
  [root, user, second] = await Promise.all([host(emu.tokens.secretsRoot), host(emu.tokens.secretsUser), host(emu.tokens.secretsRoot)]);
});

beforeEach(async () => {
  await control(emu, "POST", "/directory/accounts", { accounts: POOL });
  mustStatus((await secretsApi(emu, "POST", "/directory/config", { binddn: "cn=admin,dc=example,dc=org", bindpass: "concurrency-bind-5e0a", url: "ldap://127.0.0.1:1" })).status, 204, "POST /directory/config");
});

const binds = async (name: string, password: string) => (await control<{ ok: boolean }>(emu, "POST", "/directory/bind", { name, password })).ok;
const outNow = async (): Promise<string[]> => {
  const s = (await secretsApi(emu, "GET", "/directory/library/pool/status")).body.data as Record<string, { available: boolean }>;
  return Object.keys(s).filter((a) => !s[a].available).sort();
};

/** A deterministic spread of lost responses: `count` faults on POSTs under `path`, a few requests apart. */
async function loseResponses(path: string, count: number): Promise<void> {
  let seed = 17;
  // 32-bit arithmetic (a float product would lose the low bits), high bits for the choice.
  const next = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 16) % n);
  const kinds: Record<string, unknown>[] = [{ status: 503 }, { status: 429, retryAfter: 0 }, { drop: true }];
  for (let i = 0; i < count; i++) {
    await control(emu, "POST", "/faults", { method: "POST", path, count: 1, skip: next(6), when: next(2) ? "after" : "before", ...kinds[next(3)] });
  }
}

interface Tally {
  rounds: number;
  held: number;
  failed: number;
  /** Partial failures: check-outs kept in state with a record of what they could not resolve. */
  recorded: number;
  /** Accounts the records say were left out. */
  leftOut: Set<string>;
  /** A loan whose password stopped working while its holder held it. */
  taken: string[];
  /** An account handed to one process while the other held it. */
  twice: string[];
}

/**
 * `rounds` times: up (create) and destroy, as one process. `holding` is shared between the
 * processes: an account is in it from the moment a create returns it until its destroy starts.
 */
async function borrower(h: ProviderHost, who: string, inputs: Props, rounds: number, holding: Map<string, string>): Promise<Tally> {
  const t: Tally = { rounds, held: 0, failed: 0, recorded: 0, leftOut: new Set(), taken: [], twice: [] };
  const news = await hostChecked(h, OUT, who, inputs);
  for (let i = 0; i < rounds; i++) {
    let state: { id: string; outs: Props } | undefined;
    try {
      state = await h.create(urn(OUT, who), news);
    } catch (e) {
      if (!(e instanceof PartialFailureError)) {
        t.failed++;
        continue;
      }
      t.recorded++;
      state = { id: e.id, outs: e.properties as Props };
      for (const l of (state.outs.lostCheckOuts ?? []) as { serviceAccountName: string }[]) t.leftOut.add(l.serviceAccountName);
    }
    const account = state.outs.serviceAccountName as string | undefined;
    const password = state.outs.password as string | undefined;
    if (account && password) {
      t.held++;
      const other = holding.get(account);
      if (other) t.twice.push(`${account}: ${who} got it while ${other} held it`);
      holding.set(account, who);
      if (!(await binds(account, password))) t.taken.push(`${account} (at check-out)`);
      await new Promise((r) => setTimeout(r, i % 3));
      if (!(await binds(account, password))) t.taken.push(`${account} (while held)`);
      if (holding.get(account) === who) holding.delete(account);
    }
    // destroy, run again after a failure as a user would
    let gone = false;
    for (let d = 0; d < 5 && !gone; d++) gone = await h.delete(urn(OUT, who), state.id, state.outs).then(() => true, () => false);
    if (!gone) t.failed++;
  }
  return t;
}

describe(`two provider processes, ${ROUNDS} check-outs each from one set while responses are lost`, () => {
  it("each with its own token, each declaring soleBorrower: no account lent twice, no loan taken, nothing left out at the end", async () => {
    await secretsApi(emu, "POST", "/directory/library/pool", { service_account_names: POOL, ttl: "1h" });
    // Check-outs and check-ins both lose responses.
    await loseResponses("/v1/directory/library/pool/check-*", Math.ceil(ROUNDS * 0.6));
    const holding = new Map<string, string>();
    const started = Date.now();
    const [a, b] = await Promise.all([
      borrower(root, "root", { setName: "pool", soleBorrower: true }, ROUNDS, holding),
      borrower(user, "user", { setName: "pool", soleBorrower: true }, ROUNDS, holding),
    ]);
    const seconds = (Date.now() - started) / 1000;
    const faultsLeft = (await control<{ faults: unknown[] }>(emu, "GET", "/faults")).faults.length;
    await control(emu, "DELETE", "/faults");
    expect(faultsLeft, "the rounds met the faults").toBeLessThan(Math.ceil(ROUNDS * 0.6));
    console.log(`own tokens: ${2 * ROUNDS} rounds in ${seconds.toFixed(1)} s; faults met: ${Math.ceil(ROUNDS * 0.6) - faultsLeft}; ` +
      `root ${JSON.stringify({ ...a, leftOut: [...a.leftOut] })}; user ${JSON.stringify({ ...b, leftOut: [...b.leftOut] })}`);
    expect([...a.twice, ...b.twice], "accounts lent to both at once").toEqual([]);
    expect([...a.taken, ...b.taken], "loans that stopped working while held").toEqual([]);
    expect(await outNow(), "accounts out that nobody holds").toEqual([]);
    expect(a.held + b.held, "most rounds got a loan").toBeGreaterThan(ROUNDS);
  });

  it("with one token and no soleBorrower: no loan taken, no account lent twice; what is out at the end is recorded (but for the coincidence the assumptions name), and back when its lease ends", async () => {
    // Short leases: an account left out on an unknown outcome comes back within seconds.
    await secretsApi(emu, "POST", "/directory/library/pool", { service_account_names: POOL, ttl: "3s", max_ttl: "3s" });
    // Check-out responses only: a lost check-in under one shared token is the limit docs/assumptions.md item 81 names.
    await loseResponses("/v1/directory/library/pool/check-out", Math.ceil(ROUNDS * 0.3));
    const holding = new Map<string, string>();
    const started = Date.now();
    const [a, b] = await Promise.all([
      borrower(root, "first", { setName: "pool" }, ROUNDS, holding),
      borrower(second, "second", { setName: "pool" }, ROUNDS, holding),
    ]);
    const seconds = (Date.now() - started) / 1000;
    const faultsLeft = (await control<{ faults: unknown[] }>(emu, "GET", "/faults")).faults.length;
    await control(emu, "DELETE", "/faults");
    const out = await outNow();
    expect(faultsLeft, "the rounds met the faults").toBeLessThan(Math.ceil(ROUNDS * 0.3));
    console.log(`one token: ${2 * ROUNDS} rounds in ${seconds.toFixed(1)} s; faults met: ${Math.ceil(ROUNDS * 0.3) - faultsLeft}; out at the end: ${JSON.stringify(out)}; ` +
      `first ${JSON.stringify({ ...a, leftOut: [...a.leftOut] })}; second ${JSON.stringify({ ...b, leftOut: [...b.leftOut] })}`);
    expect([...a.twice, ...b.twice], "accounts lent to both at once").toEqual([]);
    expect([...a.taken, ...b.taken], "loans that stopped working while held").toEqual([]);
    // The limit docs/assumptions.md item 81 names: under one token shared by two programs, an account
    // the other one returned and a lost check-out took in the same moment looks unchanged, so it goes
    // unrecorded; it comes back when its lease ends (checked below). Such coincidences are rare: most
    // accounts still out are recorded, and none of them is another borrower's loan (twice, taken).
    const recorded = new Set([...a.leftOut, ...b.leftOut]);
    const unrecorded = out.filter((account) => !recorded.has(account));
    expect(out.length === 0 || recorded.size > 0, "accounts out at the end, none recorded").toBe(true);
    expect(unrecorded.length, `out and recorded by no one: ${JSON.stringify(unrecorded)}`).toBeLessThanOrEqual(Math.ceil(out.length / 4));
    // Past every lease on the emulator's clock, rather than waiting them out.
    await control(emu, "POST", "/clock/advance", { ms: 4_000 });
    expect(await outNow(), "after the lease, nothing is out").toEqual([]);
  });
});
