/**
 * A key distributed to a KMS provider: `/{mount}/kms/{kms}/key/{key}`. Distributing delivers the
 * key (wrapped) to the provider, where it is named `<key>-<unix time>`; its parameters are
 * immutable afterwards. A key can be distributed to one KMS provider at a time.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { createOnce } from "../../core/createOnce";
import type { Context, ResourceDefinition } from "../../core/definition";
import { type FunctionDefinition } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, output, pick, type ArgsOf, type InfoOf, type OutputsOf, type PlainArgsOf, type StateOf } from "../../core/fields";
import { ConflictError } from "../../http";
import { adopt, mount, name } from "../fields";
import { fetchData, listNames, namesFunction, pathOf, readBack, readDecoded, reportOf } from "../pathObject";
import { DEFAULT_KEYMGMT_MOUNT } from "./key";
import type { ConnectionArgs } from "../../core/connection";
import { KEYMGMT_ROUTES } from "./routes";

/** Capabilities of a distributed key (not listed by the seed; the real-world equivalent's). */
export const PURPOSES = ["encrypt", "decrypt", "sign", "verify", "wrap", "unwrap"] as const;
export type Purpose = (typeof PURPOSES)[number];

/** Where operations run (not listed by the seed; the real-world equivalent's). */
export const PROTECTIONS = ["hsm", "software"] as const;
export type Protection = (typeof PROTECTIONS)[number];

// The service makes every parameter immutable once the key is distributed. A key can be in one
// provider at a time: while the key stays the same, the old distribution must go before the new
// one (same path, or another provider for the same key) can be created, hence its identity.
export const keyDistributionFields = {
  /** Name of the key (a Key's `name`, so the engine deletes the distribution before the key). */
  keyName: field(name, { identity: true, refers: "secrets:KeymgmtKey" }),
  /** Name of the KMS provider (a KmsProvider's `name`, so the distribution is deleted before the provider). */
  kmsName: field(name, { immutable: true, refers: "secrets:KeymgmtKmsProvider" }),
  /** Mount path of the key management engine. Default `keymgmt`. */
  mount: field(mount, { identity: true, default: DEFAULT_KEYMGMT_MOUNT }),
  /**
   * Capabilities of the key in the provider, at least one: `encrypt`, `decrypt`, `sign`, `verify`,
   * `wrap`, `unwrap`. A set (order and duplicates do not matter). Immutable: changing it redistributes
   * the key (the old distribution is deleted first).
   */
  purpose: field(() => z.array(z.enum(PURPOSES, { error: `must be one of ${PURPOSES.join(", ")}` }), { error: "must be a list" })
    .min(1, `must hold at least one purpose (${PURPOSES.join(", ")})`), { immutable: true, set: true, decode: (v: unknown) => purposeSet(v) }),
  /** Where operations run: `hsm` (default) or `software`. Immutable: changing it redistributes the key. */
  protection: field(() => z.enum(PROTECTIONS, { error: `must be one of ${PROTECTIONS.join(", ")}` }), { immutable: true, default: "hsm" }),
  /** Take over an existing distribution of the key to this provider (same purpose and protection). */
  adopt: field(adopt, { local: true }),
  /** The key's name in the provider: `<key name>-<unix time>`. */
  providerKeyName: output<string>({ wire: "name", decode: (v) => String(v) }),
  /** Version number (as text) to the provider's opaque identifier of that version. */
  versions: output<Record<string, string>>({ decode: (v: unknown) => versionIds(v) }),
};

const keyDistributionSet = fieldSet(keyDistributionFields);

export type KeyDistributionState = StateOf<typeof keyDistributionFields>;

/** A key in a KMS provider as the service reports it. */
export type KeyDistributionInfo = InfoOf<typeof keyDistributionFields>;

function params(p: { mount?: string; kmsName: string; keyName: string }): Record<string, string> {
  return { mount: p.mount ?? DEFAULT_KEYMGMT_MOUNT, kms: p.kmsName, key: p.keyName };
}

/** The service joins purposes with commas on read; a list (or a joined text) → a sorted set. */
export function purposeSet(raw: unknown): Purpose[] {
  const parts = Array.isArray(raw) ? raw.map(String) : String(raw ?? "").split(",");
  return [...new Set(parts.map((s) => s.trim()).filter((s) => s !== ""))].sort() as Purpose[];
}

function versionIds(raw: unknown): Record<string, string> {
  const versions: Record<string, string> = {};
  if (raw && typeof raw === "object") {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) versions[k] = String(v ?? "");
  }
  return versions;
}

export function distributionInfo(data: Record<string, unknown>, p: { mount?: string; kmsName: string; keyName: string }): KeyDistributionInfo {
  return keyDistributionSet.decode(data, { ...p, mount: p.mount ?? DEFAULT_KEYMGMT_MOUNT }) as KeyDistributionInfo;
}

const readDistribution = (ctx: Context, p: KeyDistributionState) =>
  readDecoded(ctx, KEYMGMT_ROUTES.keyDistribution.read, params(p), (data) => keyDistributionSet.decode(data, p) as KeyDistributionState);

export const keyDistributionDefinition: ResourceDefinition<KeyDistributionState, KeyDistributionState> = {
  kind: "secrets:KeymgmtKeyDistribution",
  routes: { ...KEYMGMT_ROUTES.keyDistribution, providers: KEYMGMT_ROUTES.key.providers },
  path: { route: KEYMGMT_ROUTES.keyDistribution.read, inputs: { kms: "kmsName", key: "keyName" } },
  discover: { list: KEYMGMT_ROUTES.keyDistribution.list },
  risk: {
    lost: "the key's copy in the KMS provider is removed there, so what the provider's users protected with it can no longer be decrypted there",
    instead: "`retainOnDelete: true` to leave the copy in the provider",
  },
  ...keyDistributionSet,
  async create(ctx, inputs) {
    const p = params(inputs);
    const id = pathOf(KEYMGMT_ROUTES.keyDistribution.read, p);
    const conflict = (messages: string[]) =>
      new ConflictError({ service: "secrets", method: "POST", path: `/${id}`, messages });
    // Checked before the write, so the error says exactly which rule and what to do.
    const holders = await listNames(ctx, KEYMGMT_ROUTES.key.providers, { mount: p.mount, name: inputs.keyName });
    const others = holders.filter((h) => h !== inputs.kmsName);
    if (others.length > 0) {
      throw conflict([`key ${inputs.keyName} is already distributed to KMS provider ${others.join(", ")}; a key can be ` +
        `distributed to one KMS provider at a time: remove that distribution first`]);
    }
    if (holders.includes(inputs.kmsName)) {
      if (!inputs.adopt) {
        throw conflict([`key ${inputs.keyName} is already distributed to KMS provider ${inputs.kmsName}; set adopt: true ` +
          `to manage the existing distribution`]);
      }
      const outs = await readBack(id, inputs, () => readDistribution(ctx, inputs));
      if (outs.protection !== inputs.protection || outs.purpose.join(",") !== [...inputs.purpose].sort().join(",")) {
        throw conflict([`the existing distribution has purpose ${outs.purpose.join(",")} and protection ${outs.protection}; ` +
          `its parameters are immutable, so it cannot be adopted with other values`]);
      }
      return { id, outs };
    }
    await createOnce<true>({
      // The path was free a moment ago: whatever a lost create left there is ours.
      scope: `path:${id}`,
      idOf: () => id,
      attempt: async () => {
        await ctx.client("secrets").request({
          route: KEYMGMT_ROUTES.keyDistribution.create, params: p, body: keyDistributionSet.body(inputs, ["keyName", "kmsName", "mount"]),
        });
        return true;
      },
      find: async () => ((await fetchData(ctx, KEYMGMT_ROUTES.keyDistribution.read, p)) ? true : undefined),
      log: (m) => ctx.log(`distribution of ${inputs.keyName} to ${inputs.kmsName}: ${m}`),
    });
    return { id, outs: await readBack(id, inputs, () => readDistribution(ctx, inputs)) };
  },
  read: (ctx, _id, props) => readDistribution(ctx, props),
  // Every argument is immutable, so only `adopt` (which changes nothing) can lead here.
  async update(ctx, id, _olds, news) {
    return readBack(id, news, () => readDistribution(ctx, news));
  },
  async delete(ctx, _id, props) {
    // Removes it from the provider only; the key stays in the engine.
    await ctx.client("secrets").request({ route: KEYMGMT_ROUTES.keyDistribution.delete, params: params(props) });
  },
};

export type KeyDistributionArgs = ArgsOf<typeof keyDistributionFields> & ConnectionArgs<"secrets">;

/**
 * The distribution of a key to a KMS provider: `/{mount}/kms/{kmsName}/key/{keyName}`. Deleting it
 * removes the key from the provider only; the key stays in the engine. A key can be distributed to
 * one provider at a time.
 *
 * @remarks
 * Before the POST the provider lists the key's providers and fails with `key k is already
 * distributed to KMS provider aws-eu; a key can be distributed to one KMS provider at a time: remove
 * that distribution first`. Moving a key to another provider (changing `kmsName`) deletes the old
 * distribution before creating the new one.
 *
 * @example
 * ```ts
 * new svc.secrets.keymgmt.KeyDistribution("signing-in-aws", {
 *   keyName: signing.name, kmsName: aws.name, purpose: ["sign", "verify"], protection: "hsm",
 * });
 * ```
 */
export interface KeyDistribution extends OutputsOf<typeof keyDistributionFields> {}
export class KeyDistribution extends SvcResource(keyDistributionDefinition) { constructor(name: string, args: KeyDistributionArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

const listFields = pick(keyDistributionFields, "kmsName", "mount");
const getFields = pick(keyDistributionFields, "kmsName", "keyName", "mount");

/** Which KMS provider's keys to list. */
export type ListKeyDistributionsArgs = PlainArgsOf<typeof listFields>;

/** Which distribution: the key, the KMS provider and the mount. */
export type GetKeyDistributionArgs = PlainArgsOf<typeof getFields>;

const listFn = namesFunction<ListKeyDistributionsArgs>({ name: "listKeyDistributions", fields: listFields, service: "secrets" }, KEYMGMT_ROUTES.keyDistribution.list,
  (args) => ({ mount: args.mount ?? DEFAULT_KEYMGMT_MOUNT, kms: args.kmsName }));

const getFn: FunctionDefinition<GetKeyDistributionArgs, KeyDistributionInfo> = { name: "getKeyDistribution", fields: getFields, sideEffects: false, service: "secrets",
  run: (ctx, args) => reportOf(ctx, KEYMGMT_ROUTES.keyDistribution.read, params(args), (data) => distributionInfo(data, args)),
};

/** Names of the keys distributed to a KMS provider (empty when there are none). */
export const listKeyDistributions = forms(listFn).promise;

/** Output form of {@link listKeyDistributions}. */
export const listKeyDistributionsOutput = forms(listFn).output;

/** Reads the distribution of a key to a KMS provider: provider-side name, purposes, protection, versions. */
export const getKeyDistribution = forms(getFn).promise;

/** Output form of {@link getKeyDistribution}. */
export const getKeyDistributionOutput = forms(getFn).output;
