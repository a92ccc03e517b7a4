import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { dataReply, listReply } from "../envelope";
import { bad, body, notFound, str } from "../fields";
import { parseDuration } from "../duration";
import { own } from "../objects";
import { configured, directoryFor, handled, requireConfig, rotateAccount } from "./rotate";
import { managed, roleOf, roles, setOf, type DirectoryConfig, type Role } from "./state";

const effectiveTtl = (role: Role, cfg: DirectoryConfig) => role.ttl || cfg.ttl;

/** Creates or updates a role. A new role (or a new account) has its password rotated at once, so the service knows it. */
async function write(ctx: SecretsContext, req: Incoming): Promise<Reply> {
  const cfg = configured(ctx);
  const b = body(req);
  const name = req.params.name;
  const old = own(roles(ctx), name);
  const account = str(b, "service_account_name") ?? old?.service_account_name;
  if (!account) bad("missing service_account_name");
  let ttl = old?.ttl ?? 0;
  if (b.ttl !== undefined && b.ttl !== null) {
    const parsed = parseDuration(b.ttl);
    if (parsed === undefined) bad('ttl must be integer seconds or a duration such as "24h"');
    ttl = parsed;
  }
  if (cfg.max_ttl > 0 && ttl > cfg.max_ttl) bad(`ttl (${ttl}s) must not exceed the configured max_ttl (${cfg.max_ttl}s)`);
  const set = setOf(ctx, account);
  if (set !== undefined) bad(`service account "${account}" is already managed by library set "${set}"`);
  const other = roleOf(ctx, account);
  if (other !== undefined && other !== name) bad(`service account "${account}" is already managed by role "${other}"`);
  if (account !== old?.service_account_name) {
    if (!(await directoryFor(ctx, cfg).exists(account))) bad(`service account "${account}" does not exist in the directory`);
    await rotateAccount(ctx, cfg, account);
    if (old) delete managed(ctx)[old.service_account_name];
  }
  roles(ctx)[name] = { service_account_name: account, ttl };
  return emptyReply(204);
}

async function read(ctx: SecretsContext, req: Incoming): Promise<Reply> {
  const role = own(roles(ctx), req.params.name);
  const cfg = requireConfig(ctx);
  if (!role) return notFound();
  const record = own(managed(ctx), role.service_account_name);
  const ttl = typeof cfg === "string" ? role.ttl : effectiveTtl(role, cfg);
  const lastSet = typeof cfg === "string" ? undefined : await directoryFor(ctx, cfg).lastSet(role.service_account_name);
  return dataReply({
    service_account_name: role.service_account_name,
    ttl,
    last_service_rotation: record?.last_rotation ?? null,
    password_last_set: lastSet ?? record?.last_rotation ?? null,
  });
}

/**
 * The role's credentials. The password is rotated first when its lifetime has passed, or when the
 * directory saw it set later than the service did (beyond last_rotation_tolerance): someone else
 * changed it.
 */
async function creds(ctx: SecretsContext, req: Incoming): Promise<Reply> {
  const cfg = configured(ctx);
  const role = own(roles(ctx), req.params.name);
  if (!role) bad(`role "${req.params.name}" does not exist`);
  const account = role.service_account_name;
  const record = own(managed(ctx), account);
  const ttl = effectiveTtl(role, cfg);
  const lastSet = await directoryFor(ctx, cfg).lastSet(account);
  const rotatedAt = record ? Date.parse(record.last_rotation) : 0;
  const expired = ttl > 0 && ctx.rt.clock.nowMs() - rotatedAt > ttl * 1000;
  const changedElsewhere = lastSet !== undefined && Date.parse(lastSet) - rotatedAt > cfg.last_rotation_tolerance * 1000;
  if (!record || expired || changedElsewhere) await rotateAccount(ctx, cfg, account);
  const now = own(managed(ctx), account)!;
  return dataReply({ username: account, current_password: now.password, last_password: now.last_password });
}

export const roleRoutes: Route<SecretsContext>[] = [
  { method: "LIST", path: "roles", handler: (ctx) => listReply(Object.keys(roles(ctx))) },
  { method: "GET", path: "roles", handler: (ctx) => listReply(Object.keys(roles(ctx))) },
  { method: "POST", path: "roles/:name", handler: handled(write) },
  { method: "GET", path: "roles/:name", handler: handled(read) },
  {
    method: "DELETE",
    path: "roles/:name",
    handler: (ctx, req) => {
      const role = own(roles(ctx), req.params.name);
      if (role) {
        delete roles(ctx)[req.params.name];
        delete managed(ctx)[role.service_account_name];
      }
      return emptyReply(204);
    },
  },
  { method: "GET", path: "creds/:name", handler: handled(creds) },
];
