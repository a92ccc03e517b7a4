import { KEY_TYPES, type KeyFamily, type KeyType } from "./material";

/**
 * The values the seed leaves "not shown", in one place.
 *
 * Providers: the credential names each accepts (as the real-world providers name them) and the
 * key types each can import.
 */
export const PROVIDERS: Record<string, { credentials: string[]; keyTypes: KeyType[] }> = {
  azurekeyvault: {
    credentials: ["client_id", "client_secret", "tenant_id", "environment"],
    // A standard key vault holds RSA and EC keys; AES needs a managed HSM.
    keyTypes: KEY_TYPES.filter((t) => t !== "aes256-gcm96"),
  },
  awskms: { credentials: ["access_key", "secret_key", "session_token", "endpoint", "region"], keyTypes: KEY_TYPES },
  // Cloud KMS has no P-521 curve.
  gcpckms: { credentials: ["service_account_file"], keyTypes: KEY_TYPES.filter((t) => t !== "ecdsa-p521") },
};

/** What each kind of key can do: AES cannot sign, ECDSA cannot encrypt or wrap. */
export const PURPOSES: Record<KeyFamily, string[]> = {
  symmetric: ["encrypt", "decrypt", "wrap", "unwrap"],
  rsa: ["encrypt", "decrypt", "sign", "verify", "wrap", "unwrap"],
  ec: ["sign", "verify"],
};

export const ALL_PURPOSES = PURPOSES.rsa;

export const PROTECTIONS = ["hsm", "software"];
