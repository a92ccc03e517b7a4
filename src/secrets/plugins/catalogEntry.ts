/**
 * A plugin catalog entry: `/sys/plugins/catalog/{type}/{name}`. Plugins must be registered before
 * use; the service checks the binary against `sha256` before it runs. Registering, reading and
 * removing an entry need a token with the sudo capability.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { isUnknown } from "../../core/unknown";
import type { Context, ResourceDefinition } from "../../core/definition";
import { invoke, invokeOutput, type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions } from "../../core/fn";
import { SvcResource } from "../../core/resource";
import { ForbiddenError, isSvcError, registerSecret, type RequestSpec, type SvcError } from "../../http";
import { dataOf } from "../envelope";
import { adopt, name } from "../fields";
import { alreadyExists, fetchData, listNames, pathOf, readBack, writeNew } from "../pathObject";
import type { ConnectionArgs } from "../../core/connection";

export const PLUGIN_TYPES = ["auth", "database", "secret"] as const;
export type PluginType = (typeof PLUGIN_TYPES)[number];

export const PLUGIN_ROUTES = {
  /** Registers or updates (sudo). */
  write: "PUT /sys/plugins/catalog/{type}/{name}",
  /** Sudo. */
  read: "GET /sys/plugins/catalog/{type}/{name}",
  /** Sudo. */
  delete: "DELETE /sys/plugins/catalog/{type}/{name}",
  /** Every plugin name, grouped by type. */
  catalog: "GET /sys/plugins/catalog",
  listType: "LIST /sys/plugins/catalog/{type}",
} as const;

export const SUDO_HINT = "the plugin catalog needs a token with the sudo capability to register, read or remove plugins: " +
  "set svc:secretsToken (or SVC_SECRETS_TOKEN) to a sudo token";

export interface CatalogEntryState {
  type: PluginType;
  name: string;
  sha256: string;
  command: string;
  args: string[];
  env?: string[];
  adopt?: boolean;
  builtin?: boolean;
  [key: string]: unknown;
}

/** A catalog entry as the service reports it (`env` is never returned). */
export interface PluginInfo {
  /** Plugin type: `auth`, `database` or `secret`. */
  type: PluginType;
  /** Name of the plugin in the catalog. */
  name: string;
  /** SHA-256 checksum of the plugin binary (hex). */
  sha256: string;
  /** Command that runs the plugin, relative to the plugin directory. */
  command: string;
  /** Arguments given to the command. */
  args: string[];
  /** Whether the plugin is built into the service. */
  builtin: boolean;
}

/** `ENV_NAME=value`: a variable name, `=`, then any value. */
const ENV_ENTRY = /^[A-Za-z_][A-Za-z0-9_]*=/;

let schema: z.ZodType | undefined;
function buildSchema(): z.ZodType {
  return z.object({
    type: z.enum(PLUGIN_TYPES, { error: `must be one of ${PLUGIN_TYPES.join(", ")}` }),
    name: name(),
    sha256: z.string({ error: "must be a string" }).regex(/^[0-9a-fA-F]{64}$/, "must be the SHA-256 of the plugin binary: 64 hexadecimal characters"),
    command: z.string({ error: "must be a string" }).min(1, "must not be empty")
      .refine((c) => !c.startsWith("/"), "must be relative to the plugin directory (no leading /)")
      .refine((c) => !c.split(/[\\/]/).includes(".."), "must stay inside the plugin directory (no .. segment)"),
    args: z.array(z.string({ error: "must be a string" }), { error: "must be a list of strings" }),
    env: z.array(z.string({ error: "must be a string" }).regex(ENV_ENTRY, "must be KEY=value (KEY: letters, digits and _, not starting with a digit)"),
      { error: "must be a list of KEY=value strings" }).optional(),
    adopt: adopt(),
  });
}

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
    return await fetchData(ctx, PLUGIN_ROUTES.read, params(p));
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

/** Server data → state; a checksum the service reports in another letter case is the same checksum. */
function entryState(d: Record<string, unknown>, p: CatalogEntryState): CatalogEntryState {
  const info = pluginInfo(d, p);
  if (typeof p.sha256 === "string" && p.sha256.toLowerCase() === info.sha256.toLowerCase()) info.sha256 = p.sha256;
  return { ...info };
}

export function pluginInfo(d: Record<string, unknown>, p: { type: string; name: string }): PluginInfo {
  return {
    type: p.type as PluginType,
    name: String(d.name ?? p.name),
    sha256: String(d.sha256 ?? ""),
    command: String(d.command ?? ""),
    args: Array.isArray(d.args) ? d.args.map(String) : [],
    builtin: d.builtin === true,
  };
}

function body(p: CatalogEntryState): Record<string, unknown> {
  for (const e of p.env ?? []) {
    const value = e.slice(e.indexOf("=") + 1);
    if (value) registerSecret(value);
  }
  return { sha256: p.sha256, command: p.command, args: p.args ?? [], env: p.env ?? [] };
}

async function write(ctx: Context, p: CatalogEntryState): Promise<void> {
  // Registers or updates with the same values: safe to repeat.
  await request(ctx, { route: PLUGIN_ROUTES.write, params: params(p), body: body(p), retry: "safe" });
}

async function readEntry(ctx: Context, p: CatalogEntryState): Promise<CatalogEntryState | undefined> {
  const data = await fetchRegistered(ctx, p);
  return data ? entryState(data, p) : undefined;
}

export const catalogEntryDefinition: ResourceDefinition<CatalogEntryState, CatalogEntryState> = {
  kind: "secrets:PluginCatalogEntry",
  // Letter case is no difference in a checksum: one spelling in state, whatever the program writes.
  normalize: (p) => (typeof p.sha256 === "string" && !isUnknown(p.sha256) ? { sha256: p.sha256.toLowerCase() } : {}),
  schema: () => (schema ??= buildSchema()),
  defaults: { args: [] },
  // The path: a new type or name is a new entry (created before the old one is removed).
  immutable: ["type", "name"],
  identity: ["type", "name"],
  secrets: ["env"],
  // The service does not return env on read.
  writeOnly: ["env"],
  local: ["adopt"],
  outputs: ["builtin"],
  async create(ctx, inputs) {
    const id = pathOf(PLUGIN_ROUTES.read, params(inputs));
    const existing = await fetchRegistered(ctx, inputs);
    if (existing && !inputs.adopt) {
      throw alreadyExists("PUT", id, "catalog entry");
    }
    await writeNew(ctx, () => write(ctx, inputs), PLUGIN_ROUTES.read, params(inputs));
    return { id, outs: await readBack(id, inputs, () => readEntry(ctx, inputs)) };
  },
  async read(ctx, _id, props) {
    // Only the builtin left (or nothing): the registration this resource made is gone.
    const data = await fetchRegistered(ctx, props);
    return data ? entryState(data, props) : undefined;
  },
  async update(ctx, id, _olds, news) {
    await write(ctx, news);
    return readBack(id, news, () => readEntry(ctx, news));
  },
  async delete(ctx, _id, props) {
    await request(ctx, { route: PLUGIN_ROUTES.delete, params: params(props) });
  },
};

export interface CatalogEntryArgs extends ConnectionArgs<"secrets"> {
  /** Plugin type: `auth`, `database` or `secret`. Part of the path: changing it registers a new entry. */
  type: pulumi.Input<PluginType>;
  /** Plugin name. Part of the path: changing it registers a new entry (the old one is removed after). */
  name: pulumi.Input<string>;
  /** SHA-256 of the plugin binary (64 hexadecimal characters); the service checks it before the plugin runs. */
  sha256: pulumi.Input<string>;
  /** The command that runs the plugin, relative to the service's plugin directory. */
  command: pulumi.Input<string>;
  /** Arguments given to the command. Default none. */
  args?: pulumi.Input<pulumi.Input<string>[]>;
  /**
   * Environment of the plugin process, as `KEY=value` entries. Secret (it often holds credentials),
   * and write-only: the service never returns it, so it is kept from your input and compared only with
   * your previous value.
   */
  env?: pulumi.Input<pulumi.Input<string>[]>;
  /** Take over an entry that is already registered at the path instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

/**
 * A plugin catalog entry: `/sys/plugins/catalog/{type}/{name}` of the secrets service. The
 * configured token must have the sudo capability.
 *
 * @example
 * ```ts
 * new svc.secrets.plugins.CatalogEntry("acme-db", {
 *   type: "database", name: "acme-db", command: "acme-db-plugin", sha256: pluginSha256,
 * });
 * ```
 */
export class CatalogEntry extends SvcResource {
  /** Plugin type: `auth`, `database` or `secret`. Part of the path: changing it registers a new entry. */
  declare readonly type: pulumi.Output<PluginType>;
  /** Plugin name. Part of the path: changing it registers a new entry (the old one is removed after). */
  declare readonly name: pulumi.Output<string>;
  /** SHA-256 of the plugin binary (64 hexadecimal characters); the service checks it before the plugin runs. */
  declare readonly sha256: pulumi.Output<string>;
  /** The command that runs the plugin, relative to the service's plugin directory. */
  declare readonly command: pulumi.Output<string>;
  /** Arguments given to the command. Default none. */
  declare readonly args: pulumi.Output<string[]>;
  /** Secret; your input, never read from the service. */
  declare readonly env: pulumi.Output<string[] | undefined>;
  /** True for a plugin built into the service. */
  declare readonly builtin: pulumi.Output<boolean>;

  constructor(name: string, args: CatalogEntryArgs, opts?: pulumi.CustomResourceOptions) {
    super(catalogEntryDefinition, name, args, opts);
  }
}

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

let getSchema: z.ZodType | undefined;
let listSchema: z.ZodType | undefined;

const getFn: FunctionDefinition<{ type: PluginType; name: string }, PluginInfo> = {
  name: "getPlugin",
  schema: () => (getSchema ??= z.object({
    type: z.enum(PLUGIN_TYPES, { error: `must be one of ${PLUGIN_TYPES.join(", ")}` }),
    name: name(),
  })),
  sideEffects: false, service: "secrets",
  async run(ctx, args) {
    const res = await request(ctx, { route: PLUGIN_ROUTES.read, params: params(args) });
    return pluginInfo(dataOf(res.body), args);
  },
};

const names = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

const listFn: FunctionDefinition<{ type?: PluginType }, PluginCatalog> = {
  name: "listPlugins",
  schema: () => (listSchema ??= z.object({
    type: z.enum(PLUGIN_TYPES, { error: `must be one of ${PLUGIN_TYPES.join(", ")}` }).optional(),
  })),
  sideEffects: false, service: "secrets",
  async run(ctx, args) {
    if (args.type) {
      // One type only: the other groups stay empty.
      const one = await listNames(ctx, PLUGIN_ROUTES.listType, { type: args.type });
      return { auth: [], database: [], secret: [], [args.type]: one };
    }
    let data: Record<string, unknown> = {};
    try {
      data = dataOf((await ctx.client("secrets").request({ route: PLUGIN_ROUTES.catalog })).body);
    } catch (e) {
      if (!isSvcError(e, "not_found")) throw e;
    }
    return { auth: names(data.auth), database: names(data.database), secret: names(data.secret) };
  },
};

/** Reads a catalog entry (needs a sudo token): command, args, sha256 and whether it is builtin. */
export function getPlugin(args: {
  /** Plugin type: `auth`, `database` or `secret`. */
  type: PluginType;
  /** Name of the plugin in the catalog. */
  name: string;
}, opts?: SvcInvokeOptions<"secrets">): Promise<PluginInfo> {
  return invoke(getFn, args, opts);
}

/** Output form of {@link getPlugin}. */
export function getPluginOutput(args: {
  /** Plugin type: `auth`, `database` or `secret`. */
  type: pulumi.Input<PluginType>;
  /** Name of the plugin in the catalog. */
  name: pulumi.Input<string>;
}, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<PluginInfo> {
  return invokeOutput(getFn, args, opts);
}

/** Names in the plugin catalog grouped by type (`auth`, `database`, `secret`); `type` narrows it to one. */
export function listPlugins(args: {
  /** Plugin type: `auth`, `database` or `secret`. */
  type?: PluginType;
} = {}, opts?: SvcInvokeOptions<"secrets">): Promise<PluginCatalog> {
  return invoke(listFn, args, opts);
}

/** Output form of {@link listPlugins}. */
export function listPluginsOutput(args: {
  /** Plugin type: `auth`, `database` or `secret`. */
  type?: pulumi.Input<PluginType>;
} = {}, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<PluginCatalog> {
  return invokeOutput(listFn, args, opts);
}
