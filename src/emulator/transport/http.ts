import type { IncomingHttpHeaders } from "node:http";

/** What a handler produces; the server writes it, or replaces it when an "after" fault applies. */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** A fully read request, as handlers see it. `path` is relative to the service prefix. */
export interface Incoming {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export function jsonReply(status: number, value: unknown, contentType = "application/json"): Reply {
  return { status, headers: { "content-type": contentType }, body: JSON.stringify(value) };
}

export function emptyReply(status = 204): Reply {
  return { status };
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/** An empty body reads as `undefined` so each service decides whether that is allowed. */
export function parseJson(body: Buffer): Parsed {
  if (body.length === 0) return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
