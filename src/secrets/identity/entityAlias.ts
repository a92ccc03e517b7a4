/**
 * An identity entity alias: binds a client identifier of an authentication source (a username, or a
 * role id) to an identity entity. The service assigns its id. `/identity/entity-alias/id/{id}`.
 *
 * Security: whoever may modify an alias can bind it to a more privileged entity, and every client
 * that authenticates as the alias gains the entity's privileges. See the README.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { segment } from "../../core/segment";
import { createOnce } from "../../core/createOnce";
import type { Context, ResourceDefinition } from "../../core/definition";
import { PartialFailure } from "../../core/definition";
import { invoke, invokeOutput, type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions } from "../../core/fn";
import { SvcResource } from "../../core/resource";
import { dataOf } from "../envelope";
import { fetchData, listNames } from "../pathObject";
import type { ConnectionArgs } from "../../core/connection";

export const ALIAS_ROUTES = {
  create: "POST /identity/entity-alias",
  read: "GET /identity/entity-alias/id/{id}",
  update: "POST /identity/entity-alias/id/{id}",
  delete: "DELETE /identity/entity-alias/id/{id}",
  list: "LIST /identity/entity-alias/id",
} as const;

export interface EntityAliasState {
  name: string;
  canonicalId: string;
  mountAccessor: string;
  customMetadata?: Record<string, string>;
  mountPath?: string;
  mountType?: string;
  metadata?: Record<string, string>;
  local?: boolean;
  creationTime?: string;
  lastUpdateTime?: string;
  [key: string]: unknown;
}

/** An alias as the service reports it, with the resource's property names. */
export interface EntityAliasInfo {
  /** Alias id (a UUID the service assigns). */
  id: string;
  /** Name of the alias: the user or role name in its auth method. */
  name: string;
  /** Id of the entity the alias belongs to. */
  canonicalId: string;
  /** Accessor of the auth method mount (`auth_userpass_...`). */
  mountAccessor: string;
  /** Metadata set by the operator. */
  customMetadata: Record<string, string>;
  /** Path of the auth method mount (`auth/userpass/`). */
  mountPath: string;
  /** Type of the auth method (`userpass`, `approle`, ...). */
  mountType: string;
  /** Metadata the auth method attached at login. */
  metadata: Record<string, string>;
  /** Whether the alias is local to this cluster (not replicated). */
  local: boolean;
  /** When the alias was created (RFC 3339). */
  creationTime: string;
  /** When the alias last changed (RFC 3339). */
  lastUpdateTime: string;
}

const stringMap = (raw: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (raw && typeof raw === "object" && !Array.isArray(raw)) {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) out[k] = String(v ?? "");
  }
  return out;
};

export function aliasInfo(id: string, d: Record<string, unknown>): EntityAliasInfo {
  return {
    id: String(d.id ?? id),
    name: String(d.name ?? ""),
    canonicalId: String(d.canonical_id ?? ""),
    mountAccessor: String(d.mount_accessor ?? ""),
    customMetadata: stringMap(d.custom_metadata),
    mountPath: String(d.mount_path ?? ""),
    mountType: String(d.mount_type ?? ""),
    metadata: stringMap(d.metadata),
    local: d.local === true,
    creationTime: String(d.creation_time ?? ""),
    lastUpdateTime: String(d.last_update_time ?? ""),
  };
}

/**
 * Server data → state. No custom metadata is `{}` on the service: it is left out of state unless the
 * program gave the property (`prior`), so neither an omitted nor an empty map is a perpetual diff.
 */
export function aliasState(id: string, d: Record<string, unknown>, prior: Partial<EntityAliasState>): EntityAliasState {
  const { id: _id, customMetadata, ...rest } = aliasInfo(id, d);
  const keep = Object.keys(customMetadata).length > 0 || prior.customMetadata !== undefined;
  return { ...rest, ...(keep ? { customMetadata } : {}) };
}

function body(p: EntityAliasState): Record<string, unknown> {
  return { name: p.name, canonical_id: p.canonicalId, mount_accessor: p.mountAccessor, custom_metadata: p.customMetadata ?? {} };
}

let schema: z.ZodType | undefined;
function buildSchema(): z.ZodType {
  const required = (what: string) => z.string({ error: "must be a string" }).min(1, `must not be empty: it is ${what}`);
  return z.object({
    name: required("the client identifier in the authentication source (a username or a role id)"),
    canonicalId: required("the id of the entity the alias belongs to"),
    mountAccessor: required("the accessor of the authentication mount (auth_<type>_...)"),
    customMetadata: z.record(z.string().min(1, "metadata keys must not be empty"), z.string({ error: "must be a string" }),
      { error: "must be a map of string to string" }).optional(),
  });
}

/**
 * The alias a lost create made: one that was not there before the attempt (`before`), with the
 * same name and mount accessor (the service allows one alias per name on a mount). An alias someone
 * else made earlier is never taken over.
 */
async function findCreated(ctx: Context, inputs: EntityAliasState, before: Set<string>, owned: (id: string) => boolean): Promise<string | undefined> {
  const metadata = JSON.stringify(Object.entries(inputs.customMetadata ?? {}).sort());
  for (const id of await listNames(ctx, ALIAS_ROUTES.list, {})) {
    if (before.has(id) || owned(id)) continue;
    const data = await fetchData(ctx, ALIAS_ROUTES.read, { id });
    if (data && data.name === inputs.name && data.mount_accessor === inputs.mountAccessor && data.canonical_id === inputs.canonicalId &&
      JSON.stringify(Object.entries((data.custom_metadata ?? {}) as Record<string, unknown>).sort()) === metadata) return id;
  }
  return undefined;
}

export const entityAliasDefinition: ResourceDefinition<EntityAliasState, EntityAliasState> = {
  kind: "secrets:IdentityEntityAlias",
  schema: () => (schema ??= buildSchema()),
  outputs: ["mountPath", "mountType", "metadata", "local", "creationTime", "lastUpdateTime"],
  async create(ctx, inputs) {
    const client = ctx.client("secrets");
    const before = new Set(await listNames(ctx, ALIAS_ROUTES.list, {}));
    const id = await createOnce({
      // Creates a server-assigned id: never repeated blindly (createOnce looks first).
      scope: `entity-aliases:${client.baseUrl}`,
      attempt: async () => String(dataOf<{ id?: unknown }>((await client.request({ route: ALIAS_ROUTES.create, body: body(inputs) })).body).id),
      find: (owned) => findCreated(ctx, inputs, before, owned),
      idOf: (created) => created,
      log: (m) => ctx.log(`entity alias ${inputs.name}: ${m}`),
    });
    try {
      const data = await fetchData(ctx, ALIAS_ROUTES.read, { id });
      if (!data) throw new Error(`entity alias ${id} was created but reads back as missing`);
      return { id, outs: aliasState(id, data, inputs) };
    } catch (e) {
      throw new PartialFailure(id, inputs, e as Error);
    }
  },
  async read(ctx, id, props) {
    const data = await fetchData(ctx, ALIAS_ROUTES.read, { id });
    return data ? aliasState(id, data, props) : undefined;
  },
  async update(ctx, id, _olds, news) {
    // Writing the same fields twice has the same result: safe to repeat.
    await ctx.client("secrets").request({ route: ALIAS_ROUTES.update, params: { id }, body: body(news), retry: "safe" });
    const data = await fetchData(ctx, ALIAS_ROUTES.read, { id });
    if (!data) throw new Error(`entity alias ${id} was updated but reads back as missing`);
    return aliasState(id, data, news);
  },
  async delete(ctx, id) {
    await ctx.client("secrets").request({ route: ALIAS_ROUTES.delete, params: { id } });
  },
};

export interface EntityAliasArgs extends ConnectionArgs<"secrets"> {
  /**
   * The client identifier in the authentication source: a username, or a role identifier for
   * role-based sources. One alias per name on a mount.
   */
  name: pulumi.Input<string>;
  /**
   * Id of the identity entity the alias belongs to. Whoever may change this can bind the alias to a
   * more privileged entity: restrict write access to identity endpoints (see the README).
   */
  canonicalId: pulumi.Input<string>;
  /** Accessor of the authentication mount the name comes from (e.g. `auth_userpass_1234abcd`). */
  mountAccessor: pulumi.Input<string>;
  /** Your own metadata for the alias. Removing it (or giving `{}`) clears it on the service. */
  customMetadata?: pulumi.Input<Record<string, pulumi.Input<string>>>;
}

/**
 * An identity entity alias (server-assigned id). A unique alias per entity is recommended: every
 * client that authenticates as the alias gains the privileges of its entity.
 *
 * @example
 * ```ts
 * const alias = new svc.secrets.identity.EntityAlias("alice", {
 *   name: "alice", canonicalId: entityId, mountAccessor: "auth_userpass_6a1b2c3d",
 * });
 * ```
 */
export class EntityAlias extends SvcResource {
  /**
   * The client identifier in the authentication source: a username, or a role identifier for
   * role-based sources. One alias per name on a mount.
   */
  declare readonly name: pulumi.Output<string>;
  /**
   * Id of the identity entity the alias belongs to. Whoever may change this can bind the alias to a
   * more privileged entity: restrict write access to identity endpoints (see the README).
   */
  declare readonly canonicalId: pulumi.Output<string>;
  /** Accessor of the authentication mount the name comes from (e.g. `auth_userpass_1234abcd`). */
  declare readonly mountAccessor: pulumi.Output<string>;
  /** Your own metadata for the alias. Removing it (or giving `{}`) clears it on the service. */
  declare readonly customMetadata: pulumi.Output<Record<string, string> | undefined>;
  /** Path of the authentication mount (e.g. `auth/userpass/`). */
  declare readonly mountPath: pulumi.Output<string>;
  /** Type of the authentication mount (e.g. `userpass`). */
  declare readonly mountType: pulumi.Output<string>;
  /** Metadata set by the authentication method (not by you). */
  declare readonly metadata: pulumi.Output<Record<string, string>>;
  /** True when the alias belongs to a local (not replicated) mount. */
  declare readonly local: pulumi.Output<boolean>;
  /** When the service created the alias (RFC 3339, as the service reports it). */
  declare readonly creationTime: pulumi.Output<string>;
  /** When the alias last changed on the service (RFC 3339). */
  declare readonly lastUpdateTime: pulumi.Output<string>;

  constructor(name: string, args: EntityAliasArgs, opts?: pulumi.CustomResourceOptions) {
    super(entityAliasDefinition, name, args, opts);
  }
}

// ---- functions ----

let getSchema: z.ZodType | undefined;
let listSchema: z.ZodType | undefined;

const getFn: FunctionDefinition<{ id: string }, EntityAliasInfo> = {
  name: "getEntityAlias",
  schema: () => (getSchema ??= z.object({ id: segment() })),
  sideEffects: false, service: "secrets",
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: ALIAS_ROUTES.read, params: { id: args.id } });
    return aliasInfo(args.id, dataOf(res.body));
  },
};

const listFn: FunctionDefinition<Record<string, never>, { keys: string[] }> = {
  name: "listEntityAliases",
  schema: () => (listSchema ??= z.object({})),
  sideEffects: false, service: "secrets",
  run: async (ctx) => ({ keys: await listNames(ctx, ALIAS_ROUTES.list, {}) }),
};

/** Reads an entity alias by id. */
export function getEntityAlias(args: {
  /** Alias id (a UUID the service assigns). */
  id: string;
}, opts?: SvcInvokeOptions<"secrets">): Promise<EntityAliasInfo> {
  return invoke(getFn, args, opts);
}

/** Output form of {@link getEntityAlias}. */
export function getEntityAliasOutput(args: {
  /** Alias id (a UUID the service assigns). */
  id: pulumi.Input<string>;
}, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<EntityAliasInfo> {
  return invokeOutput(getFn, args, opts);
}

/** Ids of every entity alias (empty when there are none). */
export function listEntityAliases(opts?: SvcInvokeOptions<"secrets">): Promise<{
  /** Ids of every entity alias. */
  keys: string[];
}> {
  return invoke(listFn, {}, opts);
}

/** Output form of {@link listEntityAliases}. */
export function listEntityAliasesOutput(opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<{
  /** Ids of every entity alias. */
  keys: string[];
}> {
  return invokeOutput(listFn, {}, opts);
}
