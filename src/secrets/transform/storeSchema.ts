import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import type { ResourceDefinition } from "../../core/definition";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, type ArgsOf, type OutputsOf, type StateOf } from "../../core/fields";
import { mount, name } from "../fields";
import { InvalidInputError } from "../../http";
import { fetchData, pathOf } from "../pathObject";
import { DEFAULT_TRANSFORM_MOUNT } from "./fields";
import type { ConnectionArgs } from "../../core/connection";
import { TRANSFORM_ROUTES } from "./routes";

export const storeSchemaFields = {
  /**
   * Name of the SQL Store whose tables are created, never a built-in store such as
   * `builtin/internal`. Changing it runs against the other store (a replacement).
   */
  store: field(() => z.string({ error: "must be a string" })
    // A path segment; the built-in store (builtin/internal) has no SQL tables to create.
    .refine((n) => !n.startsWith("builtin/"), "the built-in stores have no schema to create: name a SQL Store").pipe(name()), { immutable: true }),
  /** Mount path of the transform engine. Default `transform`. Changing it replaces this resource. */
  mount: field(mount, { immutable: true, default: DEFAULT_TRANSFORM_MOUNT }),
  // The service keeps none of the write-only fields: state holds the inputs of the last run.
  /** Transformation type the tables are for: `tokenization` (the default and only one). */
  transformationType: field(() => z.literal("tokenization", { error: "must be tokenization" }), { writeOnly: true, default: "tokenization" }),
  /**
   * Database user with schema-change rights, used only for this call and never kept by the service
   * (state keeps the one of the last run).
   */
  username: field(() => z.string().min(1, "must not be empty"), { writeOnly: true }),
  /** Password of `username`: secret (kept in state as a secret); changing it runs the schema call again. */
  password: field(() => z.string().min(1, "must not be empty"), { writeOnly: true, secret: true }),
  /**
   * The Store's connection string: pass `store.connectionString`. When the Store moves to another
   * database (updated in place) the schema call runs again, so the new database gets its tables.
   * Checked against the store on the server before each run.
   */
  connectionString: field(() => z.string({ error: "must be a string" }).min(1, "must not be empty"), { optional: true }),
  /**
   * The Store's database schema: pass `store.schema`. A change runs the schema call again, so the
   * new schema gets its tables. Checked against the store on the server (where it reads it back).
   */
  schema: field(() => z.string({ error: "must be a string" }).regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, "must be a plain identifier (letters, digits, underscore)"), { optional: true }),
  /** Any other value; when it changes the schema call runs again. */
  triggers: field(() => z.unknown(), { optional: true, writeOnly: true }),
};

/** A store schema run as the provider sees it (property names of the resource). */
export type StoreSchemaState = StateOf<typeof storeSchemaFields>;

const params = (p: StoreSchemaState) => ({ mount: p.mount, name: p.store });

/**
 * The store's settings the tables depend on, given as inputs so that a change of the Store (a new
 * database or schema, updated in place) runs the schema call again. Diff makes no request, so they
 * come from the program (`store.connectionString`, `store.schema`); before a run they are compared
 * with the store on the server, so the tables are made where the tokens will go.
 */
const STORE_SETTINGS = [["connectionString", "connection_string"], ["schema", "schema"]] as const;

async function run(ctx: Parameters<ResourceDefinition["create"]>[0], p: StoreSchemaState): Promise<void> {
  if (STORE_SETTINGS.some(([k]) => p[k] !== undefined)) {
    const store = await fetchData(ctx, TRANSFORM_ROUTES.store.read, params(p));
    const differs = STORE_SETTINGS.filter(([k, wire]) => p[k] !== undefined && store?.[wire] !== undefined && store[wire] !== p[k]);
    if (differs.length > 0) {
      throw new InvalidInputError(differs.map(([k, wire]) => ({
        path: k,
        message: `is not store ${p.store}'s ${wire} on the server; pass the Store's own output (store.${k}) so the tables are made where its tokens go`,
      })), { method: "POST", path: `/${pathOf(TRANSFORM_ROUTES.store.schema, params(p))}` });
    }
  }
  // Creating tables is idempotent on the service, so a lost response may be repeated.
  await ctx.client("secrets").request({
    route: TRANSFORM_ROUTES.store.schema, params: params(p), retry: "safe",
    body: { transformation_type: p.transformationType, username: p.username, password: p.password },
  });
}

export const storeSchemaDefinition: ResourceDefinition<StoreSchemaState, StoreSchemaState> = {
  kind: "secrets:TransformStoreSchema",
  // Written only (the service has no read of it); the store is read to tell a schema gone with its store.
  routes: { write: TRANSFORM_ROUTES.store.schema, store: TRANSFORM_ROUTES.store.read },
  path: { route: TRANSFORM_ROUTES.store.schema, inputs: { name: "store" } },
  discover: { none: "the service keeps no schema object to read: a StoreSchema only creates the tables in the store's database, so declare one where Pulumi should create them" },
  unreadable: "the service keeps no schema object to read: a StoreSchema only creates the tables in the store's database",
  risk: {
    lost: "re-creating the schema in the store's database can leave the tokens kept under the old one unreachable",
    instead: "`retainOnDelete: true`; change the store's schema only with its tokens migrated",
  },
  ...fieldSet(storeSchemaFields),
  async create(ctx, inputs) {
    await run(ctx, inputs);
    return { id: `${pathOf(TRANSFORM_ROUTES.store.schema, params(inputs))}`, outs: inputs };
  },
  async read(ctx, _id, props) {
    // The schema lives as long as its store; a store setting changed out of band shows as a diff
    // (and the next up runs the call again), where the server reads it back.
    const store = await fetchData(ctx, TRANSFORM_ROUTES.store.read, params(props));
    if (!store) return undefined;
    const out = { ...props };
    for (const [k, wire] of STORE_SETTINGS) if (props[k] !== undefined && typeof store[wire] === "string") out[k] = store[wire];
    return out;
  },
  async update(ctx, _id, _olds, news) {
    await run(ctx, news);
    return news;
  },
  // The tables hold the tokens: deleting this resource leaves them in the database.
  async delete() {},
};

export type StoreSchemaArgs = ArgsOf<typeof storeSchemaFields> & ConnectionArgs<"secrets">;

/**
 * Creates or completes the tables of a SQL Store (`POST /{mount}/stores/{name}/schema`) with
 * credentials used only for that call. Runs again when its arguments change: give it the Store's
 * `connectionString` and `schema` outputs so a store moved to another database or schema gets its
 * tables there. Destroying it keeps the tables (they hold the tokens).
 *
 * @remarks
 * Any change of an argument runs the call again. Before each run, `connectionString` and `schema`
 * are compared with the store on the server and refused, naming the field, when they are not its
 * values. Refresh drops the resource when the store is gone, and shows a store setting changed out
 * of band as a difference.
 *
 * @example
 * ```ts
 * new svc.secrets.transform.StoreSchema("tokens-schema", {
 *   store: store.name, connectionString: store.connectionString, schema: store.schema,
 *   username: "dbadmin", password: cfg.requireSecret("dbAdminPassword"),
 * });
 * ```
 */
export interface StoreSchema extends OutputsOf<typeof storeSchemaFields> {}
export class StoreSchema extends SvcResource(storeSchemaDefinition) { constructor(name: string, args: StoreSchemaArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
