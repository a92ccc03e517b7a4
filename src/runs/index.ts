export {
  NotificationConfiguration, type NotificationConfigurationArgs, type DeliveryResponse, type Trigger,
  type DestinationType, TRIGGERS, DESTINATION_TYPES,
} from "./notificationConfiguration";
export * from "./verifyNotificationConfiguration";
export { Run, type RunArgs, type RunWaitFor, WAIT_FOR } from "./run";
export {
  type RunDetails, type RunStatus, type RunOperation, type RunSource, type RunInclude, type RunActions, type RunPermissions,
  type RunVariable, type IncludedResource, type RunAction, RUN_STATUSES, FINAL_RUN_STATUSES, TERMINAL_RUN_STATUSES,
  RUN_OPERATIONS, RUN_SOURCES, RUN_INCLUDES, RunWaitTimeoutError, RunFailedError,
} from "./runModel";
export * from "./runFunctions";
export * from "./receiver";
