import { emptyReply, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import { dataReply, listReply, secretsError } from "../envelope";
import { parseDuration } from "../duration";
import type { SecretsContext } from "../context";
import { bad, body as readBody, guarded, notFound } from "../fields";
import type { KeyRing } from "./tokens";

/**
 * What the transform engine keeps on its mount: one table per object kind (alphabets, templates,
 * roles, transformations, stores), the shapes stored in them, and the rows every named kind shares
 * (write, read, list, delete, and built-ins readable at `<kind>/builtin/:name`).
 */

export interface Alphabet {
  alphabet: string;
}

export interface Template {
  type: "regex";
  pattern: string;
  /** "" when the template names no alphabet. */
  alphabet: string;
}

export interface Role {
  transformations: string[];
}

export type TransformationType = "fpe" | "masking" | "tokenization";

export interface Transformation {
  type: TransformationType;
  /** "" for tokenization. */
  template: string;
  tweak_source: string;
  masking_character: string;
  allowed_roles: string[];
  mapping_mode: string;
  /** Seconds; 0: tokens may never expire. */
  max_ttl: number;
  stores: string[];
  /** FPE key (base64, 32 bytes) and the tweak of `internal` tweak source. */
  fpe_key?: string;
  internal_tweak?: string;
  /** Tokenization keys when the tokens live in the engine's own storage. */
  ring?: KeyRing;
}

export interface Store {
  type: string;
  driver: "postgres" | "mysql" | "internal";
  supported_transformations: string[];
  connection_string: string;
  schema: string;
  max_open_connections: number;
  max_idle_connections: number;
  /** Seconds; 0: no limit. */
  max_connection_lifetime: number;
}

/**
 * The engine's tables, one per kind, keyed by user-chosen names. They have no prototype,
 * so names such as `__proto__` or `constructor` are ordinary names. A table read back from a state
 * file is a plain object; it is rebuilt without prototype on first use.
 */
export function table<T>(ctx: SecretsContext, kind: string, create = false): Record<string, T> {
  const objects = ctx.mount.objects;
  const current = Object.prototype.hasOwnProperty.call(objects, kind) ? objects[kind] : undefined;
  if (current && Object.getPrototypeOf(current) === null) return current as Record<string, T>;
  const fresh = Object.create(null) as Record<string, T>;
  if (current) for (const key of Object.keys(current)) fresh[key] = current[key] as T;
  // A read of a kind never written leaves the state as it was (nothing new to persist).
  if (current || create) objects[kind] = fresh;
  return fresh;
}

export const has = (t: Record<string, unknown>, name: string) => Object.prototype.hasOwnProperty.call(t, name);

export const roles = (ctx: SecretsContext) => table<Role>(ctx, "role");
export const transformations = (ctx: SecretsContext) => table<Transformation>(ctx, "transformation");

/** `*` any run of characters, `?` one character; everything else literal. */
export function globMatch(pattern: string, name: string): boolean {
  const source = [...pattern].map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("");
  return new RegExp(`^${source}$`, "s").test(name);
}

/** Seconds from a duration as every engine reads one (`90s`, `15m`, `24h`, `1h30m`, integer seconds); blank is 0. */
export function durationSeconds(value: unknown, field: string): number {
  if (value === undefined || value === null || value === "") return 0;
  const s = parseDuration(value);
  if (s === undefined) return bad(`${field} must be a non-negative whole number of seconds or a duration such as "90s", "15m", "24h" or "1h30m", not ${JSON.stringify(value)}`);
  return s;
}

/** One named kind of the engine with built-ins readable at `<path>/builtin/:name`. */
export interface NamedKind<T> {
  path: string;
  /** Reads a write body (throws BadInput); `previous` is the stored object on update. */
  write(ctx: SecretsContext, body: Record<string, unknown>, name: string, previous: T | undefined): T | Promise<T>;
  present(object: T): Record<string, unknown>;
  builtins?: Record<string, T>;
  /** Messages naming what still uses the object and how to free it; empty when it can go. */
  inUse?(ctx: SecretsContext, name: string): string[];
  /** Called after a delete (e.g. to drop token records). */
  removed?(ctx: SecretsContext, name: string, object: T): void;
}

export function lookup<T>(ctx: SecretsContext, kind: Pick<NamedKind<T>, "path" | "builtins">, name: string): T | undefined {
  if (kind.builtins && name.startsWith("builtin/")) return kind.builtins[name];
  const t = table<T>(ctx, kind.path);
  return has(t, name) ? t[name] : undefined;
}

export function namedRoutes<T>(kind: NamedKind<T>, writePath = kind.path): Route<SecretsContext>[] {
  const builtinRefused = () => secretsError(400, `names starting with "builtin/" are reserved: built-in ${kind.path} objects cannot be written or deleted`);
  const rows: Route<SecretsContext>[] = [
    {
      method: "POST",
      path: `${writePath}/:name`,
      handler: guarded((ctx: SecretsContext, req: Incoming): Reply | Promise<Reply> => {
        const name = req.params.name;
        const t = table<T>(ctx, kind.path);
        const store = (object: T) => {
          table<T>(ctx, kind.path, true)[name] = object;
          return emptyReply(204);
        };
        const object = kind.write(ctx, readBody(req), name, has(t, name) ? t[name] : undefined);
        // Synchronous writes land in the same tick, so a pipelined request after them sees them.
        return object instanceof Promise ? object.then(store) : store(object);
      }),
    },
    {
      method: "GET",
      path: `${kind.path}/:name`,
      handler: (ctx, req) => {
        const object = lookup(ctx, kind, req.params.name);
        return object === undefined ? notFound() : dataReply(kind.present(object));
      },
    },
    { method: "LIST", path: kind.path, handler: (ctx) => listReply(Object.keys(table(ctx, kind.path))) },
    {
      method: "DELETE",
      path: `${kind.path}/:name`,
      handler: (ctx, req) => {
        const name = req.params.name;
        const t = table<T>(ctx, kind.path);
        if (!has(t, name)) return emptyReply(204);
        const problems = kind.inUse?.(ctx, name) ?? [];
        if (problems.length > 0) return secretsError(400, ...problems);
        const object = t[name];
        delete t[name];
        kind.removed?.(ctx, name, object);
        return emptyReply(204);
      },
    },
  ];
  if (kind.builtins) {
    rows.push(
      {
        method: "GET",
        path: `${kind.path}/builtin/:name`,
        handler: (_ctx, req) => {
          const object = kind.builtins![`builtin/${req.params.name}`];
          return object === undefined ? notFound() : dataReply(kind.present(object));
        },
      },
      { method: "POST", path: `${writePath}/builtin/:name`, handler: builtinRefused },
      { method: "DELETE", path: `${kind.path}/builtin/:name`, handler: builtinRefused },
    );
  }
  return rows;
}
