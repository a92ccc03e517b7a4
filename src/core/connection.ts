/**
 * Which server a resource or a function talks to. Without a connection, the stack config (`svc:*`)
 * and then the environment (`SVC_*`) decide, as before; a connection overrides them for one
 * resource or one call, so a program can address several servers of the same service.
 */
import * as pulumi from "@pulumi/pulumi";

export type ServiceName = "runs" | "secrets";

/**
 * A server of one service. `url` and `token` each fall back to the stack config and the environment
 * when absent (`svc:secretsUrl`/`SVC_SECRETS_URL`, `svc:secretsToken`/`SVC_SECRETS_TOKEN`, and the
 * `svc:run*`/`SVC_RUN_*` pair for the run service).
 */
export interface Connection<S extends ServiceName = ServiceName> {
  /**
   * Base URL of the server: ending in `/v1` for the secrets service, `/api/v2` for the run service.
   * A resource records it in its state; giving it another server later replaces the resource there.
   */
  url?: pulumi.Input<string>;
  /**
   * Token for that server. Kept secret in the state of each resource that uses it (a resource needs
   * it again to refresh and delete), never in the provider text, and redacted from error messages.
   */
  token?: pulumi.Input<string>;
  /**
   * Requests in flight to this server at once from one process (the provider host, or the program
   * for its functions); default `svc:maxConcurrentRequests` / `SVC_MAX_CONCURRENT_REQUESTS`, else 16.
   * Counted with every other request to the same server.
   */
  maxConcurrentRequests?: pulumi.Input<number>;
  /** Set by `svc.secrets.connection` / `svc.runs.connection`, so one service's connection is refused by the other's resources. */
  service?: S;
}

/** What `svc.runs.connection` and `svc.secrets.connection` take: a Connection but its service, which each sets. */
export type ConnectionSettings = Omit<Connection, "service">;

/** The `connection` input every resource of service `S` takes. */
export interface ConnectionArgs<S extends ServiceName> {
  /**
   * The server this resource lives on (default: the stack config, then the environment). Declare it
   * once with `svc.secrets.connection({...})` or `svc.runs.connection({...})`. Moving a resource to
   * another server replaces it: it is created on the new server and deleted from the old one.
   */
  connection?: pulumi.Input<Connection<S>>;
}

/** Declares a connection of one service once, with its token made secret. */
export function connectionOf<S extends ServiceName>(service: S, c: ConnectionSettings): Connection<S> {
  const out: Connection<S> = { service };
  if (c.url !== undefined) out.url = c.url;
  if (c.maxConcurrentRequests !== undefined) out.maxConcurrentRequests = c.maxConcurrentRequests;
  if (c.token !== undefined) out.token = pulumi.secret(c.token);
  // A member the type does not have (a misspelt `tokn`, from JavaScript or a cast) goes on to check,
  // which refuses it by name; secret, as it may well be the token.
  for (const [k, v] of Object.entries(c)) if (!(k in out) && v !== undefined) (out as Record<string, unknown>)[k] = pulumi.secret(v);
  return out;
}
