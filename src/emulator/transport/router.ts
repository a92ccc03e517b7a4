import type { Incoming, Reply } from "./http";

export type Handler<C> = (ctx: C, req: Incoming) => Reply | Promise<Reply>;

/** One row of a routes table. `path` segments starting with `:` bind one non-empty segment. */
export interface Route<C> {
  /** An HTTP method, `LIST` on the secrets service, or `*` for any. */
  method: string;
  path: string;
  handler: Handler<C>;
  /** Secrets service: only a sudo token may call it. */
  sudo?: boolean;
  /** Secrets service: needs no token at all (replication status). */
  open?: boolean;
}

export type Match<C> =
  | { kind: "found"; route: Route<C>; params: Record<string, string> }
  | { kind: "method"; allowed: string[] }
  | { kind: "none" };

interface Compiled<C> {
  route: Route<C>;
  segments: string[];
}

function split(path: string): string[] | undefined {
  let p = path.startsWith("/") ? path.slice(1) : path;
  // A single trailing slash is tolerated because LIST clients commonly send `template/`.
  if (p.endsWith("/")) p = p.slice(0, -1);
  const raw = p === "" ? [] : p.split("/");
  const out: string[] = [];
  for (const segment of raw) {
    if (segment === "") return undefined;
    try {
      const decoded = decodeURIComponent(segment);
      // An encoded slash must not smuggle a multi-segment name past the table.
      if (decoded.includes("/") || decoded === "") return undefined;
      out.push(decoded);
    } catch {
      return undefined;
    }
  }
  return out;
}

export class Router<C> {
  private readonly compiled: Compiled<C>[];

  constructor(routes: readonly Route<C>[]) {
    this.compiled = routes.map((route) => ({ route, segments: split(route.path) ?? [] }));
  }

  match(method: string, path: string): Match<C> {
    const segments = split(path);
    if (!segments) return { kind: "none" };
    const allowed: string[] = [];
    for (const { route, segments: pattern } of this.compiled) {
      const params = bind(pattern, segments);
      if (!params) continue;
      // "*" rows (the webhook sink) answer every method.
      if (route.method === method || route.method === "*") return { kind: "found", route, params };
      allowed.push(route.method);
    }
    return allowed.length > 0 ? { kind: "method", allowed } : { kind: "none" };
  }
}

function bind(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i].startsWith(":")) params[pattern[i].slice(1)] = segments[i];
    else if (pattern[i] !== segments[i]) return undefined;
  }
  return params;
}
