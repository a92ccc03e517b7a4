import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { listReply, secretsError } from "../envelope";
import { bad, body, bool, count, guarded, notFound, readOne, str } from "../fields";
import { dict } from "../../util";
import { generateVersion, isKeyType, KEY_TYPES, type KeyType, type KeyVersion } from "./material";
import { holderOf, keys, type Key } from "./state";

function present(key: Key): Record<string, unknown> {
  const shown: Record<string, { creation_time: string; public_key?: string }> = {};
  for (const [version, v] of Object.entries(key.versions)) {
    shown[version] = v.public_key === undefined ? { creation_time: v.creation_time } : { creation_time: v.creation_time, public_key: v.public_key };
  }
  const { name, type, deletion_allowed, min_enabled_version, latest_version } = key;
  return { name, type, deletion_allowed, min_enabled_version, latest_version, keys: shown };
}

function checkMinVersion(min: number | undefined, latest: number): void {
  if (min !== undefined && min > latest) {
    bad(`min_enabled_version ${min} is greater than latest_version ${latest}; rotate the key first or use a value from 0 (all enabled) to ${latest}`);
  }
}

/**
 * Create and update share the path: a key that exists is updated, otherwise it is created.
 * On update, fields left out keep their values; `type` may be repeated but not changed.
 */
async function write(ctx: SecretsContext, req: Incoming): Promise<Reply> {
  const b = body(req);
  const name = req.params.name;
  const type = str(b, "type");
  if (type !== undefined && !isKeyType(type)) bad(`type must be one of ${KEY_TYPES.join(", ")}`);
  const deletionAllowed = bool(b, "deletion_allowed");
  const minEnabled = count(b, "min_enabled_version");

  let key = keys(ctx)[name];
  if (!key) {
    checkMinVersion(minEnabled, 1);
    const first = await generateVersion((type as KeyType | undefined) ?? "rsa-2048");
    // Another request may have created the key while the material was generated: then this is an update.
    key = keys(ctx)[name];
    if (!key) {
      keys(ctx)[name] = {
        name,
        type: (type as KeyType | undefined) ?? "rsa-2048",
        deletion_allowed: deletionAllowed ?? false,
        min_enabled_version: minEnabled ?? 0,
        latest_version: 1,
        versions: Object.assign(dict<KeyVersion>(), { "1": first }),
      };
      return emptyReply(204);
    }
  }
  if (type !== undefined && type !== key.type) bad(`type is immutable: key "${name}" is ${key.type}; create a key under another name for ${type}`);
  checkMinVersion(minEnabled, key.latest_version);
  if (deletionAllowed !== undefined) key.deletion_allowed = deletionAllowed;
  if (minEnabled !== undefined) key.min_enabled_version = minEnabled;
  return emptyReply(204);
}

export const keyRoutes: Route<SecretsContext>[] = [
  { method: "POST", path: "key/:name", handler: guarded(write) },
  { method: "GET", path: "key/:name", handler: readOne((ctx, req) => keys(ctx)[req.params.name], present) },
  { method: "LIST", path: "key", handler: (ctx) => listReply(Object.keys(keys(ctx))) },
  {
    method: "POST",
    path: "key/:name/rotate",
    handler: async (ctx, req) => {
      const name = req.params.name;
      const existing = keys(ctx)[name];
      if (!existing) return notFound();
      const version = await generateVersion(existing.type);
      // Looked up again: the key may have been deleted while the material was generated.
      const key = keys(ctx)[name];
      if (!key) return notFound();
      key.latest_version += 1;
      key.versions[String(key.latest_version)] = version;
      return emptyReply(204);
    },
  },
  {
    method: "DELETE",
    path: "key/:name",
    handler: (ctx, req) => {
      const name = req.params.name;
      const key = keys(ctx)[name];
      if (!key) return emptyReply(204);
      // Every rule that blocks the deletion is reported, each with the call that clears it.
      const problems: string[] = [];
      const holder = holderOf(ctx, name);
      if (holder) problems.push(`key "${name}" is distributed to KMS provider "${holder}"; remove it first with DELETE kms/${holder}/key/${name}`);
      if (!key.deletion_allowed) problems.push(`key "${name}" has deletion_allowed false; set deletion_allowed to true with POST key/${name} first`);
      if (problems.length > 0) return secretsError(400, ...problems);
      delete keys(ctx)[name];
      return emptyReply(204);
    },
  },
  {
    method: "LIST",
    path: "key/:name/kms",
    handler: (ctx, req) => {
      const holder = holderOf(ctx, req.params.name);
      return listReply(holder === undefined ? [] : [holder]);
    },
  },
];
