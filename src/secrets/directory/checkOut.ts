/**
 * A borrowed library account held for the life of the resource: create checks one out, delete
 * checks it in (which rotates its password), and refresh drops it once the lease has ended, so
 * the next `pulumi up` borrows again. The functions below do the same one call at a time. What
 * happens when a response is lost is in lending.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { PartialFailure, type Context, type ResourceDefinition } from "../../core/definition";
import { field, fieldSet, output, pick, type ArgsOf, type OutputsOf, type PlainArgsOf, type StateOf } from "../../core/fields";
import { type FunctionDefinition } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { isSvcError } from "../../http";
import { duration } from "../duration";
import { name } from "../fields";
import { mountField } from "./fields";
import {
  borrowerNow, borrowSafely, checkInSafely, describeLost, loanFields, oneAtATime, settleLost, stillLost,
  type CheckOutResult, type LostCheckOut, type SetRef,
} from "./lending";
import { setRefFields } from "./librarySet";
import { DIRECTORY_ROUTES as R, warn } from "./routes";
import type { ConnectionArgs } from "../../core/connection";

export { NONE_AVAILABLE, type CheckOutResult, type LostCheckOut } from "./lending";

const checkOutFieldsOwn = {
  /** Library set to borrow from. On a resource, changing it returns the account and borrows from the new set. */
  setName: field(name, { identity: true }),
  /**
   * Lease length: seconds or duration text; capped at the set's ttl. Default the set's ttl. On a
   * resource, changing it returns the account and borrows again.
   */
  ttl: field(duration, { optional: true, immutable: true }),
  /** Any change returns the account and borrows again (which gives a fresh password). */
  triggers: field(() => z.array(z.unknown()), { optional: true, immutable: true }),
  /**
   * Declares that nothing else (another stack, other check-outs of this program: `CheckOut`
   * resources, `checkOut` calls) borrows from this set with the same token or identity entity. The
   * service's status shows who borrowed an account, not which request did, so only then can an
   * account that went out while a check-out's response was lost be told to be this check-out's: it
   * is checked in at once (its password reached nobody). Default false: such an account is never
   * checked in (it could be another borrower's loan); it is reported in `lostCheckOuts` (by the
   * function, in its error when no loan answered), and the service returns it when its lease ends.
   * On a resource, changing this updates in place: set later, it checks the recorded accounts in.
   */
  soleBorrower: field(() => z.boolean({ error: "must be a boolean" }), { optional: true }),
  /** When the account was checked out (ISO 8601), so refresh can tell that the lease ended. */
  checkedOutAt: output<string>(),
  /**
   * SHA-256 of the borrower fields the service showed for this loan (never the token), so a later
   * loan of the account to another token is never taken for this one.
   */
  borrowerDigest: output<string>({ optional: true }),
};

export const checkOutFields: typeof mountField & typeof loanFields & typeof checkOutFieldsOwn = { ...mountField, ...loanFields, ...checkOutFieldsOwn };

export type CheckOutState = StateOf<typeof checkOutFields>;

const leaseEnded = (p: CheckOutState) =>
  !!p.leaseDuration && !!p.checkedOutAt && Date.now() >= Date.parse(p.checkedOutAt) + p.leaseDuration * 1000;

/**
 * Whether the account is still out on this loan: set present, account out (to the borrower recorded
 * at check-out, when state has one), lease not over.
 */
async function stillHeld(ctx: Context, p: CheckOutState): Promise<boolean> {
  if (!p.serviceAccountName || leaseEnded(p)) return false;
  const borrower = await borrowerNow(ctx, ref(p), p.serviceAccountName);
  return borrower !== undefined && (p.borrowerDigest === undefined || borrower === p.borrowerDigest);
}

const ref = (p: CheckOutState): SetRef => ({ setName: p.setName, mount: p.mount });

/** The loan's fields for state, without what a function's result carries for its caller only. */
function loanOf(out: CheckOutResult & { borrowerDigest?: string }): Partial<CheckOutState> {
  const { lostCheckOuts: _, ...loan } = out;
  return loan;
}

/** A partial failure whose message says what happened to the check-out, not that an object was created. */
function keptWithLost(id: string, props: CheckOutState, cause: unknown, lost: LostCheckOut[], held: boolean): PartialFailure {
  const error = cause instanceof Error ? cause : new Error(String(cause));
  const pf = new PartialFailure(id, props, error);
  pf.message = `${error.message}; the outcome is unknown: ${describeLost(ref(props), lost)} (kept in state as ${id}` +
    `${held ? "" : " without an account"}; the next pulumi up or destroy reads it back)`;
  return pf;
}

/** Where a check-out that holds no account yet is kept in state: the action's path (not a lease). */
const pendingId = (p: CheckOutState) => `${p.mount}/library/${p.setName}/check-out`;

export const checkOutDefinition: ResourceDefinition<CheckOutState, CheckOutState> = {
  kind: "secrets:DirectoryCheckOut",
  // A lease of a library set's account: taken, read back by the set's status, returned.
  routes: { checkOut: R.librarySet.checkOut, status: R.librarySet.status, checkIn: R.librarySet.checkIn },
  discover: { none: "a check-out is a lease of an account taken by whoever holds it: declare one where this stack should borrow an account" },
  unreadable: "a check-out is a lease held by the stack that took it: its read needs the loan that stack recorded (the account, who borrowed it)",
  // The identity (setName, mount) has a replacement that keeps the set check the old account in
  // first, which frees it for the new check-out (a set of one account).
  ...fieldSet(checkOutFields),
  async create(ctx, inputs) {
    const checkedOutAt = new Date().toISOString();
    const r = await borrowSafely(ctx, inputs);
    if (r.out) {
      const outs: CheckOutState = { ...inputs, ...loanOf(r.out), checkedOutAt };
      if (r.lost.length > 0) throw keptWithLost(r.out.leaseId, { ...outs, lostCheckOuts: r.lost }, r.error, r.lost, true);
      return { id: r.out.leaseId, outs };
    }
    // The outcome is unknown: kept in state, so the next up (an update, after a partial failure) or destroy reads it back.
    if (r.lost.length > 0) throw keptWithLost(pendingId(inputs), { ...inputs, lostCheckOuts: r.lost }, r.error, r.lost, false);
    throw r.error;
  },
  async read(ctx, _id, props) {
    // Without a loan it is gone, records and all: kept, it would hold no account and no later up would borrow.
    if (!(await stillHeld(ctx, props))) return undefined;
    const lost = await stillLost(ctx, ref(props), props.lostCheckOuts ?? []);
    const { lostCheckOuts: _, ...rest } = props;
    return lost.length > 0 ? { ...rest, lostCheckOuts: lost } : rest;
  },
  /**
   * Runs after a partial failure, or when soleBorrower changed (every other input replaces): the lost
   * check-outs are read back (and checked in with soleBorrower), and a check-out that holds no
   * account borrows now. What is still unknown stays recorded, with a warning, not as a failure.
   */
  async update(ctx, id, olds, news) {
    const sole = news.soleBorrower === true;
    let lost = await oneAtATime(ctx, ref(news), () => settleLost(ctx, ref(news), olds.lostCheckOuts ?? [], sole));
    const { lostCheckOuts: _, ...kept } = olds;
    let outs: CheckOutState = { ...kept, ...news };
    if (!(await stillHeld(ctx, olds))) {
      const checkedOutAt = new Date().toISOString();
      const r = await borrowSafely(ctx, news);
      lost = [...lost, ...r.lost];
      if (!r.out) {
        if (lost.length > 0) throw keptWithLost(id, { ...news, lostCheckOuts: lost }, r.error, lost, false);
        throw r.error;
      }
      outs = { ...news, ...loanOf(r.out), checkedOutAt };
    }
    if (lost.length > 0) warn(`check-out from ${news.setName}: ${describeLost(ref(news), lost)}`);
    return lost.length > 0 ? { ...outs, lostCheckOuts: lost } : outs;
  },
  async delete(ctx, _id, props) {
    await oneAtATime(ctx, ref(props), async () => {
      const lost = await settleLost(ctx, ref(props), props.lostCheckOuts ?? [], props.soleBorrower === true);
      if (lost.length > 0) warn(`check-out from ${props.setName} deleted without returning what it cannot prove its own: ${describeLost(ref(props), lost, "checkIn")}`);
      // Once the lease ended the service checked the account in itself; it may be someone else's now.
      if (!(await stillHeld(ctx, props))) return;
      const expected = props.borrowerDigest === undefined ? undefined : new Map([[props.serviceAccountName!, props.borrowerDigest]]);
      try {
        await checkInSafely(ctx, ref(props), { accounts: [props.serviceAccountName!], expected });
      } catch (e) {
        // The set is gone, and the account with it.
        if (isSvcError(e, "invalid_input") && /does not exist/.test((e as Error).message)) return;
        throw e;
      }
    });
  },
};

export type CheckOutArgs = ArgsOf<typeof checkOutFields> & ConnectionArgs<"secrets">;

/**
 * A service account borrowed from a library set for the life of the resource
 * (`POST /{mount}/library/{name}/check-out`; the resource id is the lease id).
 *
 * @remarks
 * Create checks out the first available account of the set; a set with none fails with the
 * service's 400 `No service accounts available for check-out.` and what to do. Delete checks the
 * account in (the service rotates its password). Refresh drops the resource once the lease has ended
 * or the account was checked in elsewhere (available, or out to another borrower than
 * `borrowerDigest`), so the next `pulumi up` borrows again; delete then leaves the account alone (it
 * may be someone else's by now).
 *
 * A check-out is an action and is never blindly repeated. If its response is lost (timeout, dropped
 * connection, 5xx, 429), the provider reads the set's status back: when no account went out
 * meanwhile, nothing was taken and it tries again (three attempts in all, honouring `Retry-After`).
 * An account that did go out may be this attempt's loan, whose password nobody received, or another
 * borrower's: the status shows the borrower's token and entity, not which request borrowed, so two
 * borrowers with one token look the same (docs/assumptions.md, item 81). Therefore:
 * - with `soleBorrower: true`, an account that went out to this token is this program's: it is
 *   checked in through the normal check-in path (which the service refuses for another token's loan)
 *   before the next attempt, and after the last one, so no lease is left that nobody holds;
 * - without it, nothing is checked in: the check-out stops, and the create fails as a **partial
 *   failure** that keeps the resource in state (id `<mount>/library/<set>/check-out` when it holds no
 *   account yet) with `lostCheckOuts: [{ serviceAccountName, borrowerDigest, sentAt, returnsBy }]`.
 *   The next `pulumi up` (an update) reads them back, drops those that came back or went to another
 *   borrower, borrows if it holds no account, and keeps the rest recorded with a warning; setting
 *   `soleBorrower: true` then checks them in. Destroy checks in what it can prove its own and names
 *   the rest. The service returns each by itself at `returnsBy` (its lease's end).
 *
 * A check-in (delete, `checkIn`, `manageCheckIn`) whose response was lost is read back too: an
 * account available again, or out to another borrower than before, was returned and is never sent
 * again (that would return someone's new loan); only one still out to the same borrower is.
 *
 * @example
 * ```ts
 * const borrowed = new svc.secrets.directory.CheckOut("deployer", { setName: pool.name, ttl: "1h" });
 * export const account = borrowed.serviceAccountName;
 * export const password = borrowed.password; // secret
 * ```
 */
export interface CheckOut extends OutputsOf<typeof checkOutFields> {}
export class CheckOut extends SvcResource(checkOutDefinition) { constructor(name: string, args: CheckOutArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

// Typed by its source: a picked record from another file loses its fields' docs in the declaration emit.
const checkOutFnFields: Pick<typeof checkOutFields, "setName" | "mount" | "ttl" | "soleBorrower"> = pick(checkOutFields, "setName", "mount", "ttl", "soleBorrower");

/** What to borrow: the set, and optionally the lease length and the sole-borrower declaration. */
export type CheckOutFnArgs = PlainArgsOf<typeof checkOutFnFields>;

const checkOutFn: FunctionDefinition<CheckOutFnArgs, CheckOutResult> = { name: "checkOut", fields: checkOutFnFields, sideEffects: true,
  async run(ctx, args) {
    const r = await borrowSafely(ctx, args);
    // A function keeps no state: what it cannot resolve is told to its caller, with the loan if there is one.
    if (r.out) {
      const { borrowerDigest: _, ...out } = r.out;
      if (r.lost.length === 0) return out;
      warn(`checkOut from ${args.setName}: ${describeLost(args, r.lost, "checkIn")}`);
      return { ...out, lostCheckOuts: r.lost };
    }
    if (r.lost.length > 0) {
      const e = r.error instanceof Error ? r.error : new Error(String(r.error));
      e.message = `${e.message}; the outcome is unknown: ${describeLost(args, r.lost, "checkIn")}`;
      throw e;
    }
    throw r.error;
  },
};

/**
 * Checks out the first available account of a set. A lost response is read back before anything is
 * repeated (see `soleBorrower`). No request during preview. Prefer {@link checkOutOutput} (secret),
 * and prefer the `CheckOut` resource, which also checks in.
 *
 * @remarks
 * A lost response is recovered as for the `CheckOut` resource; having no state, the function
 * reports what it cannot resolve: in its error when no loan answered
 * (`the outcome is unknown: <account> (the service returns it by <time>) went out …`), or in
 * `lostCheckOuts` beside the loan, with a warning.
 */
export const checkOut = forms(checkOutFn).promise;

/** Output form of {@link checkOut}: secret, unknown during preview. */
export const checkOutOutput = forms(checkOutFn, { secret: true }).output;

/** What a check-in answered. */
export interface CheckInResult {
  /** The accounts checked in by this call (an account that was already available is not listed). */
  checkIns: string[];
}

const checkInFieldsOwn = {
  /** Accounts to check in; may be left out when the caller has exactly one checked out. */
  serviceAccountNames: field(() => z.array(z.string().min(1, "must not be empty")), { optional: true }),
};

const checkInFields: typeof setRefFields & typeof checkInFieldsOwn = { ...setRefFields, ...checkInFieldsOwn };

/** Which accounts to check in, and where. */
export type CheckInArgs = PlainArgsOf<typeof checkInFields>;

const inArgs = fieldSet(checkInFields).schema;

function checkInFn(name: string, manage: boolean): FunctionDefinition<CheckInArgs, CheckInResult> {
  return {
    name,
    schema: inArgs,
    fields: checkInFields,
    sideEffects: true,
    // A lost response is read back, never blindly repeated: the account may have been lent again since.
    run: async (ctx, args) => ({
      checkIns: await oneAtATime(ctx, args, () => checkInSafely(ctx, args, { accounts: args.serviceAccountNames, manage })),
    }),
  };
}

const checkInDef = checkInFn("checkIn", false);
const manageDef = checkInFn("manageCheckIn", true);

/** Checks accounts in (each gets a new password); only the token that checked them out may, unless the set disables enforcement. */
export const checkIn = forms(checkInDef).promise;

/** Output form of {@link checkIn}; unknown during preview. */
export const checkInOutput = forms(checkInDef).output;

/** Forced check-in for highly privileged callers (a sudo token), whoever checked the accounts out. */
export const manageCheckIn = forms(manageDef).promise;

/** Output form of {@link manageCheckIn}; unknown during preview. */
export const manageCheckInOutput = forms(manageDef).output;
