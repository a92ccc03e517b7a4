import { emptyReply, parseJson, type Incoming, type Reply } from "../transport/http";
import type { Route } from "../transport/router";
import { dict, isRecord } from "../util";
import type { Mount } from "./state";
import type { SecretsContext } from "./context";
import { dataReply, listReply, secretsError } from "./envelope";

/**
 * One named object kind of an engine (template, alphabet, ...). An object file declares
 * how to read a write body and how to present a stored object; the routes are shared.
 */
export interface ObjectKind<T> {
  /** Path segment and storage key, e.g. "template". */
  path: string;
  /** A stored object or a message naming the offending field. */
  read(ctx: SecretsContext, body: Record<string, unknown>, name: string): T | string;
  present(object: T): Record<string, unknown>;
}

export function bag<T>(ctx: SecretsContext, kind: string): Record<string, T> {
  ctx.mount.objects[kind] ??= dict();
  return ctx.mount.objects[kind] as Record<string, T>;
}

/** Reads a JSON object body; an empty body counts as `{}` like the real-world equivalent. */
export function readBody(req: Incoming): { ok: true; body: Record<string, unknown> } | { ok: false; reply: Reply } {
  const parsed = parseJson(req.body);
  if (!parsed.ok) return { ok: false, reply: secretsError(400, `failed to parse JSON input: ${parsed.error}`) };
  if (parsed.value === undefined) return { ok: true, body: {} };
  if (!isRecord(parsed.value)) return { ok: false, reply: secretsError(400, "request body must be a JSON object") };
  return { ok: true, body: parsed.value };
}

export function crudRoutes<T>(kind: ObjectKind<T>): Route<SecretsContext>[] {
  const write = (ctx: SecretsContext, req: Incoming): Reply => {
    const body = readBody(req);
    if (!body.ok) return body.reply;
    const result = kind.read(ctx, body.body, req.params.name);
    if (typeof result === "string") return secretsError(400, result);
    bag<T>(ctx, kind.path)[req.params.name] = result;
    return emptyReply(204);
  };
  return [
    { method: "POST", path: `${kind.path}/:name`, handler: write },
    {
      method: "GET",
      path: `${kind.path}/:name`,
      handler: (ctx, req) => {
        const object = bag<T>(ctx, kind.path)[req.params.name];
        return object === undefined ? secretsError(404) : dataReply(kind.present(object));
      },
    },
    {
      method: "DELETE",
      path: `${kind.path}/:name`,
      handler: (ctx, req) => {
        delete bag<T>(ctx, kind.path)[req.params.name];
        return emptyReply(204);
      },
    },
    { method: "LIST", path: kind.path, handler: (ctx) => listReply(Object.keys(bag<T>(ctx, kind.path))) },
  ];
}

/**
 * A bag of one object kind on a mount, keyed by user-chosen names. It has no prototype, so a name
 * such as `__proto__` or `toString` is stored and found like any other; a bag read back from a
 * state file (a plain object) is moved into a prototype-free one on first use.
 */
export function store<T>(mount: Mount, kind: string): Record<string, T> {
  const current = mount.objects[kind];
  if (current && Object.getPrototypeOf(current) === null) return current as Record<string, T>;
  const fresh: Record<string, T> = Object.create(null);
  if (current) for (const key of Object.keys(current)) fresh[key] = current[key] as T;
  mount.objects[kind] = fresh;
  return fresh;
}

/** The object stored under `name`, never one inherited from a prototype. */
export function own<T>(bag: Record<string, T>, name: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(bag, name) ? bag[name] : undefined;
}
