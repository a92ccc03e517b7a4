import { connectionOf, type Connection, type ConnectionSettings } from "../core/connection";
// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
export { NotificationConfiguration, type NotificationConfigurationArgs } from "./notificationConfiguration";
export { Run, type RunArgs } from "./run";
// (end of what npm run docs writes)
export { type DeliveryResponse, type Trigger, TRIGGERS } from "./notificationConfiguration";
export * from "./verifyNotificationConfiguration";
export { type RunWaitFor, WAIT_FOR } from "./run";
export {
  type RunStatus, type RunOperation, type RunSource, type RunInclude, RUN_STATUSES, FINAL_RUN_STATUSES, TERMINAL_RUN_STATUSES,
  RUN_OPERATIONS, RUN_SOURCES, RUN_INCLUDES, type DestinationType, DESTINATION_TYPES,
} from "./runVocabulary";
export { type RunDetails, type RunActions, type RunPermissions, type IncludedResource } from "./runDetails";
export { type RunVariable } from "./runAttributes";
export { type RunAction } from "./runActions";
export { RunWaitTimeoutError, RunFailedError } from "./runWait";
export * from "./runFunctions";
export * from "./receiver";
export type { Connection, ConnectionArgs, ConnectionSettings } from "../core/connection";
export type { SvcInvokeOptions, SvcInvokeOutputOptions } from "../core/fn";

/**
 * Declares a run-service server once, to pass as `connection` to its resources and functions; the
 * token is made secret. `url` and `token` each fall back to `svc:runUrl` / `SVC_RUN_URL` and
 * `svc:runToken` / `SVC_RUN_TOKEN` when absent.
 *
 * @example
 * const ci = svc.runs.connection({ url: "https://ci.example.com/api/v2", token: cfg.requireSecret("ciToken") });
 * new svc.runs.Run("deploy", { workspaceId, message: "deploy", connection: ci });
 */
export function connection(c: ConnectionSettings): Connection<"runs"> {
  return connectionOf("runs", c);
}
