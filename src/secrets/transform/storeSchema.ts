import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { ResourceDefinition } from "../../core/definition";
import { SvcResource } from "../../core/resource";
import { mount, name } from "../fields";
import { fetchData, pathOf } from "../pathObject";
import { DEFAULT_TRANSFORM_MOUNT } from "./fields";
import { STORE_ROUTES } from "./store";
import type { ConnectionArgs } from "../../core/connection";

export interface StoreSchemaState {
  store: string;
  mount: string;
  transformationType: "tokenization";
  username: string;
  password: string;
  triggers?: unknown;
  [key: string]: unknown;
}

let schema: z.ZodType | undefined;

const params = (p: StoreSchemaState) => ({ mount: p.mount, name: p.store });

async function run(ctx: Parameters<ResourceDefinition["create"]>[0], p: StoreSchemaState): Promise<void> {
  // Creating tables is idempotent on the service, so a lost response may be repeated.
  await ctx.client("secrets").request({
    route: STORE_ROUTES.schema, params: params(p), retry: "safe",
    body: { transformation_type: p.transformationType, username: p.username, password: p.password },
  });
}

export const storeSchemaDefinition: ResourceDefinition<StoreSchemaState, StoreSchemaState> = {
  kind: "secrets:TransformStoreSchema",
  schema: () => (schema ??= z.object({
    // A path segment; the built-in store (builtin/internal) has no SQL tables to create.
    store: z.string({ error: "must be a string" }).refine((n) => !n.startsWith("builtin/"), "the built-in stores have no schema to create: name a SQL Store").pipe(name()),
    mount: mount(),
    transformationType: z.literal("tokenization", { error: "must be tokenization" }),
    username: z.string().min(1, "must not be empty"),
    password: z.string().min(1, "must not be empty"),
    triggers: z.unknown().optional(),
  })),
  defaults: { mount: DEFAULT_TRANSFORM_MOUNT, transformationType: "tokenization" },
  immutable: ["store", "mount"],
  // The service keeps none of these: they are the inputs of the last run.
  writeOnly: ["transformationType", "username", "password", "triggers"],
  secrets: ["password"],
  outputs: [],
  async create(ctx, inputs) {
    await run(ctx, inputs);
    return { id: `${pathOf(STORE_ROUTES.schema, params(inputs))}`, outs: inputs };
  },
  async read(ctx, _id, props) {
    // The schema lives as long as its store.
    return (await fetchData(ctx, STORE_ROUTES.read, params(props))) ? props : undefined;
  },
  async update(ctx, _id, _olds, news) {
    await run(ctx, news);
    return news;
  },
  // The tables hold the tokens: deleting this resource leaves them in the database.
  async delete() {},
};

export interface StoreSchemaArgs extends ConnectionArgs<"secrets"> {
  /** Name of the Store whose tables are created. Changing it runs against the other store (a replacement). */
  store: pulumi.Input<string>;
  /** Mount path of the transform engine. Default `transform`. */
  mount?: pulumi.Input<string>;
  /** Transformation type the tables are for: `tokenization` (the default and only one). */
  transformationType?: pulumi.Input<"tokenization">;
  /** Database user with schema-change rights, used only for this call and never kept by the service. */
  username: pulumi.Input<string>;
  /** Password of `username`: secret; changing it runs the schema call again. */
  password: pulumi.Input<string>;
  /**
   * Any value; when it changes the schema call runs again. Pass the store's `connectionString` (or
   * anything that changes with the database) so a new database gets its tables.
   */
  triggers?: pulumi.Input<unknown>;
}

/**
 * Creates or completes the tables of a SQL Store (`POST /{mount}/stores/{name}/schema`) with
 * credentials used only for that call. Runs again when its arguments change; destroying it keeps
 * the tables (they hold the tokens).
 *
 * @example
 * ```ts
 * new svc.secrets.transform.StoreSchema("tokens-schema", {
 *   store: store.name, username: "dbadmin", password: cfg.requireSecret("dbAdminPassword"), triggers: [store.connectionString],
 * });
 * ```
 */
export class StoreSchema extends SvcResource {
  /** Name of the store. */
  declare readonly store: pulumi.Output<string>;
  /** Mount path of the transform engine. */
  declare readonly mount: pulumi.Output<string>;
  /** `tokenization`. */
  declare readonly transformationType: pulumi.Output<"tokenization">;
  /** The schema-change user of the last run. */
  declare readonly username: pulumi.Output<string>;
  /** Its password (secret). */
  declare readonly password: pulumi.Output<string>;
  /** The triggers of the last run. */
  declare readonly triggers: pulumi.Output<unknown>;

  constructor(name: string, args: StoreSchemaArgs, opts?: pulumi.CustomResourceOptions) {
    super(storeSchemaDefinition, name, args, opts);
  }
}
