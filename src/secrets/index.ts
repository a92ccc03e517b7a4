import { connectionOf, type Connection, type ConnectionSettings } from "../core/connection";
export * as transform from "./transform";
export * as keymgmt from "./keymgmt";
export * as identity from "./identity";
export * as plugins from "./plugins";
export * as mfa from "./mfa";
export * as directory from "./directory";
export * as registry from "./registry";
export * as replication from "./replication";
export type { Connection, ConnectionArgs, ConnectionSettings } from "../core/connection";
export type { SvcInvokeOptions, SvcInvokeOutputOptions } from "../core/fn";
export type { NameList } from "./pathObject";

/**
 * Declares a secrets-service server once, to pass as `connection` to its resources and functions;
 * the token is made secret. `url` and `token` each fall back to `svc:secretsUrl` / `SVC_SECRETS_URL`
 * and `svc:secretsToken` / `SVC_SECRETS_TOKEN` when absent.
 *
 * @example
 * const dr = svc.secrets.connection({ url: "https://dr.example.com/v1", token: cfg.requireSecret("drToken") });
 * new svc.secrets.transform.Alphabet("digits", { name: "digits", alphabet: "0123456789", connection: dr });
 */
export function connection(c: ConnectionSettings): Connection<"secrets"> {
  return connectionOf("secrets", c);
}
