import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { CROSS_FIELD, crossField } from "../../core/crossField";
import type { ResourceDefinition } from "../../core/definition";
import { SvcResource } from "../../core/resource";
import { isUnknown } from "../../core/unknown";
import { adopt, mount } from "../fields";
import { pathObject } from "../pathObject";
import { keepForm } from "../duration";
import { DEFAULT_TRANSFORM_MOUNT, duration, inUse, sorted, transformName, usersOf } from "./fields";
import { TRANSFORMATION_ROUTES } from "./transformations";
import type { ConnectionArgs } from "../../core/connection";

export const STORE_DRIVERS = ["postgres", "mysql"] as const;
export type StoreDriver = (typeof STORE_DRIVERS)[number];

export const STORE_ROUTES = {
  write: "POST /{mount}/stores/{name}",
  read: "GET /{mount}/stores/{name}",
  delete: "DELETE /{mount}/stores/{name}",
  list: "LIST /{mount}/stores",
  schema: "POST /{mount}/stores/{name}/schema",
} as const;

export interface StoreState {
  name: string;
  mount: string;
  type: "sql";
  driver: StoreDriver;
  supportedTransformations: string[];
  connectionString: string;
  username: string;
  password: string;
  schema: string;
  maxOpenConnections: number;
  maxIdleConnections: number;
  maxConnectionLifetime: string | number;
  adopt?: boolean;
  [key: string]: unknown;
}

const count = (min: number) => z.number({ error: "must be a number" }).int("must be a whole number").min(min, `must be ${min} or more`);

let schema: z.ZodType | undefined;
function buildSchema(): z.ZodType {
  return z.object({
    name: transformName(),
    mount: mount(),
    type: z.literal("sql", { error: 'must be "sql" (the only store type)' }),
    driver: z.enum(STORE_DRIVERS, { error: `must be one of ${STORE_DRIVERS.join(", ")}` }),
    supportedTransformations: z.array(z.literal("tokenization", { error: "only tokenization can use a store" })),
    connectionString: z.string().min(1, "must not be empty")
      .refine((cs) => cs.includes("{{username}}") && cs.includes("{{password}}"), "must contain the {{username}} and {{password}} slots")
      .refine((cs) => (cs.match(/\{\{[^}]*\}\}/g) ?? []).every((s) => s === "{{username}}" || s === "{{password}}"), "has a slot other than {{username}} and {{password}}"),
    username: z.string().min(1, "must not be empty"),
    password: z.string().min(1, "must not be empty"),
    schema: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, "must be a plain identifier (letters, digits, underscore)"),
    maxOpenConnections: count(1),
    maxIdleConnections: count(0),
    maxConnectionLifetime: duration(),
    adopt: adopt(),
  }).superRefine(crossField((p, ctx) => {
    if (isUnknown(p.driver) || isUnknown(p.connectionString)) return;
    if (p.driver === "mysql" && !/[?&]parseTime=true(&|$)/.test(p.connectionString)) {
      ctx.addIssue({ code: "custom", path: ["connectionString"], message: "a mysql connection string must carry the parseTime=true option" });
    }
    if (p.driver === "postgres" && !/^postgres(ql)?:\/\//.test(p.connectionString)) {
      ctx.addIssue({ code: "custom", path: ["connectionString"], message: "a postgres connection string must be a URL starting with postgresql://" });
    }
  }), CROSS_FIELD);
}

const base = pathObject<StoreState, StoreState>({
  kind: "secrets:TransformStore",
  schema: () => (schema ??= buildSchema()),
  defaults: {
    mount: DEFAULT_TRANSFORM_MOUNT, type: "sql", supportedTransformations: ["tokenization"], schema: "public",
    maxOpenConnections: 4, maxIdleConnections: 4, maxConnectionLifetime: 0,
  },
  sets: ["supportedTransformations"],
  immutable: ["name", "mount", "driver"],
  identity: ["name", "mount"],
  // Reads never return the credentials: the user's values stay in state, the password as a secret.
  writeOnly: ["username", "password"],
  secrets: ["password"],
  local: ["adopt"],
  outputs: [],
  routes: STORE_ROUTES,
  params: (p) => ({ mount: p.mount, name: p.name }),
  body: (p) => ({
    type: p.type, driver: p.driver, supported_transformations: p.supportedTransformations, connection_string: p.connectionString,
    username: p.username, password: p.password, schema: p.schema, max_open_connections: p.maxOpenConnections,
    max_idle_connections: p.maxIdleConnections, max_connection_lifetime: p.maxConnectionLifetime,
  }),
  fromData: (d, p) => ({
    name: p.name,
    mount: p.mount,
    type: String(d.type ?? p.type) as "sql",
    // Fields a server may leave out of a read keep the known value.
    driver: String(d.driver ?? p.driver) as StoreDriver,
    supportedTransformations: sorted(d.supported_transformations ?? p.supportedTransformations),
    connectionString: String(d.connection_string ?? p.connectionString),
    username: p.username,
    password: p.password,
    schema: String(d.schema ?? p.schema ?? "public"),
    maxOpenConnections: Number(d.max_open_connections ?? p.maxOpenConnections ?? 4),
    maxIdleConnections: Number(d.max_idle_connections ?? p.maxIdleConnections ?? 4),
    maxConnectionLifetime: d.max_connection_lifetime === undefined ? p.maxConnectionLifetime
      : keepForm(p.maxConnectionLifetime, d.max_connection_lifetime) ?? 0,
  }),
});

export const storeDefinition: ResourceDefinition<StoreState, StoreState> = {
  ...base,
  async delete(ctx, id, props) {
    const users = await usersOf(ctx, props.mount, TRANSFORMATION_ROUTES.list, TRANSFORMATION_ROUTES.read,
      (d) => Array.isArray(d.stores) && d.stores.includes(props.name));
    if (users.length > 0) {
      throw inUse("DELETE", STORE_ROUTES.delete, { mount: props.mount, name: props.name }, users.map((t) =>
        `store ${props.name} is used by tokenization transformation ${t}: delete that TokenizationTransformation first (its stores cannot change in place)`));
    }
    await base.delete(ctx, id, props);
  },
};

export interface StoreArgs extends ConnectionArgs<"secrets"> {
  /** Name of the store; transformations list it in `stores`. Changing it replaces the store. */
  name: pulumi.Input<string>;
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the store. */
  mount?: pulumi.Input<string>;
  /** Store type: `sql`, the only one and the default. */
  type?: pulumi.Input<"sql">;
  /** `postgres` or `mysql`. Changing it replaces the store. */
  driver: pulumi.Input<StoreDriver>;
  /** Transformation types that may use the store: `tokenization` (the default and only one). */
  supportedTransformations?: pulumi.Input<pulumi.Input<"tokenization">[]>;
  /**
   * Connection string with `{{username}}` and `{{password}}` slots the service fills in, e.g.
   * `postgresql://{{username}}:{{password}}@db:5432/tokens`; a mysql one must carry `parseTime=true`.
   */
  connectionString: pulumi.Input<string>;
  /** Database user the service connects as; it needs only SELECT, INSERT and UPDATE. Never read back. */
  username: pulumi.Input<string>;
  /** Password of `username`: secret, write-only (never read back; kept in state as a secret). */
  password: pulumi.Input<string>;
  /** Database schema of the tables. Default `public`. */
  schema?: pulumi.Input<string>;
  /** Most open connections. Default 4. */
  maxOpenConnections?: pulumi.Input<number>;
  /** Most idle connections kept. Default 4. */
  maxIdleConnections?: pulumi.Input<number>;
  /** Longest life of a connection, as a duration or seconds. Default 0: no limit. */
  maxConnectionLifetime?: pulumi.Input<string | number>;
  /** Take over a store that already exists at the path instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

/**
 * A SQL tokenization store (`/{mount}/stores/{name}`); create its tables with a StoreSchema.
 *
 * @example
 * ```ts
 * const store = new svc.secrets.transform.Store("tokens", {
 *   name: "tokens", driver: "postgres", connectionString: "postgresql://{{username}}:{{password}}@db:5432/tokens",
 *   username: "tokenizer", password: cfg.requireSecret("tokenizerPassword"),
 * });
 * ```
 */
export class Store extends SvcResource {
  /** Name of the store. */
  declare readonly name: pulumi.Output<string>;
  /** Mount path of the transform engine. */
  declare readonly mount: pulumi.Output<string>;
  /** `sql`. */
  declare readonly type: pulumi.Output<"sql">;
  /** `postgres` or `mysql`. */
  declare readonly driver: pulumi.Output<StoreDriver>;
  /** Transformation types that may use it. */
  declare readonly supportedTransformations: pulumi.Output<string[]>;
  /** The connection string with its slots. */
  declare readonly connectionString: pulumi.Output<string>;
  /** The database user (as given; never read back). */
  declare readonly username: pulumi.Output<string>;
  /** The password (secret). */
  declare readonly password: pulumi.Output<string>;
  /** Database schema of the tables. */
  declare readonly schema: pulumi.Output<string>;
  /** Most open connections. */
  declare readonly maxOpenConnections: pulumi.Output<number>;
  /** Most idle connections. */
  declare readonly maxIdleConnections: pulumi.Output<number>;
  /** Longest connection life. */
  declare readonly maxConnectionLifetime: pulumi.Output<string | number>;

  constructor(name: string, args: StoreArgs, opts?: pulumi.CustomResourceOptions) {
    super(storeDefinition, name, args, opts);
  }
}
