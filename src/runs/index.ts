export {
  NotificationConfiguration, type NotificationConfigurationArgs, type DeliveryResponse, type Trigger,
  type DestinationType, TRIGGERS, DESTINATION_TYPES,
} from "./notificationConfiguration";
export * from "./verifyNotificationConfiguration";
