/**
 * A plugin catalog entry: `/sys/plugins/catalog/{type}/{name}`. Plugins must be registered before
 * use; the service checks the binary against `sha256` before it runs. Registering, reading and
 * removing an entry need a token with the sudo capability.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { isUnknown } from "../../core/unknown";
import type { Context, ResourceDefinition } from "../../core/definition";
import { type FunctionDefinition } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, lazy, output, pick, type ArgsOf, type InfoOf, type OutputsOf, type PlainArgsOf, type StateOf } from "../../core/fields";
import type { Schema } from "../../core/validate";
import { ForbiddenError, isSvcError, type RequestSpec, type SvcError } from "../../http";
import { dataOf } from "../envelope";
import { adopt, name } from "../fields";
import { fetchData, listNames, upserted } from "../pathObject";
import type { ConnectionArgs } from "../../core/connection";
import { PLUGINS_ROUTES } from "./routes";

export const PLUGIN_TYPES = ["auth", "database", "secret"] as const;
export type PluginType = (typeof PLUGIN_TYPES)[number];

// The client has already named where the refused token came from (stack config, variable or connection).
export const SUDO_HINT = "the plugin catalog needs a token with the sudo capability to register, read or remove plugins";

/** `ENV_NAME=value`: a variable name, `=`, then any value. */
const ENV_ENTRY = /^[A-Za-z_][A-Za-z0-9_]*=/;

const pluginType = () => z.enum(PLUGIN_TYPES, { error: `must be one of ${PLUGIN_TYPES.join(", ")}` });

/** An env entry's value can show up in a message without its `KEY=`: both are registered. */
function envSecrets(env: unknown): unknown {
  if (!Array.isArray(env)) return env;
  return env.map((e) => (typeof e === "string" && e.includes("=") ? [e, e.slice(e.indexOf("=") + 1)] : e));
}

export const catalogEntryFields = {
  /**
   * Plugin type: `auth`, `database` or `secret`; part of the entry's path
   * `/sys/plugins/catalog/{type}/{name}`. On a CatalogEntry, changing it registers a new entry.
   */
  type: field(pluginType, { identity: true }),
  /**
   * Name of the plugin in the catalog; part of the entry's path. On a CatalogEntry, changing it
   * registers a new entry (the old one is removed after).
   */
  name: field(name, { identity: true }),
  /**
   * SHA-256 of the plugin binary (64 hexadecimal characters); the service checks it before the
   * plugin runs. Letter case is not a difference.
   */
  sha256: field(() => z.string({ error: "must be a string" }).regex(/^[0-9a-fA-F]{64}$/, "must be the SHA-256 of the plugin binary: 64 hexadecimal characters"), {
    // A checksum the service reports in another letter case is the same checksum: state keeps the one known.
    decode: (v: unknown, prior: string | undefined) => (typeof prior === "string" && prior.toLowerCase() === String(v).toLowerCase() ? prior : String(v)),
  }),
  /** The command that runs the plugin, relative to the service's plugin directory (no leading `/`, no `..`). */
  command: field(() => z.string({ error: "must be a string" }).min(1, "must not be empty")
    .refine((c) => !c.startsWith("/"), "must be relative to the plugin directory (no leading /)")
    .refine((c) => !c.split(/[\\/]/).includes(".."), "must stay inside the plugin directory (no .. segment)")),
  /** Arguments given to the command. Default none. */
  args: field(() => z.array(z.string({ error: "must be a string" }), { error: "must be a list of strings" }),
    { default: [] as string[], decode: (v: unknown) => (Array.isArray(v) ? v.map(String) : []) }),
  /**
   * Environment of the plugin process, as `KEY=value` entries. Secret (it often holds credentials),
   * and write-only: the service never returns it, so it is kept from your input and compared only with
   * your previous value.
   */
  env: field(() => z.array(z.string({ error: "must be a string" }).regex(ENV_ENTRY, "must be KEY=value (KEY: letters, digits and _, not starting with a digit)"),
    { error: "must be a list of KEY=value strings" }), { optional: true, secret: true, writeOnly: true, absent: [], redact: envSecrets }),
  /** Take over an entry that is already registered at the path instead of failing. */
  adopt: field(adopt, { local: true }),
  /** True for a plugin built into the service. */
  builtin: output<boolean>({ decode: (v: unknown) => v === true }),
};

const catalogEntrySet = fieldSet(catalogEntryFields);

export type CatalogEntryState = StateOf<typeof catalogEntryFields>;

/** A catalog entry as the service reports it (`env` is never returned). */
export type PluginInfo = InfoOf<typeof catalogEntryFields>;

function params(p: { type: string; name: string }): Record<string, string> {
  return { type: p.type, name: p.name };
}

/** A refused request gets the reason in its message: a non-sudo token. */
function sudo(e: unknown): unknown {
  if (!isSvcError(e, "forbidden")) return e;
  const err = e as SvcError;
  return new ForbiddenError({ service: err.service, method: err.method, path: err.path, status: err.status, messages: [...err.messages, SUDO_HINT] });
}

async function request(ctx: Context, spec: RequestSpec) {
  try {
    return await ctx.client("secrets").request(spec);
  } catch (e) {
    throw sudo(e);
  }
}

async function fetchPlugin(ctx: Context, p: { type: string; name: string }): Promise<Record<string, unknown> | undefined> {
  try {
    return await fetchData(ctx, PLUGINS_ROUTES.catalogEntry.read, params(p));
  } catch (e) {
    throw sudo(e);
  }
}

/**
 * The registered (external) entry at the path. A builtin plugin of the same name is not one: a
 * registration takes precedence over it, and removing the registration brings the builtin back.
 */
async function fetchRegistered(ctx: Context, p: { type: string; name: string }): Promise<Record<string, unknown> | undefined> {
  const data = await fetchPlugin(ctx, p);
  return data && data.builtin !== true ? data : undefined;
}

export function pluginInfo(d: Record<string, unknown>, p: { type: string; name: string }): PluginInfo {
  return catalogEntrySet.decode(d, p) as PluginInfo;
}

async function write(ctx: Context, p: CatalogEntryState): Promise<void> {
  // Registers or updates with the same values: safe to repeat.
  await request(ctx, { route: PLUGINS_ROUTES.catalogEntry.write, params: params(p), body: catalogEntrySet.body(p, ["type", "name"]), retry: "safe" });
}

async function readEntry(ctx: Context, p: CatalogEntryState): Promise<CatalogEntryState | undefined> {
  const data = await fetchRegistered(ctx, p);
  return data ? (catalogEntrySet.decode(data, p) as CatalogEntryState) : undefined;
}

export const catalogEntryDefinition: ResourceDefinition<CatalogEntryState, CatalogEntryState> = {
  kind: "secrets:PluginCatalogEntry",
  routes: { write: PLUGINS_ROUTES.catalogEntry.write, read: PLUGINS_ROUTES.catalogEntry.read, delete: PLUGINS_ROUTES.catalogEntry.delete, list: PLUGINS_ROUTES.catalogEntry.listType, catalog: PLUGINS_ROUTES.catalogEntry.catalog },
  path: { route: PLUGINS_ROUTES.catalogEntry.read },
  // The built-in plugins come with the service: nothing to manage.
  discover: { list: PLUGINS_ROUTES.catalogEntry.listType, each: { type: PLUGIN_TYPES }, skip: { builtin: true } },
  // Letter case is no difference in a checksum: one spelling in state, whatever the program writes.
  normalize: (p) => (typeof p.sha256 === "string" && !isUnknown(p.sha256) ? { sha256: p.sha256.toLowerCase() } : {}),
  ...catalogEntrySet,
  ...upserted<CatalogEntryState>({
    read: PLUGINS_ROUTES.catalogEntry.read, method: "PUT", what: "catalog entry", params, write, readBack: readEntry, existing: fetchRegistered,
  }),
  // Only the builtin left (or nothing): the registration this resource made is gone.
  read: (ctx, _id, props) => readEntry(ctx, props),
  async delete(ctx, _id, props) {
    await request(ctx, { route: PLUGINS_ROUTES.catalogEntry.delete, params: params(props) });
  },
};

export type CatalogEntryArgs = ArgsOf<typeof catalogEntryFields> & ConnectionArgs<"secrets">;

/**
 * A plugin catalog entry: `/sys/plugins/catalog/{type}/{name}` of the secrets service. The
 * configured token must have the sudo capability.
 *
 * @remarks
 * Registering a name the service has built in (for example `secret/kv`) needs no `adopt`: the
 * registration takes precedence, and removing it brings the builtin back (a refresh then drops the
 * entry from state).
 *
 * @throws {@link ForbiddenError} from every operation when the token lacks the sudo capability
 * (`svc:secretsToken`): `403 Forbidden: permission denied; the plugin catalog needs a token with the
 * sudo capability to register, read or remove plugins: set svc:secretsToken (or SVC_SECRETS_TOKEN)
 * to a sudo token`.
 *
 * @example
 * ```ts
 * new svc.secrets.plugins.CatalogEntry("acme-db", {
 *   type: "database", name: "acme-db", command: "acme-db-plugin", sha256: pluginSha256,
 * });
 * ```
 */
export interface CatalogEntry extends OutputsOf<typeof catalogEntryFields> {}
export class CatalogEntry extends SvcResource(catalogEntryDefinition) { constructor(name: string, args: CatalogEntryArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

/** Plugin names by type. */
export interface PluginCatalog {
  /** Names of the auth plugins. */
  auth: string[];
  /** Names of the database plugins. */
  database: string[];
  /** Names of the secret engine plugins. */
  secret: string[];
}

const pluginRefFields = pick(catalogEntryFields, "type", "name");
const typeFields = pick(catalogEntryFields, "type");

const getFn: FunctionDefinition<PlainArgsOf<typeof pluginRefFields>, PluginInfo> = { name: "getPlugin", fields: pluginRefFields, sideEffects: false, service: "secrets",
  async run(ctx, args) {
    const res = await request(ctx, { route: PLUGINS_ROUTES.catalogEntry.read, params: params(args) });
    return pluginInfo(dataOf(res.body), args);
  },
};

const names = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

const listFn: FunctionDefinition<Partial<PlainArgsOf<typeof typeFields>>, PluginCatalog> = {
  name: "listPlugins",
  // The same type as an entry's, here optional: without it every type is listed.
  schema: lazy(() => z.strictObject({ type: pluginType().optional() }) as unknown as Schema),
  sideEffects: false, service: "secrets",
  async run(ctx, args) {
    if (args.type) {
      // One type only: the other groups stay empty.
      const one = await listNames(ctx, PLUGINS_ROUTES.catalogEntry.listType, { type: args.type });
      return { auth: [], database: [], secret: [], [args.type]: one };
    }
    let data: Record<string, unknown> = {};
    try {
      data = dataOf((await ctx.client("secrets").request({ route: PLUGINS_ROUTES.catalogEntry.catalog })).body);
    } catch (e) {
      if (!isSvcError(e, "not_found")) throw e;
    }
    return { auth: names(data.auth), database: names(data.database), secret: names(data.secret) };
  },
};

/** Reads a catalog entry (needs a sudo token): command, args, sha256 and whether it is builtin. */
export const getPlugin = forms(getFn).promise;

/** Output form of {@link getPlugin}. */
export const getPluginOutput = forms(getFn).output;

/**
 * Names in the plugin catalog grouped by type (`auth`, `database`, `secret`), builtins included;
 * with `type`, only that group is filled.
 */
export const listPlugins = forms(listFn, { argsOptional: true }).promise;

/** Output form of {@link listPlugins}. */
export const listPluginsOutput = forms(listFn, { argsOptional: true }).output;
