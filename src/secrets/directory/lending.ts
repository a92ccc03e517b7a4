/**
 * Lending library accounts when responses get lost. A check-out or check-in whose response was lost
 * (dropped connection, 5xx, 429) may or may not have acted; the set's status is read back before
 * anything is repeated. The status shows, for an account that is out, who borrowed it (token and
 * entity), nothing about which request did: two borrowers with one token look the same. So an
 * account that went out while a check-out's response was lost is only ever checked in again when
 * it is provably this program's: its borrower is this token, and the program declared itself the
 * set's only borrower with that token (`soleBorrower`). Otherwise it is left alone and reported.
 */
import { createHash } from "node:crypto";
import type { Context } from "../../core/definition";
import { output, registerSecrets, type ResultOf } from "../../core/fields";
import { backoffDelay, ConflictError, isAmbiguous, isSvcError, type HttpClient } from "../../http";
import { seconds, type Duration } from "../duration";
import { dataOf } from "../envelope";
import { fetchData } from "../pathObject";
import { params } from "./librarySet";
import { DEFAULT_DIRECTORY_MOUNT, DIRECTORY_ROUTES as R } from "./routes";

export const NONE_AVAILABLE = "No service accounts available for check-out.";

/** The fields of one check-out, as the `checkOut` function answers it and a `CheckOut` resource records it. */
export const loanFields = {
  /** The account borrowed. */
  serviceAccountName: output<string>(),
  /** Secret: the account's password for this loan; it is rotated when the account is checked in. */
  password: output<string>({ secret: true }),
  /** The lease to name when checking the account in or renewing. */
  leaseId: output<string>(),
  /** Lease length in seconds; 0 = no end. */
  leaseDuration: output<number>(),
  /**
   * Accounts that went out while a check-out's response was lost and could not be proven this
   * check-out's (see `soleBorrower`): they were left out, not checked in, and the service returns
   * each by itself when its lease ends. On a resource, those still out on that loan when last read.
   * Absent when there were none.
   */
  lostCheckOuts: output<LostCheckOut[]>({ optional: true }),
};

/** One check-out as the service answered it. */
export type CheckOutResult = ResultOf<typeof loanFields>;

/** An account that went out while a check-out's response was lost: perhaps this program's, perhaps another borrower's. */
export interface LostCheckOut {
  /** The account. */
  serviceAccountName: string;
  /** SHA-256 of the borrower fields the service showed for it (never the token itself), to tell later whether it is still that loan. */
  borrowerDigest: string;
  /** When the check-out whose response was lost was sent (ISO 8601). */
  sentAt: string;
  /**
   * When its lease ends at the latest and the service checks the account in by itself (ISO 8601);
   * empty when the set lends without end, absent when the set's ttl could not be read.
   */
  returnsBy?: string;
}

/** Where a set is. */
export interface SetRef {
  setName: string;
  mount?: string;
}

/** How often an action whose response was lost is tried in all. */
const ATTEMPTS = 3;

/** Per account: the borrower's digest while it is out, undefined while it is available. */
type Snapshot = Map<string, string | undefined>;

function borrowerDigest(status: Record<string, unknown>): string {
  return createHash("sha256").update(`${String(status.borrower_client_token ?? "")}\n${String(status.borrower_entity_id ?? "")}`).digest("hex");
}

async function snapshot(ctx: Context, ref: SetRef): Promise<Snapshot> {
  const status = (await fetchData(ctx, R.librarySet.status, params({ mount: ref.mount, name: ref.setName }))) ?? {};
  const out: Snapshot = new Map();
  for (const [account, raw] of Object.entries(status)) {
    const s = (raw ?? {}) as Record<string, unknown>;
    out.set(account, s.available === true ? undefined : borrowerDigest(s));
  }
  return out;
}

/** Accounts lent between two snapshots: out now, and to another borrower than before (or free before). */
function lentBetween(before: Snapshot, after: Snapshot): string[] {
  return [...after].filter(([a, d]) => d !== undefined && before.get(a) !== d).map(([a]) => a);
}

// The digest the service shows for this process's own loans, per client (one client per server
// and token), learnt from a check-out that answered: with it, accounts another token borrowed
// are told apart without asking the service to refuse a check-in.
const selves = new WeakMap<HttpClient, string>();

// Everything this process does to one set (check-outs, check-ins) goes one at a time: a status
// read before and after a lost request then shows only what that request, or another process, did.
const queues = new Map<string, Promise<unknown>>();

/** Runs `work` after this process's earlier work on the same set. */
export function oneAtATime<T>(ctx: Context, ref: SetRef, work: () => Promise<T>): Promise<T> {
  const key = `${ctx.client("secrets").baseUrl}|${ref.mount ?? DEFAULT_DIRECTORY_MOUNT}|${ref.setName}`;
  const previous = queues.get(key) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(work);
  queues.set(key, run);
  return run.finally(() => {
    if (queues.get(key) === run) queues.delete(key);
  });
}

/** Waits before an action whose response was lost is sent again, honouring Retry-After. */
export function pause(e: unknown, attempt: number): Promise<void> {
  const asked = isSvcError(e) ? e.retryAfterMs : undefined;
  const ms = asked !== undefined ? Math.min(asked, 30_000) : backoffDelay(attempt, 100, 2_000);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** POST check-out; the service's 400 for an empty set becomes a message that says what to do. */
async function borrow(ctx: Context, args: SetRef & { ttl?: Duration }): Promise<CheckOutResult> {
  const body: Record<string, unknown> = { name: args.setName };
  if (args.ttl !== undefined) body.ttl = args.ttl;
  let res;
  try {
    res = await ctx.client("secrets").request({ route: R.librarySet.checkOut, params: params({ mount: args.mount, name: args.setName }), body, retry: "never" });
  } catch (e) {
    if (isSvcError(e, "invalid_input") && e.messages.some((m) => m.includes(NONE_AVAILABLE))) {
      throw new ConflictError({
        service: "secrets", method: "POST", path: `/${args.mount ?? DEFAULT_DIRECTORY_MOUNT}/library/${args.setName}/check-out`, status: 400,
        messages: [`${NONE_AVAILABLE} Every account of library set ${args.setName} is checked out: add accounts to the set or check one in`],
      });
    }
    throw e;
  }
  const b = res.body as { lease_id?: unknown; lease_duration?: unknown };
  const d = dataOf(res.body);
  const out = {
    serviceAccountName: String(d.service_account_name ?? ""),
    password: String(d.password ?? ""),
    leaseId: String(b.lease_id ?? ""),
    leaseDuration: Number(b.lease_duration ?? 0),
  };
  // Registered as soon as it arrives: the status reads and check-ins that follow must not echo it.
  registerSecrets(loanFields, out);
  return out;
}

/** The set's lending rules that recovery needs, read once per recovery; unknown when the set cannot be read. */
interface SetRules {
  /** Seconds, 0 = no end. */
  ttl?: number;
  enforced: boolean;
}

async function rulesOf(ctx: Context, ref: SetRef): Promise<SetRules> {
  try {
    const set = (await fetchData(ctx, R.librarySet.read, params({ mount: ref.mount, name: ref.setName }))) ?? {};
    return { ttl: seconds(set.ttl), enforced: set.disable_check_in_enforcement !== true };
  } catch {
    // Unread rules prove nothing: no refusal by the service can be relied on.
    return { enforced: false };
  }
}

/** When a loan begun at `sentAt` ends at the latest: the requested ttl capped at the set's ("" = no end). */
function returnsBy(rules: SetRules, ttl: Duration | undefined, sentAt: number): string | undefined {
  if (rules.ttl === undefined) return undefined;
  const asked = seconds(ttl);
  const lease = rules.ttl === 0 ? asked ?? 0 : Math.min(asked || rules.ttl, rules.ttl);
  return lease === 0 ? "" : new Date(sentAt + lease * 1000).toISOString();
}

/** What a borrow came to: the loan (when one answered), the lost check-outs left unresolved, the last failure. */
export interface Borrowed {
  out?: CheckOutResult & { borrowerDigest?: string };
  lost: LostCheckOut[];
  error?: unknown;
}

export interface BorrowArgs extends SetRef {
  ttl?: Duration;
  soleBorrower?: boolean;
}

/**
 * Borrows one account. After a lost response the status is read back: when no account went out to
 * this token meanwhile, nothing was taken and the check-out is tried again (three attempts in all).
 * An account that did go out is this attempt's only if no other borrower uses this token: with
 * `soleBorrower` it is checked in (which rotates the password nobody received) before the next
 * attempt, and after the last one; without, it is recorded in `lost` and the borrow stops, since
 * another attempt could only take a second account.
 */
export function borrowSafely(ctx: Context, args: BorrowArgs): Promise<Borrowed> {
  return oneAtATime(ctx, args, async () => {
    const client = ctx.client("secrets");
    let lost: LostCheckOut[] = [];
    let rules: SetRules | undefined;
    let error: unknown;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const before = await snapshot(ctx, args);
      const sentAt = Date.now();
      let out: CheckOutResult;
      try {
        out = await borrow(ctx, args);
      } catch (e) {
        error = e;
        if (!isAmbiguous(e)) break;
        const after = await snapshot(ctx, args).catch((r: unknown) => {
          throw Object.assign(e as Error, { message: `${(e as Error).message}; the check-out's outcome is unknown and the set's status could not be read back (${(r as Error).message}): an account it took stays out until its lease ends` });
        });
        const self = selves.get(client);
        const maybeMine = lentBetween(before, after).filter((a) => self === undefined || after.get(a) === self);
        if (maybeMine.length > 0) {
          rules ??= await rulesOf(ctx, args);
          const by = returnsBy(rules, args.ttl, sentAt);
          const at = new Date(sentAt).toISOString();
          lost.push(...maybeMine.map((a) => ({ serviceAccountName: a, borrowerDigest: after.get(a)!, sentAt: at, ...(by !== undefined ? { returnsBy: by } : {}) })));
          if (args.soleBorrower !== true) break;
          lost = await settleLost(ctx, args, lost, true, rules);
          if (lost.length > 0) break;
        }
        if (attempt < ATTEMPTS) await pause(e, attempt);
        continue;
      }
      // The loan answered: from here on nothing may fail the borrow, or its password would be lost.
      const digest = await snapshot(ctx, args).then((s) => s.get(out.serviceAccountName), () => undefined);
      if (digest !== undefined) selves.set(client, digest);
      lost = await settleLost(ctx, args, lost, args.soleBorrower === true, rules).catch(() => lost);
      return { out: digest === undefined ? out : { ...out, borrowerDigest: digest }, lost };
    }
    return { lost, error };
  });
}

/**
 * Reads lost check-outs back: one whose account is available again, or out to another borrower
 * than when it was recorded, has ended (the lease ran out, or it was returned) and is dropped. With
 * `sole`, one still out to this token is this program's and is checked in; the service itself
 * refuses an account another token borrowed, when the set enforces check-in and this process has
 * not learnt its own digest yet. Returns those still unresolved. Call inside oneAtATime.
 */
export async function settleLost(ctx: Context, ref: SetRef, lost: LostCheckOut[], sole: boolean, known?: SetRules): Promise<LostCheckOut[]> {
  if (lost.length === 0) return lost;
  const now = await snapshot(ctx, ref);
  const self = selves.get(ctx.client("secrets"));
  let rules = known;
  const left: LostCheckOut[] = [];
  for (const l of lost) {
    const digest = now.get(l.serviceAccountName);
    if (digest === undefined || digest !== l.borrowerDigest || (self !== undefined && digest !== self)) continue;
    if (!sole) {
      left.push(l);
      continue;
    }
    if (self === undefined) {
      rules ??= await rulesOf(ctx, ref);
      if (!rules.enforced) {
        left.push(l);
        continue;
      }
    }
    ctx.log(`check-out from ${ref.setName}: a response was lost and ${l.serviceAccountName} went out to this program meanwhile; checking it in (its password reached nobody)`);
    try {
      await checkInSafely(ctx, ref, { accounts: [l.serviceAccountName], expected: new Map([[l.serviceAccountName, digest]]) });
    } catch (e) {
      // Refused: another token's loan after all (or the set is gone). Anything else stays unresolved.
      if (!isSvcError(e, "invalid_input")) left.push(l);
    }
  }
  return left;
}

/** The lost check-outs still out on the loan they were recorded with; nothing is changed. */
export async function stillLost(ctx: Context, ref: SetRef, lost: LostCheckOut[]): Promise<LostCheckOut[]> {
  return settleLost(ctx, ref, lost, false);
}

/**
 * One line on lost check-outs left out, for errors and warnings: which accounts, until when, and
 * what the user can do (`checkIn` once the resource that recorded them is gone).
 */
export function describeLost(ref: SetRef, lost: LostCheckOut[], hint: "soleBorrower" | "checkIn" = "soleBorrower"): string {
  const until = (l: LostCheckOut) => (l.returnsBy ? `the service returns it by ${l.returnsBy}` : l.returnsBy === "" ? "lent without end" : "returned when its lease ends");
  const accounts = lost.map((l) => `${l.serviceAccountName} (${until(l)})`).join(", ");
  const todo = hint === "soleBorrower"
    ? "set soleBorrower: true and run again to have it checked in"
    : `checkIn({ setName: "${ref.setName}", serviceAccountNames: [...] }) returns it now`;
  return `${accounts} went out while a check-out's response was lost, and the set's status cannot tell that attempt's loan from ` +
    `another borrower's with the same token, so it was left out, not checked in; if no other program borrows from library set ` +
    `${ref.setName} with this token, ${todo}`;
}

/** The digest of whoever borrowed `account` now; undefined while it is available (or not in the set). */
export async function borrowerNow(ctx: Context, ref: SetRef, account: string): Promise<string | undefined> {
  return (await snapshot(ctx, ref)).get(account);
}

export interface CheckInRequest {
  /** The accounts to check in; undefined lets the service pick the caller's only one. */
  accounts?: string[];
  /** The forced check-in path for privileged callers. */
  manage?: boolean;
  /** Each account's borrower digest when the caller knows whose loan it returns (a resource's state). */
  expected?: Map<string, string>;
}

/**
 * Checks accounts in. A check-in whose response was lost is read back: an account available again,
 * or out to another borrower than before the request, was returned (and a new loan must never be
 * checked in); only those still out to the same borrower are sent again. Returns the accounts this
 * call returned. Call inside oneAtATime.
 */
export async function checkInSafely(ctx: Context, ref: SetRef, req: CheckInRequest): Promise<string[]> {
  const route = req.manage ? R.librarySet.manageCheckIn : R.librarySet.checkIn;
  let accounts = req.accounts;
  // The caller's own loan, picked by the service, cannot be found in the status: nothing to compare.
  const before = req.expected ?? (accounts === undefined && !req.manage ? new Map() as Snapshot : await snapshot(ctx, ref));
  const loans = [...before].filter(([, d]) => d !== undefined).map(([a]) => a);
  // A forced check-in without names returns the set's only loan, whoever holds it: named, so that a
  // repeat after a lost response can never return a loan made since.
  if (accounts === undefined && req.manage && loans.length === 1) accounts = loans;
  const returned = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    const body: Record<string, unknown> = { name: ref.setName };
    if (accounts !== undefined) body.service_account_names = accounts;
    try {
      const res = await ctx.client("secrets").request({ route, params: params({ mount: ref.mount, name: ref.setName }), body, retry: "never" });
      const d = dataOf(res.body);
      for (const a of Array.isArray(d.check_ins) ? d.check_ins.map(String) : []) returned.add(a);
      return [...returned];
    } catch (e) {
      if (!isAmbiguous(e)) throw e;
      // Without names the service picks the caller's only loan again, and an account the lost
      // request returned is then not listed (the status cannot say which was the caller's). A
      // forced one without names had no single loan to return: nothing to repeat.
      if (accounts === undefined) {
        if (req.manage && loans.length === 0) return [];
        if (req.manage) throw e;
      } else {
        const now = await snapshot(ctx, ref);
        const out = accounts.filter((a) => before.get(a) !== undefined);
        for (const a of out) if (now.get(a) !== before.get(a)) returned.add(a);
        accounts = out.filter((a) => now.get(a) === before.get(a));
        if (accounts.length === 0) return [...returned];
      }
      if (attempt >= ATTEMPTS) throw e;
      await pause(e, attempt);
    }
  }
}
