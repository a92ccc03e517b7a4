import { randomBytes } from "node:crypto";
import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Handler, Route } from "../../transport/router";
import type { Mount } from "../state";
import type { SecretsContext } from "../context";
import { dataReply, secretsError } from "../envelope";
import { bad, guarded } from "../fields";
import { own } from "../objects";
import { builtinDirectory, type Directory } from "./backend";
import { ldapDirectory } from "./ldap";
import { configOf, managed, roles, type DirectoryConfig } from "./state";

/**
 * Rotations of the directory engine: rotate-root (the bind password) and rotate-role, and what
 * every object uses to change a password: generating one, the directory to set it in, one
 * rotation at a time per account, and directory failures reported as 500.
 */

export const ROOT_ROTATION_WARNING = "Root password rotation is already in progress.";
export const ROLE_ROTATION_WARNING = "Role password rotation is already in progress.";

const BASE62 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
/** Without a formatter, generated passwords start with this so they meet common complexity rules. */
export const PREFIX = "?@09AZ";
export const PLACEHOLDER = "{{PASSWORD}}";
export const DEFAULT_LENGTH = 64;
export const MIN_LENGTH = 14;
/** Length used for a named password policy: the emulator keeps no policies (docs/assumptions.md, item 54). */
export const POLICY_LENGTH = 20;

export function randomText(length: number, alphabet = BASE62): string {
  let out = "";
  // Rejecting bytes at or above the largest multiple of the alphabet size keeps every character equally likely.
  const limit = 256 - (256 % alphabet.length);
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
  }
  return out;
}

/** Characters of the formatter that are not the placeholder. */
export const fixedLength = (formatter: string) => formatter.length - PLACEHOLDER.length;

/** A new password per the config: policy, or length with the prefix, or length through the formatter. */
function generatePassword(cfg: Pick<DirectoryConfig, "password_policy" | "length" | "formatter">): string {
  if (cfg.password_policy) return randomText(POLICY_LENGTH);
  const length = cfg.length || DEFAULT_LENGTH;
  if (cfg.formatter) return cfg.formatter.replace(PLACEHOLDER, randomText(length - fixedLength(cfg.formatter)));
  return PREFIX + randomText(length - PREFIX.length);
}

export function directoryFor(ctx: SecretsContext, cfg: DirectoryConfig): Directory {
  return cfg.backend === "ldap" ? ldapDirectory(cfg) : builtinDirectory(ctx);
}

// Rotations of one account run one after another, so the password the engine stores is the one
// the directory holds. Keyed by the mount object, so each emulator (and each reset) has its own.
const queues = new WeakMap<Mount, Map<string, Promise<unknown>>>();

/** Runs `work` after any earlier work queued under `key` on this mount. */
export function serialized<T>(ctx: SecretsContext, key: string, work: () => Promise<T>): Promise<T> {
  let byKey = queues.get(ctx.mount);
  if (!byKey) queues.set(ctx.mount, (byKey = new Map()));
  const previous = byKey.get(key) ?? Promise.resolve();
  const next = previous.then(work, work);
  byKey.set(key, next.catch(() => undefined));
  return next;
}

// Names of rotations in progress per mount, for the "already in progress" warning.
const running = new WeakMap<Mount, Set<string>>();

/** Runs `work` unless a rotation named `key` is running; returns false when one is. */
export async function exclusive(ctx: SecretsContext, key: string, work: () => Promise<void>): Promise<boolean> {
  let set = running.get(ctx.mount);
  if (!set) running.set(ctx.mount, (set = new Set()));
  if (set.has(key)) return false;
  set.add(key);
  try {
    await work();
    return true;
  } finally {
    set.delete(key);
  }
}

export function requireConfig(ctx: SecretsContext): DirectoryConfig | string {
  return configOf(ctx) ?? "the directory engine is not configured: POST config with binddn and bindpass first";
}

/** The config, or a 400 (thrown) saying the engine is not configured. */
export function configured(ctx: SecretsContext): DirectoryConfig {
  const cfg = requireConfig(ctx);
  return typeof cfg === "string" ? bad(cfg) : cfg;
}

/**
 * Sets a new generated password on `account` in the directory, then records it. When the directory
 * refuses, nothing is recorded and the previous password stays valid.
 */
export function rotateAccount(ctx: SecretsContext, cfg: DirectoryConfig, account: string): Promise<void> {
  return serialized(ctx, `account:${account}`, async () => {
    const password = generatePassword(cfg);
    await directoryFor(ctx, cfg).setPassword(account, password);
    const previous = own(managed(ctx), account);
    managed(ctx)[account] = { password, last_password: previous?.password ?? "", last_rotation: ctx.rt.clock.iso() };
    // Saved now, not at the end of the request: a GET (creds, status) may rotate too, and the
    // directory already holds the new password.
    ctx.rt.store.save();
  });
}

/**
 * `guarded` plus directory failures: an LDAP error (bind refused, server gone) becomes 500 with
 * the directory's message, the way the service reports a failing backend.
 */
export function handled(handler: Handler<SecretsContext>): Handler<SecretsContext> {
  const inner = guarded(handler);
  return async (ctx, req) => {
    try {
      return await inner(ctx, req);
    } catch (e) {
      return secretsError(500, `directory error: ${(e as Error).message}`);
    }
  };
}

/**
 * Gives the bind account a new generated password, known only to the service from then on. The
 * directory is changed first (bound with the old password), then the config.
 */
async function rotateRoot(ctx: SecretsContext): Promise<Reply> {
  const cfg = requireConfig(ctx);
  if (typeof cfg === "string") bad(cfg);
  const done = await exclusive(ctx, "root", () =>
    serialized(ctx, "root", async () => {
      const password = generatePassword(cfg);
      await directoryFor(ctx, cfg).setBindPassword(password);
      cfg.bindpass = password;
      ctx.rt.store.save();
    }),
  );
  return done ? emptyReply(204) : dataReply(null, [ROOT_ROTATION_WARNING]);
}

async function rotateRole(ctx: SecretsContext, req: Incoming): Promise<Reply> {
  const cfg = configured(ctx);
  const role = own(roles(ctx), req.params.name);
  if (!role) bad(`role "${req.params.name}" does not exist`);
  const done = await exclusive(ctx, `role:${role.service_account_name}`, () => rotateAccount(ctx, cfg, role.service_account_name));
  return done ? emptyReply(204) : dataReply(null, [ROLE_ROTATION_WARNING]);
}

export const rotateRoutes: Route<SecretsContext>[] = [
  { method: "POST", path: "rotate-root", handler: handled(rotateRoot) },
  { method: "GET", path: "rotate-root", handler: handled(rotateRoot) },
  { method: "POST", path: "rotate-role/:name", handler: handled(rotateRole) },
];
