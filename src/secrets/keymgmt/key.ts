/**
 * A named key of the key management engine: `/{mount}/key/{name}` (default mount `keymgmt`).
 * Created with its type, then configured (`deletion_allowed`, `min_enabled_version`) by a second
 * write to the same path, rotated by `/{mount}/key/{name}/rotate`.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { createOnce } from "../../core/createOnce";
import type { Context, ResourceDefinition } from "../../core/definition";
import { PartialFailure } from "../../core/definition";
import { type FunctionDefinition } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, output, pick, type ArgsOf, type InfoOf, type OutputsOf, type PlainArgsOf, type StateOf } from "../../core/fields";
import { ConflictError } from "../../http";
import { adopt, mount, name } from "../fields";
import { shellWord } from "../../core/text";
import { alreadyExists, fetchData, listNames, namesFunction, pathOf, readBack, readDecoded, reportOf, rotateOnce, type NameList } from "../pathObject";
import type { ConnectionArgs } from "../../core/connection";
import { KEYMGMT_ROUTES } from "./routes";

/** Key types of the seed: one symmetric, six asymmetric. */
export const KEY_TYPES = ["aes256-gcm96", "rsa-2048", "rsa-3072", "rsa-4096", "ecdsa-p256", "ecdsa-p384", "ecdsa-p521"] as const;
export type KeyType = (typeof KEY_TYPES)[number];

export const DEFAULT_KEYMGMT_MOUNT = "keymgmt";

/** One version of a key. */
export interface KeyVersion {
  /** When the version was created (timestamp text as the service gives it). */
  creationTime: string;
  /** PEM public key; only for asymmetric key types. */
  publicKey?: string;
}

const nonNegativeInt = () => z.number({ error: "must be a number" }).int("must be a whole number").min(0, "must be 0 or more");

export const keyFields = {
  /** Name of the key: the last segment of its path `/{mount}/key/{name}`. */
  name: field(name, { identity: true }),
  /** Mount path of the key management engine. Default `keymgmt`. */
  mount: field(mount, { identity: true, default: DEFAULT_KEYMGMT_MOUNT }),
  /**
   * Key type: `aes256-gcm96` (AES-GCM, 256-bit key, 96-bit nonce, symmetric), `rsa-2048` (default),
   * `rsa-3072`, `rsa-4096`, `ecdsa-p256`, `ecdsa-p384`, `ecdsa-p521`. Immutable: changing it replaces
   * the key at the same path, so the old key is deleted first; that needs `deletionAllowed: true`
   * already deployed and no distribution of the key (see "Deleting and replacing keys" on the Key).
   */
  type: field(() => z.enum(KEY_TYPES, { error: `must be one of ${KEY_TYPES.join(", ")}` }), { immutable: true, default: "rsa-2048" }),
  /**
   * Whether the key may be deleted. Default false: `pulumi destroy` (or a replacement) of a key
   * fails until `deletionAllowed: true` has been deployed.
   */
  deletionAllowed: field(() => z.boolean({ error: "must be a boolean" }), { default: false }),
  /**
   * Versions below this one are disabled for cryptographic operations in the KMS provider; 0 (the
   * default) enables all. Must not exceed the latest version.
   */
  minEnabledVersion: field(nonNegativeInt, { default: 0, decode: (v: unknown) => Number(v) }),
  /**
   * Any value; when it changes (and is set), the update rotates the key (a new version, and
   * `latestVersion` increases) before applying the other arguments. Setting it the first time at
   * create does not rotate. Removing it does not rotate.
   */
  rotationTrigger: field(() => z.union([z.string(), z.number()], { error: "must be a string or a number" }), { optional: true, writeOnly: true }),
  /** Take over a key that already exists at the path (same type) instead of failing. */
  adopt: field(adopt, { local: true }),
  /** The newest version (1 after creation; each rotation adds one). */
  latestVersion: output<number>({ decode: (v) => Number(v) }),
  /** Every version by number (as text): its creation time and, for asymmetric keys, its PEM public key. */
  keys: output<Record<string, KeyVersion>>({ decode: (v) => versions(v) }),
};

const keySet = fieldSet(keyFields);

export type KeyState = StateOf<typeof keyFields>;

/** A key as the service reports it, with the resource's property names. */
export type KeyInfo = InfoOf<typeof keyFields>;

function params(p: { mount?: string; name: string }): Record<string, string> {
  return { mount: p.mount ?? DEFAULT_KEYMGMT_MOUNT, name: p.name };
}

function versions(raw: unknown): Record<string, KeyVersion> {
  const out: Record<string, KeyVersion> = {};
  if (!raw || typeof raw !== "object") return out;
  for (const [version, v] of Object.entries(raw as Record<string, unknown>)) {
    if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      out[version] = {
        creationTime: String(o.creation_time ?? ""),
        ...(typeof o.public_key === "string" && o.public_key !== "" ? { publicKey: o.public_key } : {}),
      };
    } else {
      // Some servers give only the creation time per version.
      out[version] = { creationTime: String(v ?? "") };
    }
  }
  return out;
}

export function keyInfo(data: Record<string, unknown>, p: { name: string; mount?: string }): KeyInfo {
  return keySet.decode(data, { ...p, mount: p.mount ?? DEFAULT_KEYMGMT_MOUNT }) as KeyInfo;
}

async function configure(ctx: Context, p: KeyState): Promise<void> {
  await ctx.client("secrets").request({
    route: KEYMGMT_ROUTES.key.write, params: params(p), retry: "safe",
    body: { deletion_allowed: p.deletionAllowed, min_enabled_version: p.minEnabledVersion },
  });
}

const readKey = (ctx: Context, p: KeyState) => readDecoded(ctx, KEYMGMT_ROUTES.key.read, params(p), (data) => keySet.decode(data, p) as KeyState);

function conflict(method: string, route: string, p: Record<string, string>, messages: string[]): ConflictError {
  return new ConflictError({ service: "secrets", method, path: `/${pathOf(route, p)}`, messages });
}

/**
 * Why a key cannot be deleted now, with what to do about it; empty when it can be. The advice for
 * `deletion_allowed` targets the key alone: after a partial `pulumi destroy` (what came before the
 * key was deleted), a plain `pulumi up` would create again everything the destroy deleted, and
 * fail on each `adoptId` whose object the destroy deleted.
 */
export async function keyDeletionProblems(ctx: Context, p: { mount?: string; name: string }): Promise<string[] | undefined> {
  const data = await fetchData(ctx, KEYMGMT_ROUTES.key.read, params(p));
  if (!data) return undefined; // gone already
  const problems: string[] = [];
  if (data.deletion_allowed !== true) {
    const target = ctx.urn ? `pulumi up --target ${shellWord(ctx.urn)}` : "pulumi up --target <the Key's URN> (pulumi stack --show-urns lists it)";
    problems.push(`key ${p.name} has deletion_allowed false: set deletionAllowed: true on the Key and deploy it alone, with the key's ` +
      `other inputs as they were: ${target} (after a partial pulumi destroy, a plain pulumi up would create again ` +
      `everything the destroy deleted); then run the destroy, or the change that replaces the key, again`);
  }
  const holders = await listNames(ctx, KEYMGMT_ROUTES.key.providers, params(p));
  if (holders.length > 0) {
    problems.push(`key ${p.name} is still distributed to KMS provider ${holders.join(", ")}: remove its KeyDistribution ` +
      `first (the distribution must be deleted before the key)`);
  }
  return problems;
}

export const keyDefinition: ResourceDefinition<KeyState, KeyState> = {
  kind: "secrets:KeymgmtKey",
  routes: { write: KEYMGMT_ROUTES.key.write, read: KEYMGMT_ROUTES.key.read, rotate: KEYMGMT_ROUTES.key.rotate, delete: KEYMGMT_ROUTES.key.delete, list: KEYMGMT_ROUTES.key.list, providers: KEYMGMT_ROUTES.key.providers },
  path: { route: KEYMGMT_ROUTES.key.read },
  discover: { list: KEYMGMT_ROUTES.key.list },
  risk: {
    lost: "every version of the key's material is destroyed, so what was encrypted or signed with it can no longer be decrypted or verified; its distributions to KMS providers go with it",
    changes: { minEnabledVersion: "versions below the new minimum can no longer decrypt or verify what they protected" },
    instead: "a new version of the same key (`rotateKey`, or `rotationTrigger`) instead of a new key; `protect: true` or `retainOnDelete: true` on the Key",
  },
  ...keySet,
  async create(ctx, inputs) {
    const p = params(inputs);
    const id = pathOf(KEYMGMT_ROUTES.key.read, p);
    const existing = await fetchData(ctx, KEYMGMT_ROUTES.key.read, p);
    if (existing && !inputs.adopt) {
      throw alreadyExists("POST", id, "key");
    }
    if (existing && existing.type !== inputs.type) {
      throw conflict("POST", KEYMGMT_ROUTES.key.write, p, [`${id} exists with type ${String(existing.type)}, not ${inputs.type}; ` +
        `the type cannot change, so it cannot be adopted with this type`]);
    }
    if (!existing) {
      // A lost response is not repeated blindly: the key may exist already.
      await createOnce<true>({
        // The path was free a moment ago: whatever a lost create left there is ours.
        scope: `path:${id}`,
        idOf: () => id,
        attempt: async () => {
          await ctx.client("secrets").request({ route: KEYMGMT_ROUTES.key.write, params: p, body: { type: inputs.type } });
          return true;
        },
        find: async () => ((await fetchData(ctx, KEYMGMT_ROUTES.key.read, p)) ? true : undefined),
        log: (m) => ctx.log(`key ${inputs.name}: ${m}`),
      });
    }
    try {
      // The service's defaults are false and 0: only a different value needs the second write.
      if (existing || inputs.deletionAllowed || inputs.minEnabledVersion !== 0) await configure(ctx, inputs);
      return { id, outs: await readBack(id, inputs, () => readKey(ctx, inputs)) };
    } catch (e) {
      throw e instanceof PartialFailure ? e : new PartialFailure(id, inputs, e as Error);
    }
  },
  read: (ctx, _id, props) => readKey(ctx, props),
  async update(ctx, id, olds, news) {
    const rotate = news.rotationTrigger !== undefined && news.rotationTrigger !== olds.rotationTrigger;
    // Rotate first, so a minEnabledVersion naming the new version is valid when it is set.
    if (rotate) await rotateOnce(ctx, KEYMGMT_ROUTES.key, params(news), `key ${news.name}`);
    try {
      if (news.deletionAllowed !== olds.deletionAllowed || news.minEnabledVersion !== olds.minEnabledVersion) await configure(ctx, news);
      return await readBack(id, news, () => readKey(ctx, news));
    } catch (e) {
      if (!rotate) throw e;
      // The rotation happened: record the new trigger, so the next up does not rotate again. The
      // rest of the state is read back from the server by the core (PartialFailure).
      const cause = (e instanceof PartialFailure ? e.cause : e) as Error;
      const failure = new PartialFailure(id, { ...olds, rotationTrigger: news.rotationTrigger }, cause);
      failure.message = `${cause.message} (key ${news.name} was rotated; run pulumi up again to apply the rest)`;
      throw failure;
    }
  },
  async delete(ctx, _id, props) {
    const p = params(props);
    const problems = await keyDeletionProblems(ctx, props);
    if (problems === undefined) return;
    if (problems.length > 0) throw conflict("DELETE", KEYMGMT_ROUTES.key.delete, p, problems);
    await ctx.client("secrets").request({ route: KEYMGMT_ROUTES.key.delete, params: p });
  },
};

export type KeyArgs = ArgsOf<typeof keyFields> & ConnectionArgs<"secrets">;

/**
 * A key of the key management engine: `/{mount}/key/{name}` of the secrets service.
 *
 * @remarks
 * A rotation and a new `minEnabledVersion` can be deployed together: the key is rotated first, so
 * `minEnabledVersion: 2` is valid in the same update that creates version 2. If the rest of an
 * update fails after the rotation, the error is a partial failure that records the new
 * `rotationTrigger`, so the next `pulumi up` does not rotate again.
 *
 * #### Deleting and replacing keys
 *
 * The service refuses to delete a key whose `deletion_allowed` is false or that is still
 * distributed to a KMS provider. Before it sends the DELETE, the provider reads the key and lists
 * its providers, and fails with a conflict naming each reason and its fix:
 *
 * ```
 * DELETE /keymgmt/key/signing: conflict: key signing has deletion_allowed false: set deletionAllowed: true on the Key
 * and deploy it alone, with the key's other inputs as they were: pulumi up --target
 * 'urn:pulumi:dev::app::pulumi-nodejs:dynamic/secrets:KeymgmtKey::signing' (after a partial pulumi destroy, a plain
 * pulumi up would create again everything the destroy deleted); then run the destroy, or the change that replaces
 * the key, again; key signing is still distributed to KMS provider aws-eu: remove its KeyDistribution first (the
 * distribution must be deleted before the key)
 * ```
 *
 * So:
 *
 * - **To destroy a key**, declare `deletionAllowed: true` (and deploy it) before `pulumi destroy`.
 *   The key management example (`examples/keymgmt/index.ts`) does this from the start. A destroy
 *   that stops at the key has deleted what came before it: deploy the flag to the key alone
 *   (`pulumi up --target <its URN>`, as the error says), then run `pulumi destroy` again. A plain
 *   `pulumi up` there would create again every object the destroy deleted.
 * - **To change a key's `type`** (a replacement at the same path, so the old key is deleted first):
 *   1. deploy `deletionAllowed: true` on the existing key (an update in place);
 *   2. remove (or change) its `KeyDistribution`, since a distributed key cannot be deleted. When the
 *      distribution takes `keyName: key.name`, the Pulumi engine replaces it along with the key and
 *      deletes it first;
 *   3. change `type` and run `pulumi up`: the old key is deleted, the new one created (version 1:
 *      the old key material is gone).
 *
 *   The provider never turns `deletion_allowed` on by itself: deleting key material must be a
 *   decision written in the program.
 * - Renaming a key (`name` or `mount`) creates the new key first and deletes the old one afterwards,
 *   which also needs `deletionAllowed: true` on the old key.
 *
 * @example
 * ```ts
 * const signing = new svc.secrets.keymgmt.Key("signing", { name: "release-signing", type: "ecdsa-p256" });
 * export const version = signing.latestVersion;
 * ```
 */
export interface Key extends OutputsOf<typeof keyFields> {}
export class Key extends SvcResource(keyDefinition) { constructor(name: string, args: KeyArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

const keyRefFields = pick(keyFields, "name", "mount");

/** Which key: its name and mount. */
export type KeyRefArgs = PlainArgsOf<typeof keyRefFields>;

/** Which key, as Inputs. */
export type KeyRefInputs = ArgsOf<typeof keyRefFields>;

export interface ListKeysArgs {
  /** Mount path of the key management engine. Default `keymgmt`. */
  mount?: string;
}

/** The names (or ids) listed, in the service's order; empty when there are none. */
export type ListResult = NameList;

const mountOnlyFields = pick(keyFields, "mount");

const getKeyInfo = (ctx: Context, args: KeyRefArgs) => reportOf(ctx, KEYMGMT_ROUTES.key.read, params(args), (data) => keyInfo(data, args));

const getKeyFn: FunctionDefinition<KeyRefArgs, KeyInfo> = {
  name: "getKey", fields: keyRefFields, sideEffects: false, service: "secrets", run: getKeyInfo,
};

const listKeysFn = namesFunction<ListKeysArgs>({ name: "listKeys", fields: mountOnlyFields, service: "secrets" }, KEYMGMT_ROUTES.key.list);

const rotateKeyFn: FunctionDefinition<KeyRefArgs, KeyInfo> = {
  name: "rotateKey", fields: keyRefFields, sideEffects: true, service: "secrets",
  async run(ctx, args) {
    await ctx.client("secrets").request({ route: KEYMGMT_ROUTES.key.rotate, params: params(args) });
    return getKeyInfo(ctx, args);
  },
};

/** Reads a key: type, deletion and version settings, latest version and every version's public key. */
export const getKey = forms(getKeyFn).promise;

/** Output form of {@link getKey}. */
export const getKeyOutput = forms(getKeyFn).output;

/** Names of the keys of the key management engine (empty when there are none). */
export const listKeys = forms(listKeysFn, { argsOptional: true }).promise;

/** Output form of {@link listKeys}. */
export const listKeysOutput = forms(listKeysFn, { argsOptional: true }).output;

/**
 * Rotates a key (a new version; `latestVersion` increases) and returns the key as it is afterwards.
 * Every call rotates: during preview it makes no request and resolves to undefined. To rotate as
 * part of a deployment, and only on purpose, prefer the Key's `rotationTrigger` argument.
 */
export const rotateKey = forms(rotateKeyFn).promise;

/** Output form of {@link rotateKey}: unknown during preview. */
export const rotateKeyOutput = forms(rotateKeyFn).output;
