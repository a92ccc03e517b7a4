import { parseJson, type Incoming, type Reply } from "../transport/http";
import type { Handler } from "../transport/router";
import { dict, isRecord } from "../util";
import { dataReply, secretsError } from "./envelope";

/**
 * Readers for write bodies of the secrets service. They throw `BadInput`, and `guarded` turns that
 * into 400 `{"errors": [...]}`, so a handler reads top to bottom without an `if` after every field.
 * `null` counts as absent, as the real-world equivalent treats it.
 */
export class BadInput extends Error {
  constructor(readonly messages: string[]) {
    super(messages.join("; "));
  }
}

export function bad(...messages: string[]): never {
  throw new BadInput(messages);
}

export function guarded<C>(handler: Handler<C>): Handler<C> {
  return async (ctx, req) => {
    try {
      return await handler(ctx, req);
    } catch (err) {
      if (err instanceof BadInput) return secretsError(400, ...err.messages);
      throw err;
    }
  };
}

export type Body = Record<string, unknown>;

/** The JSON object body; an empty body is `{}`, with the same messages as `readBody`. */
export function body(req: Incoming): Body {
  const parsed = parseJson(req.body);
  if (!parsed.ok) bad(`failed to parse JSON input: ${parsed.error}`);
  if (parsed.value === undefined) return {};
  if (!isRecord(parsed.value)) bad("request body must be a JSON object");
  return parsed.value;
}

const present = (b: Body, key: string) => b[key] !== undefined && b[key] !== null;

export function str(b: Body, key: string): string | undefined {
  if (!present(b, key)) return undefined;
  if (typeof b[key] !== "string") bad(`${key} must be a string`);
  return b[key] as string;
}

export function requiredStr(b: Body, key: string): string {
  const value = str(b, key);
  if (value === undefined || value === "") bad(`missing ${key}`);
  return value;
}

/** JSON booleans, or "true"/"false" as the real-world framework also parses them. */
export function bool(b: Body, key: string): boolean | undefined {
  if (!present(b, key)) return undefined;
  const value = b[key];
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  return bad(`${key} must be a boolean`);
}

/** A non-negative integer, as a JSON number or a string of digits. */
export function count(b: Body, key: string): number | undefined {
  if (!present(b, key)) return undefined;
  const value = b[key];
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) bad(`${key} must be a non-negative integer`);
  return n as number;
}

/**
 * A list of strings. With `comma`, a comma-separated string is accepted too (the real-world
 * framework's comma slices); without it, so `args` can hold commas.
 */
export function strList(b: Body, key: string, comma = false): string[] | undefined {
  if (!present(b, key)) return undefined;
  const value = b[key];
  if (comma && typeof value === "string") return value.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (!Array.isArray(value)) bad(`${key} must be a list of strings`);
  value.forEach((item, i) => typeof item === "string" || bad(`${key}[${i}] must be a string`));
  return value as string[];
}

/** A map of string to string; with `pairs`, also a list of `name=value` strings. */
export function strMap(b: Body, key: string, pairs = false): Record<string, string> | undefined {
  if (!present(b, key)) return undefined;
  const value = b[key];
  if (pairs && Array.isArray(value)) {
    const out = dict<string>();
    value.forEach((item, i) => {
      const eq = typeof item === "string" ? item.indexOf("=") : -1;
      if (eq < 1) bad(`${key}[${i}] must be a "name=value" string`);
      out[(item as string).slice(0, eq)] = (item as string).slice(eq + 1);
    });
    return out;
  }
  if (!isRecord(value)) bad(`${key} must be a map of string to string`);
  for (const [k, v] of Object.entries(value)) if (typeof v !== "string") bad(`${key}.${k} must be a string`);
  return Object.assign(dict<string>(), value as Record<string, string>);
}

/** The reply for an object that does not exist, as reads of the existing engines answer. */
export const notFound = (): Reply => secretsError(404);

/** A GET of one object: what `find` finds, as `show` presents it, or 404 when there is none. */
export function readOne<C, T>(find: (ctx: C, req: Incoming) => T | undefined, show: (found: T, ctx: C) => unknown): Handler<C> {
  return (ctx, req) => {
    const found = find(ctx, req);
    return found ? dataReply(show(found, ctx)) : notFound();
  };
}
