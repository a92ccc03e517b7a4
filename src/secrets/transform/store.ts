import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, type ArgsOf, type OutputsOf, type StateOf } from "../../core/fields";
import { isUnknown } from "../../core/unknown";
import { adopt, mount } from "../fields";
import { pathObject } from "../pathObject";
import { keepForm } from "../duration";
import { DEFAULT_TRANSFORM_MOUNT, deletedOnlyUnused, duration, transformName } from "./fields";
import type { ConnectionArgs } from "../../core/connection";
import { TRANSFORM_ROUTES } from "./routes";

export const STORE_DRIVERS = ["postgres", "mysql"] as const;
export type StoreDriver = (typeof STORE_DRIVERS)[number];

const count = (min: number) => () => z.number({ error: "must be a number" }).int("must be a whole number").min(min, `must be ${min} or more`);

export const storeFields = {
  /** Name of the store; transformations list it in `stores`. Changing it replaces the store. */
  name: field(transformName, { identity: true }),
  /** Mount path of the transform engine. Default `transform`. Changing it replaces the store. */
  mount: field(mount, { identity: true, default: DEFAULT_TRANSFORM_MOUNT }),
  /** Store type: `sql`, the only one and the default. */
  type: field(() => z.literal("sql", { error: 'must be "sql" (the only store type)' }), { default: "sql" }),
  /** `postgres` or `mysql`. Changing it replaces the store. */
  driver: field(() => z.enum(STORE_DRIVERS, { error: `must be one of ${STORE_DRIVERS.join(", ")}` }), { immutable: true }),
  /** Transformation types that may use the store: `tokenization` (the default and only one). */
  supportedTransformations: field(() => z.array(z.literal("tokenization", { error: "only tokenization can use a store" })), {
    set: true, default: ["tokenization"] as "tokenization"[],
  }),
  /**
   * Connection string with `{{username}}` and `{{password}}` slots the service fills in (and no
   * other slot), e.g. `postgresql://{{username}}:{{password}}@db:5432/tokens`: a postgres one is a
   * `postgresql://` URL, a mysql one must carry `parseTime=true`.
   */
  connectionString: field(() => z.string().min(1, "must not be empty")
    .refine((cs) => cs.includes("{{username}}") && cs.includes("{{password}}"), "must contain the {{username}} and {{password}} slots")
    .refine((cs) => (cs.match(/\{\{[^}]*\}\}/g) ?? []).every((s) => s === "{{username}}" || s === "{{password}}"), "has a slot other than {{username}} and {{password}}")),
  /**
   * Database user the service connects as; it needs only SELECT, INSERT and UPDATE. Write-only:
   * never read back, state keeps the value given.
   */
  username: field(() => z.string().min(1, "must not be empty"), { writeOnly: true }),
  /** Password of `username`: secret, write-only (never read back; kept in state as a secret). */
  password: field(() => z.string().min(1, "must not be empty"), { writeOnly: true, secret: true }),
  /** Database schema of the tables. Default `public`. */
  schema: field(() => z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, "must be a plain identifier (letters, digits, underscore)"), { default: "public" }),
  /** Most open connections. Default 4. */
  maxOpenConnections: field(count(1), { default: 4, decode: (v: unknown) => Number(v) }),
  /** Most idle connections kept. Default 4. */
  maxIdleConnections: field(count(0), { default: 4, decode: (v: unknown) => Number(v) }),
  /**
   * Longest life of a connection, as a duration or seconds. Default 0: no limit. State keeps the
   * form given while the server holds the same number of seconds.
   */
  maxConnectionLifetime: field(duration, { default: 0, decode: (v: unknown, prior: string | number | undefined) => keepForm(prior, v) ?? 0 }),
  /** Take over a store that already exists at the path instead of failing. */
  adopt: field(adopt, { local: true }),
};

/** A store as the provider sees it (property names of the resource). */
export type StoreState = StateOf<typeof storeFields>;

const base = pathObject<StoreState, StoreState>({
  kind: "secrets:TransformStore",
  risk: {
    lost: "the transformations that use it no longer reach the tokens it holds (its database keeps them)",
    changes: {
      connectionString: "the tokens in the database it pointed at become unreachable for the transformations that use it",
      schema: "the tokens kept under the old schema become unreachable for the transformations that use it",
    },
    instead: "a new store beside the old one (another name), keeping the old one until its tokens are no longer needed",
  },
  fields: fieldSet(storeFields, {
    refine(p, ctx) {
      if (isUnknown(p.driver) || isUnknown(p.connectionString)) return;
      if (p.driver === "mysql" && !/[?&]parseTime=true(&|$)/.test(p.connectionString)) {
        ctx.addIssue({ code: "custom", path: ["connectionString"], message: "a mysql connection string must carry the parseTime=true option" });
      }
      if (p.driver === "postgres" && !/^postgres(ql)?:\/\//.test(p.connectionString)) {
        ctx.addIssue({ code: "custom", path: ["connectionString"], message: "a postgres connection string must be a URL starting with postgresql://" });
      }
    },
  }),
  routes: TRANSFORM_ROUTES.store,
});

export const storeDefinition = deletedOnlyUnused(base,
  (name, t) => `store ${name} is used by tokenization transformation ${t}: delete that TokenizationTransformation first (its stores cannot change in place)`);

export type StoreArgs = ArgsOf<typeof storeFields> & ConnectionArgs<"secrets">;

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
export interface Store extends OutputsOf<typeof storeFields> {}
export class Store extends SvcResource(storeDefinition) { constructor(name: string, args: StoreArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
