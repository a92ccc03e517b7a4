export {
  NotificationConfiguration, type NotificationConfigurationArgs, type DeliveryResponse, type Trigger,
  type DestinationType, TRIGGERS, DESTINATION_TYPES,
} from "./notificationConfiguration";
export * from "./verifyNotificationConfiguration";
export { Run, type RunArgs, type RunWaitFor, WAIT_FOR } from "./run";
export {
  type RunStatus, type RunOperation, type RunSource, type RunInclude, RUN_STATUSES, FINAL_RUN_STATUSES, TERMINAL_RUN_STATUSES,
  RUN_OPERATIONS, RUN_SOURCES, RUN_INCLUDES,
} from "./runVocabulary";
export { type RunDetails, type RunActions, type RunPermissions, type RunVariable, type IncludedResource } from "./runDetails";
export { type RunAction } from "./runActions";
export { RunWaitTimeoutError, RunFailedError } from "./runWait";
export * from "./runFunctions";
export * from "./receiver";
