import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { isRecord, randomHex } from "../util";

/**
 * The `--state` file: one JSON document whose payload (tokens and every object) is sealed with
 * AES-256-GCM. The whole payload is sealed rather than a list of secret fields, so a secret added by
 * a new engine is covered without anyone having to name it. Version 1 files (plaintext) still load.
 */

export const STATE_KEY_ENV = "SVC_EMULATOR_STATE_KEY";
const AAD = Buffer.from("pulumi-svc emulator state v2");

interface SealedFile {
  version: 2;
  cipher: "aes-256-gcm";
  /** First 16 hex digits of SHA-256 of the key: tells "wrong key" apart from "damaged file". */
  keyId: string;
  iv: string;
  tag: string;
  payload: string;
}

/** 32 bytes as 64 hex digits or base64; anything else is refused with the variable's name. */
function parseKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64");
  if (key.length !== 32) throw new Error(`${source} must hold a 256-bit key: 64 hex digits or 44 base64 characters`);
  return key;
}

/**
 * The key from SVC_EMULATOR_STATE_KEY, else from `<state>.key` (created with mode 0600 on first use).
 * `wx` makes two emulators starting at once agree on one key instead of overwriting each other's.
 */
export function stateKey(statePath: string, env: NodeJS.ProcessEnv = process.env): Buffer {
  const fromEnv = envStateKey(env);
  if (fromEnv) return fromEnv;
  const keyPath = `${statePath}.key`;
  if (!existsSync(keyPath)) {
    try {
      const fd = openSync(keyPath, "wx", 0o600);
      writeSync(fd, `${randomBytes(32).toString("hex")}\n`);
      fsyncSync(fd);
      closeSync(fd);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  return parseKey(readFileSync(keyPath, "utf8"), keyPath);
}

/** The key SVC_EMULATOR_STATE_KEY holds, if it is set. */
export function envStateKey(env: NodeJS.ProcessEnv = process.env): Buffer | undefined {
  const fromEnv = env[STATE_KEY_ENV];
  return fromEnv !== undefined && fromEnv !== "" ? parseKey(fromEnv, STATE_KEY_ENV) : undefined;
}

export const keyId = (key: Buffer) => createHash("sha256").update(key).digest("hex").slice(0, 16);

export function seal(plaintext: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(AAD);
  const payload = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const file: SealedFile = {
    version: 2,
    cipher: "aes-256-gcm",
    keyId: keyId(key),
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    payload: payload.toString("base64"),
  };
  return JSON.stringify(file);
}

/** The document inside a state file of either version; throws a message naming the file. */
export function unseal(path: string, text: string, key: () => Buffer, keyHint = `set ${STATE_KEY_ENV} or restore ${path}.key`): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`${path} is not an emulator state file: ${(err as Error).message}`);
  }
  if (isRecord(parsed) && parsed.version === 1) return parsed;
  if (!isRecord(parsed) || parsed.version !== 2 || parsed.cipher !== "aes-256-gcm") {
    throw new Error(`${path} is not an emulator state file (version 1 or 2)`);
  }
  const k = key();
  if (parsed.keyId !== keyId(k)) {
    throw new Error(`${path} was sealed with another key (key id ${String(parsed.keyId)}, this key is ${keyId(k)}); ${keyHint}`);
  }
  try {
    const decipher = createDecipheriv("aes-256-gcm", k, Buffer.from(String(parsed.iv), "base64"));
    decipher.setAAD(AAD);
    decipher.setAuthTag(Buffer.from(String(parsed.tag), "base64"));
    const plain = Buffer.concat([decipher.update(Buffer.from(String(parsed.payload), "base64")), decipher.final()]);
    return JSON.parse(plain.toString("utf8"));
  } catch (err) {
    throw new Error(`${path} could not be decrypted (damaged or altered): ${(err as Error).message}`);
  }
}

/** Write a temporary file beside `path`, flush it to disk, then rename over `path`. */
export function replaceAtomically(path: string, text: string): void {
  const temp = `${path}.${process.pid}.${randomHex(4)}.tmp`;
  const fd = openSync(temp, "w", 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  // The rename itself is durable only once the directory is flushed; not every platform allows it.
  try {
    const dir = openSync(dirname(path), "r");
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    /* directory fsync unsupported (e.g. Windows): the rename is still atomic */
  }
}

/** For tests and tools: the decrypted document of a state file. */
export function readStateFile(path: string, env: NodeJS.ProcessEnv = process.env): unknown {
  return unseal(path, readFileSync(path, "utf8"), () => stateKey(path, env));
}
