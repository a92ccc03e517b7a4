import { createHash } from "node:crypto";
import { header, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import { randomId } from "../../util";
import type { SecretsContext } from "../context";
import { dataReply, leasedReply } from "../envelope";
import { bad, body, str, strList } from "../fields";
import { parseDuration } from "../duration";
import { own } from "../objects";
import { handled, requireConfig, rotateAccount, serialized } from "./rotate";
import { configOf, loans, managed, sets, type DirectoryConfig, type LibrarySet } from "./state";

export const NONE_AVAILABLE = "No service accounts available for check-out.";

/** Who borrowed: a digest of the caller's token, so the token itself is never stored or shown. */
function borrowerOf(req: Incoming): string {
  return `hmac-sha256:${createHash("sha256").update(header(req.headers, "x-svc-token") ?? "").digest("hex")}`;
}

/**
 * Checks in every account whose lease has ended; a check-in rotates the password. The loan stays
 * until the rotation is done, so no check-out can be handed the old password meanwhile; if the
 * rotation fails the account stays out (the borrower may still hold the password).
 */
export async function sweep(ctx: SecretsContext): Promise<void> {
  const cfg = configOf(ctx);
  if (!cfg) return;
  const now = ctx.rt.clock.nowMs();
  const all = loans(ctx);
  for (const account of Object.keys(all)) {
    const loan = all[account];
    if (loan.expires === 0 || loan.expires > now) continue;
    await serialized(ctx, `loan:${account}`, async () => {
      if (own(loans(ctx), account) !== loan) return;
      await rotateAccount(ctx, cfg, account);
      delete loans(ctx)[account];
    });
  }
}

function setAndConfig(ctx: SecretsContext, name: string): { set: LibrarySet; cfg: DirectoryConfig } {
  const cfg = requireConfig(ctx);
  if (typeof cfg === "string") bad(cfg);
  const set = own(sets(ctx), name);
  if (!set) bad(`library set "${name}" does not exist`);
  return { set, cfg };
}

/** Lends the first available account in set order for the requested ttl, capped at the set's ttl. */
async function checkOut(ctx: SecretsContext, req: Incoming): Promise<Reply> {
  const name = req.params.name;
  const b = body(req);
  setAndConfig(ctx, name);
  let requested: number | undefined;
  if (b.ttl !== undefined && b.ttl !== null) {
    requested = parseDuration(b.ttl);
    if (requested === undefined) bad('ttl must be integer seconds or a duration such as "1h"');
  }
  await sweep(ctx);
  // Looked up again after the wait: the set may have changed.
  const { set, cfg } = setAndConfig(ctx, name);
  const account = set.service_account_names.find((a) => !own(loans(ctx), a));
  if (account === undefined) bad(NONE_AVAILABLE);
  const ttl = set.ttl === 0 ? requested ?? 0 : Math.min(requested || set.ttl, set.ttl);
  const lease_id = `${ctx.mountPath}/library/${name}/check-out/${randomId("lease", 24).slice(6)}`;
  // Taken before any wait, so two concurrent check-outs never get the same account.
  loans(ctx)[account] = { set: name, borrower: borrowerOf(req), lease_id, expires: ttl === 0 ? 0 : ctx.rt.clock.nowMs() + ttl * 1000 };
  if (!own(managed(ctx), account)) {
    try {
      await rotateAccount(ctx, cfg, account);
    } catch (e) {
      delete loans(ctx)[account];
      throw e;
    }
  }
  const password = own(managed(ctx), account)!.password;
  return leasedReply({ service_account_name: account, password }, { lease_id, renewable: true, lease_duration: ttl });
}

/**
 * Returns accounts to the set, rotating each. Without `manage`, only accounts the caller checked
 * out, unless the set disables enforcement. An account that is already available is skipped
 * (success, not listed). Every account is checked before anything changes.
 */
function checkIn(manage: boolean) {
  return async (ctx: SecretsContext, req: Incoming): Promise<Reply> => {
    const name = req.params.name;
    const b = body(req);
    if (str(b, "name") !== undefined && str(b, "name") !== name) bad(`name "${str(b, "name")}" does not match the set in the path ("${name}")`);
    setAndConfig(ctx, name);
    await sweep(ctx);
    const { set, cfg } = setAndConfig(ctx, name);
    const caller = borrowerOf(req);
    const enforced = !manage && !set.disable_check_in_enforcement;
    const mayReturn = (a: string) => !enforced || own(loans(ctx), a)?.borrower === caller;
    let accounts = strList(b, "service_account_names", true);
    if (accounts === undefined) {
      const candidates = set.service_account_names.filter((a) => own(loans(ctx), a) && mayReturn(a));
      if (candidates.length > 1) bad(`${candidates.length} service accounts are checked out (${candidates.join(", ")}); give service_account_names`);
      accounts = candidates;
    }
    const problems: string[] = [];
    for (const a of accounts) {
      if (!set.service_account_names.includes(a)) problems.push(`service account "${a}" is not a member of library set "${name}"`);
      else if (own(loans(ctx), a) && !mayReturn(a)) problems.push(`"${a}" cannot be checked in: it was checked out by another token (the manage check-in endpoint can force it)`);
    }
    if (problems.length > 0) bad(...problems);
    const checkIns: string[] = [];
    for (const a of new Set(accounts)) {
      const loan = own(loans(ctx), a);
      if (!loan) continue;
      // One check-in per loan: a concurrent check-in of the same account waits, then finds it returned.
      await serialized(ctx, `loan:${a}`, async () => {
        if (own(loans(ctx), a) !== loan) return;
        await rotateAccount(ctx, cfg, a);
        delete loans(ctx)[a];
        checkIns.push(a);
      });
    }
    return dataReply({ check_ins: checkIns });
  };
}

export const checkOutRoutes: Route<SecretsContext>[] = [
  { method: "POST", path: "library/:name/check-out", handler: handled(checkOut) },
  { method: "POST", path: "library/:name/check-in", handler: handled(checkIn(false)) },
  { method: "POST", path: "library/manage/:name/check-in", handler: handled(checkIn(true)), sudo: true },
];
