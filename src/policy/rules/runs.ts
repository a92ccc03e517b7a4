// The run service's rules: where notifications go, how receivers can trust them, and what they say.
import { NotificationConfiguration } from "../../runs/notificationConfiguration";
import { URL_DESTINATION_TYPES } from "../../runs/runVocabulary";
import { namesSetting, plainHttpOutside } from "../config";
import { resourceRule } from "../rule";

export const notificationUrlTls = resourceRule(NotificationConfiguration, "notification-url-tls", "mandatory", {
  description: "A notification destination takes HTTPS, or plain http on loopback only. Each notification is an HTTP POST of the run's details (run message, who queued it, workspace and organization names), and the service sends a verification request to the URL on create (run service seed, Events and Verification): over plain http anyone on the path reads them, and the signature of a generic destination only shows tampering, it hides nothing.",
  remediationSteps: "Give the destination an https:// URL, or name its host in allowedHttpHosts if the network path is trusted.",
  config: { allowedHttpHosts: namesSetting("Hosts besides loopback that may take notifications over plain http.") },
  validate(nc, { allowedHttpHosts }: { allowedHttpHosts: string[] }, reportViolation) {
    if (!URL_DESTINATION_TYPES.includes(nc.destinationType) || typeof nc.url !== "string") return;
    if (plainHttpOutside(nc.url, allowedHttpHosts)) reportViolation(`${nc.name}: ${nc.destinationType} destination ${nc.url} is plain http outside loopback`);
  },
});

export const notificationSigningToken = resourceRule(NotificationConfiguration, "notification-signing-token", "advisory", {
  description: "A generic destination has a token, and a long one. With a token, every generic notification carries X-Svc-Notification-Signature, the HMAC-SHA512 of the body keyed with the token, and receivers drop requests whose signature differs (run service seed, Authentication); without one a receiver cannot tell the service's POST from anyone's. The signature is only as strong as the key: a short token can be guessed offline from one signed notification.",
  remediationSteps: "Give the destination a token from a secret (cfg.requireSecret), at least minLength characters, and have the receiver check the signature.",
  config: { minLength: { type: "integer", minimum: 1, default: 32, description: "Fewest characters of a generic destination's token (the HMAC key of its signature)." } },
  validate(nc, { minLength }: { minLength: number }, reportViolation) {
    if (nc.destinationType !== "generic") return;
    if (nc.token === undefined || nc.token === null || nc.token === "") reportViolation(`${nc.name}: generic destination without a token: its notifications are not signed`);
    else if (nc.token.length < minLength) reportViolation(`${nc.name}: token of ${nc.token.length} characters, fewer than ${minLength}`);
  },
});

export const notificationTriggers = resourceRule(NotificationConfiguration, "notification-triggers", "advisory", {
  description: "An enabled destination has the triggers it is for. The service sends a notification for each matching trigger of every enabled configuration, and triggers default to none (run service seed, Events and Create a notification configuration): an enabled destination without triggers never hears of a run, and one without a trigger the team relies on (run:errored for failed runs, run:needs_attention for plans waiting for approval) stays silent on it.",
  remediationSteps: "List the triggers in the destination's triggers, or disable it.",
  config: { requiredTriggers: namesSetting("Triggers every enabled destination must include (run:errored, run:needs_attention, ...).") },
  validate(nc, { requiredTriggers }: { requiredTriggers: string[] }, reportViolation) {
    if (!nc.enabled) return;
    const triggers: string[] = nc.triggers ?? [];
    if (triggers.length === 0) reportViolation(`${nc.name}: enabled without triggers: it sends nothing`);
    const missing = requiredTriggers.filter((t) => !triggers.includes(t));
    if (triggers.length > 0 && missing.length > 0) reportViolation(`${nc.name}: missing required trigger(s) ${missing.join(", ")}`);
  },
});
