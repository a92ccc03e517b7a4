import type { SecretsContext } from "../context";
import { bag } from "../objects";
import type { KeyType, KeyVersion } from "./material";

/**
 * What the key management engine keeps on its mount: keys, KMS providers, and which provider holds
 * each key. The queries here are the ones more than one object reads.
 */

export interface Key {
  name: string;
  type: KeyType;
  deletion_allowed: boolean;
  /** 0: every version is enabled. */
  min_enabled_version: number;
  latest_version: number;
  versions: Record<string, KeyVersion>;
}

export interface KmsProvider {
  provider: string;
  key_collection: string;
  /** Write-only: stored, never returned. */
  credentials: Record<string, string>;
}

/** A key's copy in a KMS provider. Stored by key name, so "one provider per key" holds by shape. */
export interface Distribution {
  kms: string;
  /** Provider-side name, `<key>-<unix seconds>` at distribution time. */
  name: string;
  protection: string;
  purpose: string[];
  /** Salts the opaque version identifiers, so rotated versions get theirs without a write on read. */
  salt: string;
}

export const keys = (ctx: SecretsContext) => bag<Key>(ctx, "key");
export const providers = (ctx: SecretsContext) => bag<KmsProvider>(ctx, "kms");
export const distributions = (ctx: SecretsContext) => bag<Distribution>(ctx, "distribution");

/** The KMS provider `keyName` is distributed to, if any. */
export function holderOf(ctx: SecretsContext, keyName: string): string | undefined {
  return distributions(ctx)[keyName]?.kms;
}

/** Names of the keys distributed to provider `kms`, sorted. */
export function keysHeldBy(ctx: SecretsContext, kms: string): string[] {
  return Object.entries(distributions(ctx))
    .filter(([, d]) => d.kms === kms)
    .map(([key]) => key)
    .sort();
}
