import type * as pulumi from "@pulumi/pulumi";
import { connectionOf, type Connection } from "../core/connection";
export * as transform from "./transform";
export * as keymgmt from "./keymgmt";
export * as identity from "./identity";
export * as plugins from "./plugins";
export * as mfa from "./mfa";
export * as directory from "./directory";
export * as registry from "./registry";
export * as replication from "./replication";
export type { Connection, ConnectionArgs } from "../core/connection";
export type { SvcInvokeOptions, SvcInvokeOutputOptions } from "../core/fn";

/**
 * Declares a secrets-service server once, to pass as `connection` to its resources and functions;
 * the token is made secret. `url` and `token` each fall back to `svc:secretsUrl` / `SVC_SECRETS_URL`
 * and `svc:secretsToken` / `SVC_SECRETS_TOKEN` when absent.
 *
 * @example
 * const dr = svc.secrets.connection({ url: "https://dr.example.com/v1", token: cfg.requireSecret("drToken") });
 * new svc.secrets.transform.Alphabet("digits", { name: "digits", alphabet: "0123456789", connection: dr });
 */
export function connection(c: {
  /** Base URL ending with `/v1`; default `svc:secretsUrl` / `SVC_SECRETS_URL`. */
  url?: pulumi.Input<string>;
  /** API token, made secret; default `svc:secretsToken` / `SVC_SECRETS_TOKEN`. */
  token?: pulumi.Input<string>;
  /** Requests in flight to this server at once, per process; default `svc:maxConcurrentRequests` / `SVC_MAX_CONCURRENT_REQUESTS`, else 16. */
  maxConcurrentRequests?: pulumi.Input<number>;
}): Connection<"secrets"> {
  return connectionOf("secrets", c);
}
