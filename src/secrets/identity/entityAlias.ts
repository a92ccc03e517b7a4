/**
 * An identity entity alias: binds a client identifier of an authentication source (a username, or a
 * role id) to an identity entity. The service assigns its id. `/identity/entity-alias/id/{id}`.
 *
 * Security: whoever may modify an alias can bind it to a more privileged entity, and every client
 * that authenticates as the alias gains the entity's privileges. See the class's remarks.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { segment } from "../../core/segment";
import { createOnce } from "../../core/createOnce";
import type { Context, ResourceDefinition } from "../../core/definition";
import { PartialFailure } from "../../core/definition";
import { type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, output, type ArgsOf, type InfoOf, type OutputsOf, type PlainArgsOf, type ReportedOf, type StateOf } from "../../core/fields";
import { InvalidInputError, isSvcError, type SvcError } from "../../http";
import { dataOf } from "../envelope";
import { fetchData, listNames, namesFunction, readDecoded, type NameList } from "../pathObject";
import { createdId, matchingIds } from "../createdId";
import type { ConnectionArgs } from "../../core/connection";
import { IDENTITY_ROUTES } from "./routes";

const stringMap = (raw: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (raw && typeof raw === "object" && !Array.isArray(raw)) {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) out[k] = String(v ?? "");
  }
  return out;
};

const required = (what: string) => () => z.string({ error: "must be a string" }).min(1, `must not be empty: it is ${what}`);

export const entityAliasFields = {
  /**
   * The client identifier in the authentication source: a username, or a role identifier for
   * role-based sources. One alias per name on a mount.
   */
  name: field(required("the client identifier in the authentication source (a username or a role id)")),
  /**
   * Id of the identity entity the alias belongs to. Whoever may change this can bind the alias to a
   * more privileged entity: restrict write access to identity endpoints (see the security note on
   * EntityAlias).
   */
  canonicalId: field(required("the id of the entity the alias belongs to"), { outside: "entities" }),
  /** Accessor of the authentication mount the name comes from (e.g. `auth_userpass_1234abcd`). */
  mountAccessor: field(required("the accessor of the authentication mount (auth_<type>_...)"), { outside: "authMounts" }),
  /** Your own metadata for the alias. Removing it (or giving `{}`) clears it on the service. */
  customMetadata: field(() => z.record(z.string().min(1, "metadata keys must not be empty"), z.string({ error: "must be a string" }),
    { error: "must be a map of string to string" }), {
    optional: true,
    absent: {},
    // The service reports "none" as `{}`: kept in state only when the program gave the property,
    // so neither an omitted nor an empty map is a perpetual diff.
    decode: (v: unknown, prior: Record<string, string> | undefined) => {
      const m = stringMap(v);
      return Object.keys(m).length > 0 || prior !== undefined ? m : undefined;
    },
  }),
  /**
   * Id of an existing alias to take over instead of creating one (docs/adopting.md):
   * the create reads it, fails when it does not exist, writes it only when something differs from
   * the program, and keeps its id. Only the create reads it; an alias another resource of the
   * stack holds is refused.
   */
  adoptId: field(segment, { local: true }),
  /** Path of the authentication mount (e.g. `auth/userpass/`). */
  mountPath: output<string>({ outside: { type: "authMounts", member: "path" } }),
  /** Type of the authentication mount (e.g. `userpass`). */
  mountType: output<string>({ outside: { type: "authMounts", member: "type" } }),
  /** Metadata set by the authentication method at login (not by you). */
  metadata: output<Record<string, string>>({ decode: (v: unknown) => stringMap(v) }),
  /** True when the alias belongs to a local (not replicated) mount. */
  local: output<boolean>({ decode: (v: unknown) => v === true }),
  /** When the service created the alias (RFC 3339, as the service reports it). */
  creationTime: output<string>(),
  /** When the alias last changed on the service (RFC 3339). */
  lastUpdateTime: output<string>(),
};

const entityAliasSet = fieldSet(entityAliasFields);

// The id is the resource's own (CustomResource.id), not a field of its state: it has a record of
// its own, for the function that reads an alias by id and for the result that reports it.
const aliasRefFields = {
  /** Alias id (a UUID the service assigns). */
  id: field(segment),
};

export type EntityAliasState = StateOf<typeof entityAliasFields>;

/** An alias as the service reports it, with the resource's property names; no custom metadata is `{}`. */
export type EntityAliasInfo = InfoOf<typeof aliasRefFields> & ReportedOf<typeof entityAliasFields>;

export function aliasInfo(id: string, d: Record<string, unknown>): EntityAliasInfo {
  return { id: String(d.id ?? id), ...entityAliasSet.decode(d, { customMetadata: {} }) } as EntityAliasInfo;
}

/**
 * Server data → state. No custom metadata is `{}` on the service: it is left out of state unless the
 * program gave the property (`prior`), so neither an omitted nor an empty map is a perpetual diff.
 */
export function aliasState(_id: string, d: Record<string, unknown>, prior: Partial<EntityAliasState>): EntityAliasState {
  return entityAliasSet.decode(d, prior) as EntityAliasState;
}

/**
 * The alias a lost create made: one that was not there before the attempt (`before`), with the
 * same name and mount accessor (the service allows one alias per name on a mount). An alias someone
 * else made earlier is never taken over.
 */
function findCreated(ctx: Context, inputs: EntityAliasState, before: Set<string>, owned: (id: string) => boolean): Promise<string | undefined> {
  const metadata = JSON.stringify(Object.entries(inputs.customMetadata ?? {}).sort());
  return createdId(ctx, IDENTITY_ROUTES.entityAlias, before, owned, (data) =>
    data.name === inputs.name && data.mount_accessor === inputs.mountAccessor && data.canonical_id === inputs.canonicalId &&
    JSON.stringify(Object.entries((data.custom_metadata ?? {}) as Record<string, unknown>).sort()) === metadata);
}

/** The alias with this name on this mount, which the service lets exist once (every alias is read: used only to recover). */
const sameName = (ctx: Context, inputs: EntityAliasState) =>
  matchingIds(ctx, IDENTITY_ROUTES.entityAlias, (d) => d.name === inputs.name && d.mount_accessor === inputs.mountAccessor);

/**
 * The service's refusal of a second alias of one name on a mount, said with the alias that holds it
 * and how to go on: it may be what a cancelled `pulumi up` made, which nothing recorded before
 * tells from an older one (docs/behaviour.md, "When a deploy is cancelled").
 */
async function refusedTwin(ctx: Context, inputs: EntityAliasState, e: unknown): Promise<never> {
  if (!isSvcError(e, "invalid_input")) throw e;
  const there = await sameName(ctx, inputs).catch(() => []);
  if (there.length === 0) throw e;
  const err = e as SvcError;
  throw new InvalidInputError({ service: err.service, method: err.method, path: err.path, status: err.status,
    messages: [...err.messages, `alias ${there.join(", ")} holds the name: set adoptId: "${there[0]}" to take it over ` +
      "(if a pulumi up that was stopped made it, it is the one it made); nothing was created"] });
}

export const entityAliasDefinition: ResourceDefinition<EntityAliasState, EntityAliasState> = {
  kind: "secrets:IdentityEntityAlias",
  routes: IDENTITY_ROUTES.entityAlias,
  discover: { list: IDENTITY_ROUTES.entityAlias.list },
  ...entityAliasSet,
  leftovers: { find: sameName, serviceRefuses: true, costly: true, otherwise: 'to take over one made another way, set adoptId: "<its id>"' },
  async create(ctx, inputs) {
    const client = ctx.client("secrets");
    const before = new Set(await listNames(ctx, IDENTITY_ROUTES.entityAlias.list, {}));
    const id = await createOnce({
      // Creates a server-assigned id: never repeated blindly (createOnce looks first).
      scope: `entity-aliases:${client.baseUrl}`,
      attempt: async () => String(dataOf<{ id?: unknown }>((await client.request({ route: IDENTITY_ROUTES.entityAlias.create, body: entityAliasSet.body(inputs) })).body).id),
      find: (owned) => findCreated(ctx, inputs, before, owned),
      idOf: (created) => created,
      log: (m) => ctx.log(`entity alias ${inputs.name}: ${m}`),
    }).catch((e: unknown) => refusedTwin(ctx, inputs, e));
    try {
      const data = await fetchData(ctx, IDENTITY_ROUTES.entityAlias.read, { id });
      if (!data) throw new Error(`entity alias ${id} was created but reads back as missing`);
      return { id, outs: aliasState(id, data, inputs) };
    } catch (e) {
      throw new PartialFailure(id, inputs, e as Error);
    }
  },
  read: (ctx, id, props) => readDecoded(ctx, IDENTITY_ROUTES.entityAlias.read, { id }, (data) => aliasState(id, data, props)),
  async update(ctx, id, _olds, news) {
    // Writing the same fields twice has the same result: safe to repeat.
    await ctx.client("secrets").request({ route: IDENTITY_ROUTES.entityAlias.update, params: { id }, body: entityAliasSet.body(news), retry: "safe" });
    const data = await fetchData(ctx, IDENTITY_ROUTES.entityAlias.read, { id });
    if (!data) throw new Error(`entity alias ${id} was updated but reads back as missing`);
    return aliasState(id, data, news);
  },
  async delete(ctx, id) {
    await ctx.client("secrets").request({ route: IDENTITY_ROUTES.entityAlias.delete, params: { id } });
  },
};

export type EntityAliasArgs = ArgsOf<typeof entityAliasFields> & ConnectionArgs<"secrets">;

/**
 * An identity entity alias: `/identity/entity-alias/id/{id}`, the id assigned by the service. A
 * unique alias per entity is recommended: every client that authenticates as the alias gains the
 * privileges of its entity.
 *
 * @remarks
 * Every argument updates in place (same id). A create whose response is lost is not blindly
 * repeated: the provider lists the aliases and uses a new one (not there before the attempt) with
 * the same name and mount accessor.
 *
 * > **Security: aliases can escalate privileges.** Whoever may modify an entity can grant it
 * > privileges through policies; whoever may modify an alias can bind it to a more privileged
 * > entity; and every client that authenticates as an alias gains all the privileges of its entity.
 * > Give each entity its own alias (do not bind several entities' logins to one alias), treat a
 * > change of `canonicalId` in a preview as a privilege change that needs review, and restrict the
 * > token this stack uses: any non-read-only access to identity endpoints allows privilege
 * > escalation.
 *
 * @example
 * ```ts
 * const alias = new svc.secrets.identity.EntityAlias("alice", {
 *   name: "alice", canonicalId: entityId, mountAccessor: "auth_userpass_6a1b2c3d",
 * });
 * ```
 */
export interface EntityAlias extends OutputsOf<typeof entityAliasFields> {}
export class EntityAlias extends SvcResource(entityAliasDefinition) { constructor(name: string, args: EntityAliasArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

const getFn: FunctionDefinition<PlainArgsOf<typeof aliasRefFields>, EntityAliasInfo> = { name: "getEntityAlias", fields: aliasRefFields, sideEffects: false, service: "secrets",
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: IDENTITY_ROUTES.entityAlias.read, params: { id: args.id } });
    return aliasInfo(args.id, dataOf(res.body));
  },
};

const listFn = namesFunction<Record<string, never>>({ name: "listEntityAliases", fields: {}, service: "secrets" }, IDENTITY_ROUTES.entityAlias.list);

/** Reads an entity alias by id: the whole alias (`customMetadata` is `{}` when there is none). */
export const getEntityAlias = forms(getFn).promise;

/** Output form of {@link getEntityAlias}. */
export const getEntityAliasOutput = forms(getFn).output;

/** Ids of every entity alias (empty when there are none). */
export const listEntityAliases: (opts?: SvcInvokeOptions<"secrets">) => Promise<NameList> = (opts) => forms(listFn).promise({}, opts);

/** Output form of {@link listEntityAliases}. */
export const listEntityAliasesOutput: (opts?: SvcInvokeOutputOptions<"secrets">) => pulumi.Output<NameList> = (opts) => forms(listFn).output({}, opts);
