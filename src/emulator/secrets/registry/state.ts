import { createHash, randomUUID } from "node:crypto";
import type { Mount } from "../state";
import type { SecretsContext } from "../context";
import { own, store } from "../objects";

/**
 * What the registry engine keeps on its mount: the access config, the roles, and the tokens of
 * the built-in registry.
 */

export interface AccessConfig {
  address: string;
  scheme: string;
  /** Digest of the management token, never the token. */
  token_digest: string;
  ca_cert: string;
  client_cert: string;
  /** Digest of the client key: the emulator never uses it, so it keeps no copy. */
  client_key_digest: string;
}

export interface RegistryRole {
  token_type: "client" | "management";
  /** Base64 ACL policy, as given. */
  policy: string;
  policies: string[];
  local: boolean;
  /** Seconds; 0 = the engine's default (given as `ttl`, or `lease` by older registries). */
  ttl: number;
  max_ttl: number;
}

/** The bag holding the access config, under the key `access`. */
export const accessBag = (ctx: SecretsContext) => store<AccessConfig>(ctx.mount, "access");
export const accessOf = (ctx: SecretsContext) => own(accessBag(ctx), "access");
export const roles = (ctx: SecretsContext) => store<RegistryRole>(ctx.mount, "role");

/**
 * The built-in registry's ACL tokens. Only a digest of each token is kept, so neither the state
 * file nor a read ever holds one in plaintext.
 */
export interface RegistryToken {
  accessor: string;
  type: "client" | "management";
  policies: string[];
  local: boolean;
  /** Role that generated it, or "" for a token made through the control endpoint. */
  role: string;
  created: string;
}

export const digest = (token: string) => createHash("sha256").update(token).digest("hex");
export const tokenBag = (mount: Mount) => store<RegistryToken>(mount, "token");

/** Mints a token in `mount`'s registry and returns it; the only moment its text exists. */
export function mint(mount: Mount, fields: Omit<RegistryToken, "accessor" | "created">): { token: string; accessor: string } {
  const token = randomUUID();
  const accessor = randomUUID();
  tokenBag(mount)[digest(token)] = { ...fields, accessor, created: new Date().toISOString() };
  return { token, accessor };
}

/** A token known to any registry mount of this emulator (they stand for one registry). */
export function lookup(mounts: Record<string, Mount>, token: string): RegistryToken | undefined {
  const key = digest(token);
  for (const path of Object.keys(mounts)) {
    const m = mounts[path];
    if (m.type !== "registry") continue;
    const bag = tokenBag(m);
    if (Object.prototype.hasOwnProperty.call(bag, key)) return bag[key];
  }
  return undefined;
}
