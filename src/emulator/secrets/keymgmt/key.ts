import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { listReply, secretsError } from "../envelope";
import { bad, body, bool, count, guarded, notFound, readOne, str } from "../fields";
import { dict } from "../../util";
import { generateVersion, isKeyType, KEY_TYPES, type KeyType, type KeyVersion } from "./material";
import { holderOf, keys, type Key } from "./state";

/** What a write may set on a key, as read from its body. */
interface KeyWrite {
  type?: KeyType;
  deletionAllowed?: boolean;
  minEnabled?: number;
}

const DEFAULT_TYPE: KeyType = "rsa-2048";

/**
 * The key's rules, apart from the requests (moto's split: a model whose methods hold the rules, and
 * thin handlers that read the request, call it and reply). It works on the stored record in place;
 * a broken rule throws through bad(), which guarded answers with 400.
 */
class KeyModel {
  constructor(readonly key: Key) {}

  /** Before a new key's material is made: a minimum version above 1 is refused. */
  static checkNew(write: KeyWrite): void {
    checkMinVersion(write.minEnabled, 1);
  }

  /** A new key with its first version: nothing allowed or disabled unless the write says so. */
  static create(name: string, write: KeyWrite, first: KeyVersion): Key {
    return {
      name,
      type: write.type ?? DEFAULT_TYPE,
      deletion_allowed: write.deletionAllowed ?? false,
      min_enabled_version: write.minEnabled ?? 0,
      latest_version: 1,
      versions: Object.assign(dict<KeyVersion>(), { "1": first }),
    };
  }

  /** A write to a key that exists: fields left out keep their values; `type` may be repeated but not changed. */
  update(write: KeyWrite): void {
    const { key } = this;
    if (write.type !== undefined && write.type !== key.type) bad(`type is immutable: key "${key.name}" is ${key.type}; create a key under another name for ${write.type}`);
    checkMinVersion(write.minEnabled, key.latest_version);
    if (write.deletionAllowed !== undefined) key.deletion_allowed = write.deletionAllowed;
    if (write.minEnabled !== undefined) key.min_enabled_version = write.minEnabled;
  }

  /** A new latest version. */
  rotate(version: KeyVersion): void {
    this.key.latest_version += 1;
    this.key.versions[String(this.key.latest_version)] = version;
  }

  /** Every rule that blocks the deletion, each with the call that clears it; `holder` is the KMS provider holding the key. */
  deletionProblems(holder: string | undefined): string[] {
    const { name, deletion_allowed } = this.key;
    return [
      ...(holder ? [`key "${name}" is distributed to KMS provider "${holder}"; remove it first with DELETE kms/${holder}/key/${name}`] : []),
      ...(deletion_allowed ? [] : [`key "${name}" has deletion_allowed false; set deletion_allowed to true with POST key/${name} first`]),
    ];
  }

  /** The key as a read shows it: each version's creation time and public key, never private material. */
  present(): Record<string, unknown> {
    const shown: Record<string, { creation_time: string; public_key?: string }> = {};
    for (const [version, v] of Object.entries(this.key.versions)) {
      shown[version] = v.public_key === undefined ? { creation_time: v.creation_time } : { creation_time: v.creation_time, public_key: v.public_key };
    }
    const { name, type, deletion_allowed, min_enabled_version, latest_version } = this.key;
    return { name, type, deletion_allowed, min_enabled_version, latest_version, keys: shown };
  }
}

function checkMinVersion(min: number | undefined, latest: number): void {
  if (min !== undefined && min > latest) {
    bad(`min_enabled_version ${min} is greater than latest_version ${latest}; rotate the key first or use a value from 0 (all enabled) to ${latest}`);
  }
}

function readWrite(req: Incoming): KeyWrite {
  const b = body(req);
  const type = str(b, "type");
  if (type !== undefined && !isKeyType(type)) bad(`type must be one of ${KEY_TYPES.join(", ")}`);
  return { type: type as KeyType | undefined, deletionAllowed: bool(b, "deletion_allowed"), minEnabled: count(b, "min_enabled_version") };
}

/** Create and update share the path: a key that exists is updated, otherwise it is created. */
async function write(ctx: SecretsContext, req: Incoming): Promise<Reply> {
  const name = req.params.name;
  const change = readWrite(req);
  if (!keys(ctx)[name]) {
    KeyModel.checkNew(change);
    const first = await generateVersion(change.type ?? DEFAULT_TYPE);
    // Another request may have created the key while the material was generated: then this is an update.
    if (!keys(ctx)[name]) {
      keys(ctx)[name] = KeyModel.create(name, change, first);
      return emptyReply(204);
    }
  }
  new KeyModel(keys(ctx)[name]).update(change);
  return emptyReply(204);
}

async function rotate(ctx: SecretsContext, req: Incoming): Promise<Reply> {
  const existing = keys(ctx)[req.params.name];
  if (!existing) return notFound();
  const version = await generateVersion(existing.type);
  // Looked up again: the key may have been deleted while the material was generated.
  const key = keys(ctx)[req.params.name];
  if (!key) return notFound();
  new KeyModel(key).rotate(version);
  return emptyReply(204);
}

function remove(ctx: SecretsContext, req: Incoming): Reply {
  const name = req.params.name;
  const key = keys(ctx)[name];
  if (!key) return emptyReply(204);
  const problems = new KeyModel(key).deletionProblems(holderOf(ctx, name));
  if (problems.length > 0) return secretsError(400, ...problems);
  delete keys(ctx)[name];
  return emptyReply(204);
}

export const keyRoutes: Route<SecretsContext>[] = [
  { method: "POST", path: "key/:name", handler: guarded(write) },
  { method: "GET", path: "key/:name", handler: readOne((ctx, req) => keys(ctx)[req.params.name], (key) => new KeyModel(key).present()) },
  { method: "LIST", path: "key", handler: (ctx) => listReply(Object.keys(keys(ctx))) },
  { method: "POST", path: "key/:name/rotate", handler: rotate },
  { method: "DELETE", path: "key/:name", handler: remove },
  {
    method: "LIST",
    path: "key/:name/kms",
    handler: (ctx, req) => {
      const holder = holderOf(ctx, req.params.name);
      return listReply(holder === undefined ? [] : [holder]);
    },
  },
];
