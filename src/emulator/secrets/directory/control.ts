import { Client } from "ldapts";
import { jsonReply, parseJson, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { Runtime } from "../../clusterRuntime";
import type { Mount } from "../state";
import { isRecord } from "../../util";
import { own } from "../objects";
import { hashPassword, passwordMatches } from "./backend";
import { splitUrls } from "./ldap";
import { randomText } from "./rotate";
import { accounts, type DirectoryConfig } from "./state";

/**
 * `/_emulator/directory`: the built-in directory's accounts (the seed has no API for them, as a
 * real directory is managed elsewhere), which backend a mount uses, and a bind check, so tests and
 * examples can prove that a password works without the emulator ever showing one.
 */

const fail = (status: number, error: string): Reply => jsonReply(status, { error });

function mountOf(rt: Runtime, value: unknown): Mount | string {
  const path = value === undefined ? "directory" : value;
  if (typeof path !== "string") return "mount must be a string";
  const mount = rt.store.data.secrets.mounts[path];
  if (!mount || !Object.prototype.hasOwnProperty.call(rt.store.data.secrets.mounts, path) || mount.type !== "directory") return `no directory engine is mounted at "${path}"`;
  return mount;
}

function input(req: Incoming): Record<string, unknown> | string {
  const parsed = parseJson(req.body);
  if (!parsed.ok) return `invalid JSON: ${parsed.error}`;
  const value = parsed.value ?? {};
  return isRecord(value) ? value : "body must be a JSON object";
}

/** Adds accounts (`["name"]` or `[{name, password}]`); an account that exists gets the given password. */
function addAccounts(rt: Runtime, req: Incoming): Reply {
  const b = input(req);
  if (typeof b === "string") return fail(400, b);
  const mount = mountOf(rt, b.mount);
  if (typeof mount === "string") return fail(400, mount);
  if (!Array.isArray(b.accounts)) return fail(400, "accounts must be an array of names or {name, password} objects");
  const added: { name: string; password: string }[] = [];
  for (const [i, a] of b.accounts.entries()) {
    const name = typeof a === "string" ? a : isRecord(a) ? a.name : undefined;
    const password = isRecord(a) && a.password !== undefined ? a.password : randomText(24);
    if (typeof name !== "string" || name === "") return fail(400, `accounts[${i}].name must be a non-empty string`);
    if (typeof password !== "string" || password === "") return fail(400, `accounts[${i}].password must be a non-empty string`);
    added.push({ name, password });
  }
  const at = rt.clock.iso();
  for (const a of added) accounts({ mount })[a.name] = { password_hash: hashPassword(a.password), password_last_set: at };
  return jsonReply(200, { accounts: added.map((a) => a.name) });
}

/** Whether `name`/`password` bind: against the LDAP server when the mount uses one, else the built-in directory. */
async function bind(rt: Runtime, req: Incoming): Promise<Reply> {
  const b = input(req);
  if (typeof b === "string") return fail(400, b);
  const mount = mountOf(rt, b.mount);
  if (typeof mount === "string") return fail(400, mount);
  const { name, password } = b;
  if (typeof name !== "string" || typeof password !== "string") return fail(400, "name and password must be strings");
  const cfg = own(mount.objects.config ?? {}, "config") as DirectoryConfig | undefined;
  if (cfg?.backend === "ldap") {
    for (const url of splitUrls(cfg.url)) {
      const client = new Client({ url, connectTimeout: 2000, timeout: 10000, strictDN: false });
      try {
        await client.bind(name, password);
        return jsonReply(200, { ok: true });
      } catch (e) {
        // A refused bind is an answer; a connection failure moves on to the next URL.
        if (typeof (e as { code?: unknown }).code === "number") return jsonReply(200, { ok: false });
      } finally {
        await client.unbind().catch(() => undefined);
      }
    }
    return fail(502, `no server of ${cfg.url} answered`);
  }
  if (cfg && name === cfg.binddn) return jsonReply(200, { ok: password === cfg.bindpass });
  const account = own(accounts({ mount }), name);
  return jsonReply(200, { ok: account !== undefined && passwordMatches(account.password_hash, password) });
}

function describe(rt: Runtime, req: Incoming): Reply {
  const mount = mountOf(rt, req.query.get("mount") ?? undefined);
  if (typeof mount === "string") return fail(400, mount);
  const cfg = own(mount.objects.config ?? {}, "config") as DirectoryConfig | undefined;
  const all = accounts({ mount });
  return jsonReply(200, {
    backend: cfg?.backend ?? null,
    accounts: Object.keys(all).sort().map((name) => ({ name, password_last_set: all[name].password_last_set })),
  });
}

export const directoryControlRoutes: Route<Runtime>[] = [
  { method: "GET", path: "/directory", handler: describe },
  { method: "POST", path: "/directory/accounts", handler: addAccounts },
  { method: "POST", path: "/directory/bind", handler: bind },
];
