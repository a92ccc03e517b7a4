/**
 * Every resource kind the runtime can serve, loaded on first use. Adding an API object means adding
 * its file and one line here.
 */
import type { ResourceDefinition } from "./core/definition";

type Loader = () => ResourceDefinition;

export const KINDS: Record<string, Loader> = {
  "runs:NotificationConfiguration": () => require("./runs/notificationConfiguration").notificationConfigurationDefinition,
  "secrets:TransformTemplate": () => require("./secrets/transform/template").templateDefinition,
  "secrets:TransformAlphabet": () => require("./secrets/transform/alphabet").alphabetDefinition,
};
