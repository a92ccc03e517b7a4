/**
 * A KMS provider of the key management engine: `/{mount}/kms/{name}`, an external key management
 * service keys are distributed to. One write creates or updates it; `provider` and
 * `key_collection` are immutable; `credentials` are written, never read back.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import type { Context, ResourceDefinition } from "../../core/definition";
import { type FunctionDefinition } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, pick, type ArgsOf, type InfoOf, type OutputsOf, type PlainArgsOf, type StateOf } from "../../core/fields";
import { ConflictError } from "../../http";
import { adopt, mount, name } from "../fields";
import { listNames, namesFunction, pathOf, readDecoded, reportOf, upserted } from "../pathObject";
import { DEFAULT_KEYMGMT_MOUNT } from "./key";
import type { ConnectionArgs } from "../../core/connection";
import { KEYMGMT_ROUTES } from "./routes";

/** External provider kinds (the seed does not list them; these are the real-world equivalent's). */
export const KMS_PROVIDERS = ["azurekeyvault", "awskms", "gcpckms"] as const;
export type KmsProviderKind = (typeof KMS_PROVIDERS)[number];

/** Credential names each provider kind accepts (the real-world equivalent's; not listed by the seed). */
export const KMS_CREDENTIALS: Record<KmsProviderKind, readonly string[]> = {
  azurekeyvault: ["client_id", "client_secret", "tenant_id", "environment"],
  awskms: ["access_key", "secret_key", "session_token", "endpoint", "region"],
  gcpckms: ["service_account_file"],
};

const providerKind = () => z.enum(KMS_PROVIDERS, { error: `must be one of ${KMS_PROVIDERS.join(", ")}` });

export const kmsProviderFields = {
  /**
   * Name of the KMS provider: the last segment of its path `/{mount}/kms/{name}`. On a KmsProvider,
   * changing it replaces the provider (the new one is created first).
   */
  name: field(name, { identity: true }),
  /** Mount path of the key management engine. Default `keymgmt`. On a KmsProvider, changing it replaces the provider. */
  mount: field(mount, { identity: true, default: DEFAULT_KEYMGMT_MOUNT }),
  /**
   * External provider kind: `azurekeyvault`, `awskms` or `gcpckms`. Immutable: changing it replaces
   * the provider at the same path, so the old one is deleted first (which fails while keys are
   * distributed to it).
   */
  provider: field(providerKind, { immutable: true }),
  /**
   * Where keys live in the provider (its expected value depends on the provider: a key vault name, a
   * region, a key ring). Immutable: changing it replaces the provider, deleting the old one first.
   */
  keyCollection: field(() => z.string({ error: "must be a string" }).min(1, "must not be empty: it is the location of keys in the provider"),
    { immutable: true }),
  /**
   * Credentials for the provider; the names depend on the provider: azurekeyvault `client_id`,
   * `client_secret`, `tenant_id`, `environment`; awskms `access_key`, `secret_key`,
   * `session_token`, `endpoint`, `region`; gcpckms `service_account_file`.
   * Optional: the service may take them from its environment. Write-only: the service never returns
   * them; they are kept secret in state and compared only with your previous value. Removing them
   * leaves the stored credentials on the service unchanged.
   */
  credentials: field(() => z.record(
    z.string().min(1, "credential names must not be empty").regex(/^[^=]+$/, "credential names must not contain ="),
    z.string({ error: "must be a string" }),
    { error: "must be a map of string to string" },
  ), { optional: true, secret: true, writeOnly: true, members: ["access_key", "secret_key", "session_token", "client_secret", "service_account_file"] }),
  /** Take over a KMS provider that already exists at the path (same provider and collection) instead of failing. */
  adopt: field(adopt, { local: true }),
};

const kmsProviderSet = fieldSet(kmsProviderFields, {
  refine(v, ctx) {
    const allowed = KMS_CREDENTIALS[v.provider as KmsProviderKind];
    if (!allowed || !v.credentials || typeof v.credentials !== "object") return; // unknown during preview
    for (const k of Object.keys(v.credentials)) {
      if (!allowed.includes(k)) ctx.addIssue({ code: "custom", path: ["credentials", k], message: `is not a ${v.provider} credential; use ${allowed.join(", ")}` });
    }
  },
});

export type KmsProviderState = StateOf<typeof kmsProviderFields>;

/** A KMS provider as the service reports it (credentials are never returned). */
export type KmsProviderInfo = InfoOf<typeof kmsProviderFields>;

function params(p: { mount?: string; name: string }): Record<string, string> {
  return { mount: p.mount ?? DEFAULT_KEYMGMT_MOUNT, name: p.name };
}

function info(data: Record<string, unknown>, p: { name: string; mount?: string }): KmsProviderInfo {
  return kmsProviderSet.decode(data, { ...p, mount: p.mount ?? DEFAULT_KEYMGMT_MOUNT }) as KmsProviderInfo;
}

async function write(ctx: Context, p: KmsProviderState): Promise<void> {
  // An upsert of the same values: safe to repeat.
  await ctx.client("secrets").request({ route: KEYMGMT_ROUTES.kmsProvider.write, params: params(p), body: kmsProviderSet.body(p, ["name", "mount"]), retry: "safe" });
}

const readProvider = (ctx: Context, p: KmsProviderState) =>
  readDecoded(ctx, KEYMGMT_ROUTES.kmsProvider.read, params(p), (data) => kmsProviderSet.decode(data, p) as KmsProviderState);

export const kmsProviderDefinition: ResourceDefinition<KmsProviderState, KmsProviderState> = {
  kind: "secrets:KeymgmtKmsProvider",
  routes: { write: KEYMGMT_ROUTES.kmsProvider.write, read: KEYMGMT_ROUTES.kmsProvider.read, delete: KEYMGMT_ROUTES.kmsProvider.delete, list: KEYMGMT_ROUTES.kmsProvider.list, keys: KEYMGMT_ROUTES.kmsProvider.keys },
  path: { route: KEYMGMT_ROUTES.kmsProvider.read },
  discover: { list: KEYMGMT_ROUTES.kmsProvider.list },
  ...kmsProviderSet,
  ...upserted<KmsProviderState>({
    read: KEYMGMT_ROUTES.kmsProvider.read, method: "POST", what: "KMS provider", params, write, readBack: readProvider,
    refuse: (existing, inputs, id) => (existing.provider !== inputs.provider || existing.key_collection !== inputs.keyCollection
      ? new ConflictError({ service: "secrets", method: "POST", path: `/${id}`,
        messages: [`${id} exists with provider ${String(existing.provider)} and key collection ${String(existing.key_collection)}; ` +
          `both are immutable, so it cannot be adopted with other values`] })
      : undefined),
  }),
  read: (ctx, _id, props) => readProvider(ctx, props),
  async delete(ctx, _id, props) {
    const p = params(props);
    const keys = await listNames(ctx, KEYMGMT_ROUTES.kmsProvider.keys, p);
    if (keys.length > 0) {
      throw new ConflictError({ service: "secrets", method: "DELETE", path: `/${pathOf(KEYMGMT_ROUTES.kmsProvider.delete, p)}`,
        messages: [`KMS provider ${props.name} still holds keys ${keys.join(", ")}: remove their KeyDistribution resources ` +
          `(the distributions must be deleted before the provider)`] });
    }
    await ctx.client("secrets").request({ route: KEYMGMT_ROUTES.kmsProvider.delete, params: p });
  },
};

export type KmsProviderArgs = ArgsOf<typeof kmsProviderFields> & ConnectionArgs<"secrets">;

/**
 * A KMS provider of the key management engine: `/{mount}/kms/{name}` of the secrets service, an
 * external KMS that keys are distributed to.
 *
 * @remarks
 * Deleting (or replacing) a provider that still holds keys fails before the DELETE with the keys
 * listed: `DELETE /keymgmt/kms/aws-eu: conflict: KMS provider aws-eu still holds keys a, b: remove
 * their KeyDistribution resources ...`.
 *
 * @example
 * ```ts
 * const aws = new svc.secrets.keymgmt.KmsProvider("aws", {
 *   name: "aws-eu", provider: "awskms", keyCollection: "eu-west-1",
 *   credentials: { access_key: cfg.requireSecret("awsAccessKey"), secret_key: cfg.requireSecret("awsSecretKey") },
 * });
 * ```
 */
export interface KmsProvider extends OutputsOf<typeof kmsProviderFields> {}
export class KmsProvider extends SvcResource(kmsProviderDefinition) { constructor(name: string, args: KmsProviderArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

const kmsProviderRefFields = pick(kmsProviderFields, "name", "mount");
const mountOnlyFields = pick(kmsProviderFields, "mount");

/** Which KMS provider: its name and mount. */
export type KmsProviderRefArgs = PlainArgsOf<typeof kmsProviderRefFields>;

const getFn: FunctionDefinition<KmsProviderRefArgs, KmsProviderInfo> = { name: "getKmsProvider", fields: kmsProviderRefFields, sideEffects: false, service: "secrets",
  run: (ctx, args) => reportOf(ctx, KEYMGMT_ROUTES.kmsProvider.read, params(args), (data) => info(data, args)),
};

const listFn = namesFunction<PlainArgsOf<typeof mountOnlyFields>>({ name: "listKmsProviders", fields: mountOnlyFields, service: "secrets" }, KEYMGMT_ROUTES.kmsProvider.list);

/** Reads a KMS provider: its provider kind and key collection (credentials are never returned). */
export const getKmsProvider = forms(getFn).promise;

/** Output form of {@link getKmsProvider}. */
export const getKmsProviderOutput = forms(getFn).output;

/** Names of the KMS providers of the key management engine (empty when there are none). */
export const listKmsProviders = forms(listFn, { argsOptional: true }).promise;

/** Output form of {@link listKmsProviders}. */
export const listKmsProvidersOutput = forms(listFn, { argsOptional: true }).output;
