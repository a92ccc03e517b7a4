import type { Handler } from "../../router";
import type { Mount } from "../../state";
import { secretsError } from "../envelope";
import { guarded } from "../fields";
import type { SecretsContext } from "../context";
import { directoryFor } from "./backend";
import { generatePassword } from "./password";
import { own } from "./store";
import { configOf, managed, type DirectoryConfig } from "./state";

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

/**
 * Sets a new generated password on `account` in the directory, then records it. When the directory
 * refuses, nothing is recorded and the previous password stays valid.
 */
export function rotateAccount(ctx: SecretsContext, cfg: DirectoryConfig, account: string): Promise<void> {
  return serialized(ctx, `account:${account}`, async () => {
    const password = generatePassword(cfg);
    await directoryFor(ctx, cfg).setPassword(account, password);
    const previous = own(managed(ctx), account);
    managed(ctx)[account] = { password, last_password: previous?.password ?? "", last_rotation: new Date().toISOString() };
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
