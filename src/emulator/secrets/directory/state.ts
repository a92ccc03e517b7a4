import type { SecretsContext } from "../context";
import { own, store } from "../objects";

/**
 * What the directory engine keeps on its mount: the config, the passwords it manages, roles,
 * library sets and their loans, and the accounts of the built-in directory. Every bag is
 * prototype-free (objects.ts), so user-chosen names such as `__proto__` are ordinary names.
 */

/** POST config after defaults; `bindpass` is never returned. */
export interface DirectoryConfig {
  binddn: string;
  bindpass: string;
  url: string;
  userdn: string;
  upndomain: string;
  certificate: string;
  insecure_tls: boolean;
  starttls: boolean;
  tls_min_version: string;
  tls_max_version: string;
  /** Seconds; default password lifetime of roles. */
  ttl: number;
  /** Seconds; 0 = no limit on a role's ttl. */
  max_ttl: number;
  password_policy: string;
  /** 0 when a password policy is used. */
  length: number;
  formatter: string;
  connection_timeout: number;
  request_timeout: number;
  last_rotation_tolerance: number;
  /** Chosen at write: a real LDAP server when `url` answered, else the built-in directory. */
  backend: "builtin" | "ldap";
}

/** The service's record of a password it set. */
export interface Managed {
  password: string;
  last_password: string;
  /** When the service last rotated it (ISO). */
  last_rotation: string;
}

export interface Role {
  service_account_name: string;
  /** Seconds; 0 = the config's ttl. */
  ttl: number;
}

export interface LibrarySet {
  service_account_names: string[];
  ttl: number;
  max_ttl: number;
  disable_check_in_enforcement: boolean;
}

/** A library account that is checked out, keyed by account name. */
export interface Loan {
  set: string;
  /** Digest of the borrowing token (the token itself is never stored). */
  borrower: string;
  lease_id: string;
  /** Epoch ms; 0 = no end. */
  expires: number;
}

/**
 * An account of the built-in directory, added through `/_emulator/directory`. Like a real
 * directory it keeps a salted hash, never the password.
 */
export interface Account {
  /** `scrypt:<salt hex>:<hash hex>`. */
  password_hash: string;
  password_last_set: string;
}

export const bagOf = <T>(ctx: Pick<SecretsContext, "mount">, kind: string) => store<T>(ctx.mount, kind);

export const configOf = (ctx: SecretsContext): DirectoryConfig | undefined => own(bagOf<DirectoryConfig>(ctx, "config"), "config");
export const managed = (ctx: SecretsContext) => bagOf<Managed>(ctx, "managed");
export const roles = (ctx: SecretsContext) => bagOf<Role>(ctx, "role");
export const sets = (ctx: SecretsContext) => bagOf<LibrarySet>(ctx, "library");
export const loans = (ctx: SecretsContext) => bagOf<Loan>(ctx, "loan");
export const accounts = (ctx: Pick<SecretsContext, "mount">) => bagOf<Account>(ctx, "account");

/** The set that holds `account`, if any. */
export function setOf(ctx: SecretsContext, account: string): string | undefined {
  const all = sets(ctx);
  return Object.keys(all).find((name) => all[name].service_account_names.includes(account));
}

/** The role that manages `account`, if any. */
export function roleOf(ctx: SecretsContext, account: string): string | undefined {
  const all = roles(ctx);
  return Object.keys(all).find((name) => all[name].service_account_name === account);
}
