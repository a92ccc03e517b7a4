import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";
import type { SecretsContext } from "../context";
import type { Directory } from "./backend";
import { own, store } from "./store";

/**
 * An account of the built-in directory, seeded through `/_emulator/directory`. Like a real
 * directory it keeps a salted hash, never the password.
 */
export interface Account {
  /** `scrypt:<salt hex>:<hash hex>`. */
  password_hash: string;
  password_last_set: string;
}

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

export const accounts = (ctx: Pick<SecretsContext, "mount">) => store<Account>(ctx.mount, "account");

/** The directory the emulator keeps itself when no LDAP server is configured. */
export function builtinDirectory(ctx: SecretsContext): Directory {
  return {
    exists: async (name) => own(accounts(ctx), name) !== undefined,
    async setPassword(name, password) {
      const account = own(accounts(ctx), name);
      if (!account) throw new Error(`service account "${name}" does not exist in the directory`);
      account.password_hash = hashPassword(password);
      account.password_last_set = new Date().toISOString();
    },
    lastSet: async (name) => own(accounts(ctx), name)?.password_last_set,
    // The bind account lives in the config; the engine stores the new password there itself.
    setBindPassword: async () => undefined,
  };
}
