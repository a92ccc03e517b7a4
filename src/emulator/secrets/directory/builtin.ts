import type { SecretsContext } from "../context";
import type { Directory } from "./backend";
import { bagOf, own } from "./store";

/** An account of the built-in directory, seeded through `/_emulator/directory`. */
export interface Account {
  password: string;
  password_last_set: string;
}

export const accounts = (ctx: Pick<SecretsContext, "mount">) => bagOf<Account>(ctx as SecretsContext, "account");

/** The directory the emulator keeps itself when no LDAP server is configured. */
export function builtinDirectory(ctx: SecretsContext): Directory {
  return {
    exists: async (name) => own(accounts(ctx), name) !== undefined,
    async setPassword(name, password) {
      const account = own(accounts(ctx), name);
      if (!account) throw new Error(`service account "${name}" does not exist in the directory`);
      account.password = password;
      account.password_last_set = new Date().toISOString();
    },
    lastSet: async (name) => own(accounts(ctx), name)?.password_last_set,
    // The bind account lives in the config; the engine stores the new password there itself.
    setBindPassword: async () => undefined,
  };
}
