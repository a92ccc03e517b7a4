// The engine double's stack state: one JSON file per stack, like a Pulumi checkpoint.
//
// In memory, values keep the wire encoding (secrets wrapped, see values.ts). On disk every
// secret is replaced by {"secure": base64(iv | tag | AES-256-GCM ciphertext of its JSON)},
// with the key derived by scrypt from PULUMI_CONFIG_PASSPHRASE and a per-stack salt, so a
// secret never lands in the file in plaintext (the Pulumi passphrase secrets provider does
// the same job with a different layout).
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { Json, PropertyMap, isSecret, secret } from "./values";

export const DEFAULT_PASSPHRASE = "pulumi-svc-engine-double";

export interface StateResource {
  urn: string;
  type: string;
  name: string;
  /** "" for component resources. */
  id: string;
  inputs: PropertyMap;
  /** Includes `__provider` for dynamic resources, as the engine keeps it. */
  outputs: PropertyMap;
  /** Output keys the engine treats as secret. */
  secretOutputs: string[];
  /** URNs this resource depends on (explicit dependsOn and through its inputs). */
  dependencies: string[];
  /** Per input, the URNs its value came from: what a delete-before-replace of one of them cascades to. */
  propertyDependencies?: Record<string, string[]>;
  custom: boolean;
  parent?: string;
  /** Set after a partial failure; the next `up` updates the resource even without a diff. */
  initErrors?: string[];
  /** A replaced resource still waiting for its delete (create-before-delete). */
  delete?: boolean;
  protect?: boolean;
  retainOnDelete?: boolean;
  /** A read resource (`get`, `id` in the options): read, never created, updated or deleted. */
  external?: boolean;
}

export interface StackState {
  resources: StateResource[];
  /** Stack outputs (the program's exports), secrets wrapped. */
  outputs: PropertyMap;
}

interface StateFile {
  version: 1;
  stack?: string;
  project?: string;
  secrets: { salt: string; check: Json };
  resources: StateResource[];
  outputs: PropertyMap;
}

const CHECK_TEXT = "pulumi-svc engine double";

// scrypt is slow on purpose, and one process reads and writes a stack's file several times per
// operation (pulumi-svc/testing: before, after, and for its outputs): a key is derived once per
// passphrase and salt. Each stack has a salt of its own, so nothing is shared between stacks.
const keys = new Map<string, Buffer>();
const MAX_KEYS = 256;
/** Keys being derived in Node's thread pool (a fresh stack's), by the same id as `keys`. */
const deriving = new Map<string, Promise<Buffer>>();

const keyId = (passphrase: string, salt: string) => `${salt}\n${passphrase}`;

function remember(id: string, key: Buffer): Buffer {
  if (keys.size >= MAX_KEYS) keys.clear();
  keys.set(id, key);
  return key;
}

function derivedKey(passphrase: string, salt: string): Buffer {
  const id = keyId(passphrase, salt);
  return keys.get(id) ?? remember(id, crypto.scryptSync(passphrase, Buffer.from(salt, "base64"), 32));
}

/**
 * Starts deriving a fresh stack's key off the main thread: its state is first written at the end of
 * the operation, so the derivation (about 40 ms) runs while the provider host starts and the
 * program runs. A failure here is left to the synchronous derivation to report.
 */
function deriveAhead(passphrase: string, salt: string): void {
  const id = keyId(passphrase, salt);
  if (keys.has(id) || deriving.has(id)) return;
  const pending = new Promise<Buffer>((resolve, reject) => {
    crypto.scrypt(passphrase, Buffer.from(salt, "base64"), 32, (e, key) => {
      deriving.delete(id);
      if (e) reject(e);
      else resolve(remember(id, key));
    });
  });
  pending.catch(() => undefined);
  deriving.set(id, pending);
}

/** Encrypts and decrypts secret values for one state file. */
export class SecretBox {
  private derived?: Buffer;

  constructor(private readonly passphrase: string, readonly salt: string) {}

  static fresh(passphrase: string): SecretBox {
    const salt = crypto.randomBytes(16).toString("base64");
    deriveAhead(passphrase, salt);
    return new SecretBox(passphrase, salt);
  }

  /** The box, once a key being derived in the thread pool is there: sealing need not derive it again. */
  async ready(): Promise<SecretBox> {
    await deriving.get(keyId(this.passphrase, this.salt))?.catch(() => undefined);
    return this;
  }

  private get key(): Buffer {
    return (this.derived ??= derivedKey(this.passphrase, this.salt));
  }

  encrypt(value: Json): Json {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
    return { secure: Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64") };
  }

  decrypt(secure: string): Json {
    const raw = Buffer.from(secure, "base64");
    const decipher = crypto.createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    try {
      return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8")) as Json;
    } catch {
      throw new Error("cannot decrypt the state's secrets: incorrect PULUMI_CONFIG_PASSPHRASE");
    }
  }

  /** Wire value → disk value: every secret becomes {secure}. */
  seal(v: Json): Json {
    if (isSecret(v)) return this.encrypt(v.value);
    if (Array.isArray(v)) return v.map((x) => this.seal(x));
    if (typeof v === "object" && v !== null) return mapValues(v, (x) => this.seal(x));
    return v;
  }

  /** Disk value → wire value. */
  open(v: Json): Json {
    if (isSecure(v)) return secret(this.decrypt(v.secure));
    if (Array.isArray(v)) return v.map((x) => this.open(x));
    if (typeof v === "object" && v !== null) return mapValues(v, (x) => this.open(x));
    return v;
  }
}

function isSecure(v: Json): v is { secure: string } {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 1 && typeof v.secure === "string";
}

function mapValues(o: PropertyMap, f: (v: Json) => Json): PropertyMap {
  const out: PropertyMap = {};
  for (const [k, v] of Object.entries(o)) out[k] = f(v);
  return out;
}

export function passphrase(env: NodeJS.ProcessEnv = process.env): string {
  return env.PULUMI_CONFIG_PASSPHRASE ?? DEFAULT_PASSPHRASE;
}

/** Reads a state file (an absent file is an empty stack). Returns the box to write it back with. */
export function loadState(file: string, pass: string): { state: StackState; box: SecretBox } {
  if (!fs.existsSync(file)) return { state: { resources: [], outputs: {} }, box: SecretBox.fresh(pass) };
  const disk = JSON.parse(fs.readFileSync(file, "utf8")) as StateFile;
  const box = new SecretBox(pass, disk.secrets.salt);
  if (isSecure(disk.secrets.check)) box.decrypt(disk.secrets.check.secure); // fails fast on a wrong passphrase
  const resources = disk.resources.map((r) => ({ ...r, inputs: box.open(r.inputs) as PropertyMap, outputs: box.open(r.outputs) as PropertyMap }));
  return { state: { resources, outputs: box.open(disk.outputs ?? {}) as PropertyMap }, box };
}

/** Writes the state atomically (temp file + rename). */
export function saveState(file: string, state: StackState, box: SecretBox, meta: { stack?: string; project?: string } = {}): void {
  const disk: StateFile = {
    version: 1,
    ...meta,
    secrets: { salt: box.salt, check: box.encrypt(CHECK_TEXT) },
    resources: state.resources.map((r) => ({ ...r, inputs: box.seal(r.inputs) as PropertyMap, outputs: box.seal(r.outputs) as PropertyMap })),
    outputs: box.seal(state.outputs) as PropertyMap,
  };
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(disk, null, 2) + "\n");
  fs.renameSync(tmp, file);
}
