import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { dataReply, listReply } from "../envelope";
import { bad, type Body, body, bool, notFound, readOne, strList } from "../fields";
import { parseDuration } from "../duration";
import { own } from "../objects";
import { sweep } from "./checkOut";
import { directoryFor, handled, requireConfig, rotateAccount } from "./rotate";
import { loans, managed, roleOf, sets, setOf, type LibrarySet } from "./state";

const DAY = 86400;

function duration(b: Body, key: string, fallback: number): number {
  if (b[key] === undefined || b[key] === null) return fallback;
  const seconds = parseDuration(b[key]);
  if (seconds === undefined) bad(`${key} must be integer seconds or a duration such as "24h" (0 = unlimited)`);
  return seconds;
}

/** Problems with giving `accounts` to set `name`: the one-owner rules (checked again after any wait). */
function ownership(ctx: SecretsContext, name: string, accounts: string[]): string[] {
  const problems: string[] = [];
  for (const a of accounts) {
    const set = setOf(ctx, a);
    if (set !== undefined && set !== name) problems.push(`service account "${a}" is already managed by another set ("${set}")`);
    const role = roleOf(ctx, a);
    if (role !== undefined) problems.push(`service account "${a}" is already managed by role "${role}"`);
  }
  return problems;
}

/**
 * Creates or updates a set in place. Accounts new to the set are checked in, which rotates their
 * passwords; accounts that leave it must not be checked out.
 */
async function write(ctx: SecretsContext, req: Incoming): Promise<Reply> {
  const cfg = requireConfig(ctx);
  if (typeof cfg === "string") bad(cfg);
  const name = req.params.name;
  const b = body(req);
  const old = own(sets(ctx), name);
  const given = strList(b, "service_account_names", true);
  const accounts = [...new Set(given ?? old?.service_account_names ?? [])];
  const problems: string[] = [];
  if (accounts.length === 0) problems.push("missing service_account_names: give at least one service account");
  const ttl = duration(b, "ttl", old?.ttl ?? DAY);
  const maxTtl = duration(b, "max_ttl", old?.max_ttl ?? DAY);
  if (ttl > 0 && maxTtl > 0 && maxTtl < ttl) problems.push(`max_ttl (${maxTtl}s) must not be less than ttl (${ttl}s)`);
  problems.push(...ownership(ctx, name, accounts));
  await sweep(ctx);
  const leaving = (old?.service_account_names ?? []).filter((a) => !accounts.includes(a));
  for (const a of leaving) if (own(loans(ctx), a)) problems.push(`service account "${a}" is checked out; check it in before removing it from the set`);
  if (problems.length > 0) bad(...problems);

  const joining = accounts.filter((a) => !old?.service_account_names.includes(a));
  const directory = directoryFor(ctx, cfg);
  const missing: string[] = [];
  for (const a of joining) if (!(await directory.exists(a))) missing.push(`service account "${a}" does not exist in the directory`);
  if (missing.length > 0) bad(...missing);
  for (const a of joining) await rotateAccount(ctx, cfg, a);
  // Checked again after the waits: a concurrent write may have taken an account meanwhile.
  const late = ownership(ctx, name, accounts);
  if (late.length > 0) bad(...late);

  sets(ctx)[name] = {
    service_account_names: accounts,
    ttl,
    max_ttl: maxTtl,
    disable_check_in_enforcement: bool(b, "disable_check_in_enforcement") ?? old?.disable_check_in_enforcement ?? false,
  };
  for (const a of leaving) delete managed(ctx)[a];
  return emptyReply(204);
}

function remove(ctx: SecretsContext, req: Incoming): Reply {
  const set = own(sets(ctx), req.params.name);
  if (!set) return emptyReply(204);
  const out = set.service_account_names.filter((a) => own(loans(ctx), a));
  if (out.length > 0) bad(`library set "${req.params.name}" has checked-out accounts (${out.join(", ")}); check them in before deleting the set`);
  delete sets(ctx)[req.params.name];
  for (const a of set.service_account_names) delete managed(ctx)[a];
  return emptyReply(204);
}

function present(set: LibrarySet): Record<string, unknown> {
  const { service_account_names, ttl, max_ttl, disable_check_in_enforcement } = set;
  return { service_account_names: [...service_account_names], ttl, max_ttl, disable_check_in_enforcement };
}

async function status(ctx: SecretsContext, req: Incoming): Promise<Reply> {
  const set = own(sets(ctx), req.params.name);
  if (!set) return notFound();
  await sweep(ctx);
  const out: Record<string, unknown> = {};
  for (const a of set.service_account_names) {
    const loan = own(loans(ctx), a);
    out[a] = loan ? { available: false, borrower_client_token: loan.borrower, borrower_entity_id: "" } : { available: true };
  }
  return dataReply(out);
}

export const librarySetRoutes: Route<SecretsContext>[] = [
  { method: "LIST", path: "library", handler: (ctx) => listReply(Object.keys(sets(ctx))) },
  { method: "POST", path: "library/:name", handler: handled(write) },
  { method: "GET", path: "library/:name", handler: readOne((ctx, req) => own(sets(ctx), req.params.name), present) },
  { method: "DELETE", path: "library/:name", handler: handled(remove) },
  { method: "GET", path: "library/:name/status", handler: handled(status) },
];
