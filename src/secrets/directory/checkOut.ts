/**
 * A borrowed library account held for the life of the resource: create checks one out, delete
 * checks it in (which rotates its password), and refresh drops it once the lease has ended, so
 * the next `pulumi up` borrows again. The functions below do the same one call at a time.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { Context, ResourceDefinition } from "../../core/definition";
import { invoke, invokeOutput, type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions, type InputsOf } from "../../core/fn";
import { SvcResource } from "../../core/resource";
import { ConflictError, isAmbiguous, isSvcError, registerSecret } from "../../http";
import { duration, type Duration } from "../duration";
import { dataOf } from "../envelope";
import { mount, name } from "../fields";
import { fetchData } from "../pathObject";
import { params, setRef, type SetRefArgs } from "./librarySet";
import { DEFAULT_DIRECTORY_MOUNT, DIRECTORY_ROUTES as R } from "./routes";
import type { ConnectionArgs } from "../../core/connection";

export const NONE_AVAILABLE = "No service accounts available for check-out.";

export interface CheckOutState {
  setName: string;
  mount: string;
  ttl?: Duration;
  /** Any change replaces the check-out: the account is checked in and another borrowed. */
  triggers?: unknown[];
  serviceAccountName?: string;
  password?: string;
  leaseId?: string;
  leaseDuration?: number;
  /** When the lease began (ISO), so refresh can tell that it ended. */
  checkedOutAt?: string;
  [key: string]: unknown;
}

/** One check-out as the service answered it. */
export interface CheckOutResult {
  /** The account borrowed. */
  serviceAccountName: string;
  /** Its password for the length of the lease (secret). */
  password: string;
  /** The lease to name when checking the account in or renewing. */
  leaseId: string;
  /** Seconds; 0 = no end. */
  leaseDuration: number;
}

let schema: z.ZodType | undefined;

/** POST check-out; the service's 400 for an empty set becomes a message that says what to do. */
async function borrow(ctx: Context, args: { setName: string; mount?: string; ttl?: Duration }): Promise<CheckOutResult> {
  const body: Record<string, unknown> = { name: args.setName };
  if (args.ttl !== undefined) body.ttl = args.ttl;
  let res;
  try {
    res = await ctx.client("secrets").request({ route: R.checkOut, params: params({ ...args, name: args.setName }), body });
  } catch (e) {
    if (isSvcError(e, "invalid_input") && (e as { messages: string[] }).messages.some((m) => m.includes(NONE_AVAILABLE))) {
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
  registerSecret(out.password);
  return out;
}

/** The set's accounts that are free now. */
async function available(ctx: Context, p: { setName: string; mount?: string }): Promise<Set<string>> {
  const status = (await fetchData(ctx, R.status, params({ mount: p.mount, name: p.setName }))) ?? {};
  return new Set(Object.entries(status).filter(([, s]) => (s as { available?: unknown })?.available === true).map(([a]) => a));
}

/** Borrows of this process per set, one at a time: a lost response is told apart by the set's status. */
const borrowing = new Map<string, Promise<unknown>>();

/**
 * Borrows once. A check-out whose response was lost (dropped connection, 5xx, 429) may have taken
 * an account whose password nobody received: the account that went out meanwhile is checked in
 * again (which rotates that password) and the borrow is tried once more, so no account stays out
 * on a lease no state holds.
 */
async function borrowOnce(ctx: Context, p: CheckOutState): Promise<CheckOutResult> {
  const key = `${ctx.client("secrets").baseUrl}|${p.mount ?? DEFAULT_DIRECTORY_MOUNT}|${p.setName}`;
  const previous = borrowing.get(key) ?? Promise.resolve();
  const run = previous.catch(() => undefined).then(async () => {
    for (let attempt = 1; ; attempt++) {
      const before = await available(ctx, p);
      try {
        return await borrow(ctx, p);
      } catch (e) {
        if (!isAmbiguous(e) || attempt >= 3) throw e;
        const now = await available(ctx, p);
        const taken = [...before].filter((a) => !now.has(a));
        if (taken.length > 0) {
          ctx.log(`check-out from ${p.setName}: the response was lost (${(e as Error).message}); checking ${taken.join(", ")} in again, then borrowing anew`);
          await ctx.client("secrets").request({
            route: R.manageCheckIn, params: params({ mount: p.mount, name: p.setName }),
            body: { name: p.setName, service_account_names: taken }, retry: "safe",
          });
        }
      }
    }
  });
  borrowing.set(key, run);
  try {
    return await run;
  } finally {
    if (borrowing.get(key) === run) borrowing.delete(key);
  }
}

const leaseEnded = (p: CheckOutState) =>
  !!p.leaseDuration && !!p.checkedOutAt && Date.now() >= Date.parse(p.checkedOutAt) + p.leaseDuration * 1000;

/** Whether the account is still out on this lease: set present, account not available, lease not over. */
async function stillHeld(ctx: Context, p: CheckOutState): Promise<boolean> {
  if (leaseEnded(p)) return false;
  const status = await fetchData(ctx, R.status, params({ mount: p.mount, name: p.setName }));
  const s = status?.[p.serviceAccountName ?? ""] as { available?: unknown } | undefined;
  return !!s && s.available !== true;
}

export const checkOutDefinition: ResourceDefinition<CheckOutState, CheckOutState> = {
  kind: "secrets:DirectoryCheckOut",
  schema: () => (schema ??= z.object({ setName: name(), mount: mount(), ttl: duration().optional(), triggers: z.array(z.unknown()).optional() })),
  defaults: { mount: DEFAULT_DIRECTORY_MOUNT },
  immutable: ["setName", "mount", "ttl", "triggers"],
  // Checking the old account in first frees it for the new check-out (a set of one account).
  identity: ["setName", "mount"],
  secrets: ["password"],
  outputs: ["serviceAccountName", "password", "leaseId", "leaseDuration", "checkedOutAt"],
  async create(ctx, inputs) {
    const checkedOutAt = new Date().toISOString();
    const out = await borrowOnce(ctx, inputs);
    return { id: out.leaseId, outs: { ...inputs, ...out, checkedOutAt } };
  },
  async read(ctx, _id, props) {
    return (await stillHeld(ctx, props)) ? props : undefined;
  },
  async update() {
    throw new Error("a check-out is never updated in place: every input change replaces it");
  },
  async delete(ctx, _id, props) {
    // Once the lease ended the service checked the account in itself; it may be someone else's now.
    if (!(await stillHeld(ctx, props))) return;
    try {
      await ctx.client("secrets").request({
        route: R.checkIn, params: params({ mount: props.mount, name: props.setName }),
        body: { name: props.setName, service_account_names: [props.serviceAccountName] }, retry: "safe",
      });
    } catch (e) {
      // The set is gone, and the account with it.
      if (isSvcError(e, "invalid_input") && /does not exist/.test((e as Error).message)) return;
      throw e;
    }
  },
};

export interface CheckOutArgs extends ConnectionArgs<"secrets"> {
  /** Library set to borrow from; changing it returns this account and borrows from the other set. */
  setName: pulumi.Input<string>;
  /** Mount path of the directory engine. Default `directory`. */
  mount?: pulumi.Input<string>;
  /** Lease length: seconds or duration text; capped at the set's ttl. Default the set's ttl. */
  ttl?: pulumi.Input<number | string>;
  /** Any change returns the account and borrows again (which gives a fresh password). */
  triggers?: pulumi.Input<unknown[]>;
}

/**
 * A service account borrowed from a library set for the life of the resource.
 *
 * @example
 * ```ts
 * const borrowed = new svc.secrets.directory.CheckOut("deployer", { setName: pool.name, ttl: "1h" });
 * export const account = borrowed.serviceAccountName;
 * export const password = borrowed.password; // secret
 * ```
 */
export class CheckOut extends SvcResource {
  /** The library set. */
  declare readonly setName: pulumi.Output<string>;
  /** Mount path. */
  declare readonly mount: pulumi.Output<string>;
  /** Requested lease length, when set. */
  declare readonly ttl: pulumi.Output<number | string | undefined>;
  /** Your triggers. */
  declare readonly triggers: pulumi.Output<unknown[] | undefined>;
  /** The borrowed account. */
  declare readonly serviceAccountName: pulumi.Output<string>;
  /** Secret: the account's password for this loan; it is rotated when the account is checked in. */
  declare readonly password: pulumi.Output<string>;
  /** The lease id. */
  declare readonly leaseId: pulumi.Output<string>;
  /** Lease length in seconds (0 = no end). */
  declare readonly leaseDuration: pulumi.Output<number>;
  /** When the account was checked out. */
  declare readonly checkedOutAt: pulumi.Output<string>;

  constructor(name: string, args: CheckOutArgs, opts?: pulumi.CustomResourceOptions) {
    super(checkOutDefinition, name, args, opts);
  }
}

// ---- functions ----

export interface CheckOutFnArgs extends SetRefArgs {
  /** Lease length: seconds or duration text; capped at the set's ttl. */
  ttl?: number | string;
}

let outSchema: z.ZodType | undefined;
const checkOutFn: FunctionDefinition<CheckOutFnArgs, CheckOutResult> = {
  name: "checkOut",
  schema: () => (outSchema ??= z.object({ setName: name(), mount: mount().optional(), ttl: duration().optional() })),
  sideEffects: true,
  run: (ctx, args) => borrow(ctx, args),
};

/** Checks out the first available account of a set. No request during preview. Prefer {@link checkOutOutput} (secret). */
export function checkOut(args: CheckOutFnArgs, opts?: SvcInvokeOptions<"secrets">): Promise<CheckOutResult> {
  return invoke(checkOutFn, args, opts);
}

/** Output form of {@link checkOut}: secret, unknown during preview. */
export function checkOutOutput(args: InputsOf<CheckOutFnArgs>, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<CheckOutResult> {
  return pulumi.secret(invokeOutput(checkOutFn, args, opts));
}

/** What a check-in answered. */
export interface CheckInResult {
  /** The accounts checked in by this call (an account that was already available is not listed). */
  checkIns: string[];
}

export interface CheckInArgs extends SetRefArgs {
  /** Accounts to check in; may be left out when the caller has exactly one checked out. */
  serviceAccountNames?: string[];
}

let inSchema: z.ZodType | undefined;
const inArgs = () => (inSchema ??= (setRef() as z.ZodObject).extend({ serviceAccountNames: z.array(z.string().min(1, "must not be empty")).optional() }));

function checkInFn(name: string, route: string): FunctionDefinition<CheckInArgs, CheckInResult> {
  return {
    name,
    schema: inArgs,
    sideEffects: true,
    async run(ctx, args) {
      const body: Record<string, unknown> = { name: args.setName };
      if (args.serviceAccountNames !== undefined) body.service_account_names = args.serviceAccountNames;
      // Checking in twice is harmless (an available account is skipped), so a retry is safe.
      const res = await ctx.client("secrets").request({ route, params: params({ ...args, name: args.setName }), body, retry: "safe" });
      const d = dataOf(res.body);
      return { checkIns: Array.isArray(d.check_ins) ? d.check_ins.map(String) : [] };
    },
  };
}

const checkInDef = checkInFn("checkIn", R.checkIn);
const manageDef = checkInFn("manageCheckIn", R.manageCheckIn);
type CheckInInputs = InputsOf<CheckInArgs>;

/** Checks accounts in (each gets a new password); only the token that checked them out may, unless the set disables enforcement. */
export function checkIn(args: CheckInArgs, opts?: SvcInvokeOptions<"secrets">): Promise<CheckInResult> {
  return invoke(checkInDef, args, opts);
}

/** Output form of {@link checkIn}; unknown during preview. */
export function checkInOutput(args: CheckInInputs, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<CheckInResult> {
  return invokeOutput(checkInDef, args, opts);
}

/** Forced check-in for highly privileged callers (a sudo token), whoever checked the accounts out. */
export function manageCheckIn(args: CheckInArgs, opts?: SvcInvokeOptions<"secrets">): Promise<CheckInResult> {
  return invoke(manageDef, args, opts);
}

/** Output form of {@link manageCheckIn}; unknown during preview. */
export function manageCheckInOutput(args: CheckInInputs, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<CheckInResult> {
  return invokeOutput(manageDef, args, opts);
}
