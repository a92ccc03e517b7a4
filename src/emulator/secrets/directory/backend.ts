import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";
import type { SecretsContext } from "../context";
import { own } from "../objects";
import { accounts } from "./state";

/**
 * The directory the engine manages accounts in: what the engine needs from one, and the built-in
 * directory it keeps itself when no LDAP server answers (the LDAP one is ldap.ts; rotate.ts picks).
 */
export interface Directory {
  exists(account: string): Promise<boolean>;
  setPassword(account: string, password: string): Promise<void>;
  /** When the directory last saw the account's password set (ISO), if it records that. */
  lastSet(account: string): Promise<string | undefined>;
  /** Changes the bind account's own password (rotate-root). */
  setBindPassword(password: string): Promise<void>;
}

/** A directory failure the engine reports as 500 with the directory's message. */
export class DirectoryError extends Error {}

// A low cost: the hash keeps passwords out of the state file; it is not a defence against offline guessing.
const SCRYPT = { N: 1024 };

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt:${salt.toString("hex")}:${scryptSync(password, salt, 32, SCRYPT).toString("hex")}`;
}

export function passwordMatches(hash: string | undefined, password: string): boolean {
  const [kind, salt, digest] = (hash ?? "").split(":");
  if (kind !== "scrypt" || !salt || !digest) return false;
  const expected = Buffer.from(digest, "hex");
  return timingSafeEqual(scryptSync(password, Buffer.from(salt, "hex"), expected.length, SCRYPT), expected);
}

/** The directory the emulator keeps itself when no LDAP server is configured. */
export function builtinDirectory(ctx: SecretsContext): Directory {
  return {
    exists: async (name) => own(accounts(ctx), name) !== undefined,
    async setPassword(name, password) {
      const account = own(accounts(ctx), name);
      if (!account) throw new Error(`service account "${name}" does not exist in the directory`);
      account.password_hash = hashPassword(password);
      account.password_last_set = ctx.rt.clock.iso();
    },
    lastSet: async (name) => own(accounts(ctx), name)?.password_last_set,
    // The bind account lives in the config; the engine stores the new password there itself.
    setBindPassword: async () => undefined,
  };
}
