/**
 * Every resource kind the runtime can serve. Adding an API object means adding its file and one
 * line here.
 */
import type { ResourceDefinition } from "./core/definition";
import { notificationConfigurationDefinition } from "./runs/notificationConfiguration";
import { alphabetDefinition } from "./secrets/transform/alphabet";
import { templateDefinition } from "./secrets/transform/template";

export const KINDS: Record<string, ResourceDefinition> = {
  "runs:NotificationConfiguration": notificationConfigurationDefinition as ResourceDefinition,
  "secrets:TransformTemplate": templateDefinition as ResourceDefinition,
  "secrets:TransformAlphabet": alphabetDefinition as ResourceDefinition,
};
