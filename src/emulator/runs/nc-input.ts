import { hasOwn, isRecord } from "../util";
import type { DestinationType, NcFields, User } from "./state";

export type { NcFields };
import { invalid, type ApiError } from "./jsonapi";

export const TRIGGERS = [
  "run:created",
  "run:planning",
  "run:needs_attention",
  "run:applying",
  "run:completed",
  "run:errored",
  "assessment:drifted",
  "assessment:check_failure",
  "assessment:failed",
] as const;

export const DESTINATION_TYPES: readonly DestinationType[] = ["generic", "email", "chat-a", "chat-b"];
const DOCUMENT_TYPES = ["notification-configuration", "notification-configurations"];

const CREATE_DEFAULTS = { enabled: false, token: null, triggers: [], url: null };

const A = "/data/attributes";

/**
 * Reads a create (previous undefined) or update body. Absent attributes keep the previous
 * value, so create and update share one set of rules applied to the merged result.
 */
export function readNcInput(body: unknown, users: Record<string, User>, previous?: NcFields): NcFields | ApiError[] {
  if (!isRecord(body) || !isRecord(body.data)) return [invalid("/data", "data must be a JSON object")];
  const data = body.data;
  const errors: ApiError[] = [];
  if (previous === undefined || hasOwn(data, "type")) {
    if (typeof data.type !== "string" || !DOCUMENT_TYPES.includes(data.type)) {
      errors.push(invalid("/data/type", 'type must be "notification-configuration" or "notification-configurations"'));
    }
  }
  const attributes = data.attributes ?? {};
  if (!isRecord(attributes)) return [...errors, invalid(A, "attributes must be a JSON object")];
  const relationships = data.relationships ?? {};
  if (!isRecord(relationships)) return [...errors, invalid("/data/relationships", "relationships must be a JSON object")];

  const base: Record<string, unknown> = previous
    ? { name: previous.name, "destination-type": previous.destinationType, url: previous.url, enabled: previous.enabled, token: previous.token, triggers: previous.triggers }
    : { ...CREATE_DEFAULTS };
  const merged = { ...base, ...attributes };

  const destinationType = merged["destination-type"];
  if (!DESTINATION_TYPES.includes(destinationType as DestinationType)) {
    errors.push(invalid(`${A}/destination-type`, `destination-type is required and must be one of ${DESTINATION_TYPES.join(", ")}`));
  } else if (previous && destinationType !== previous.destinationType) {
    errors.push(invalid(`${A}/destination-type`, "destination-type cannot be changed"));
  }
  const name = merged.name;
  if (typeof name !== "string" || name.trim() === "") errors.push(invalid(`${A}/name`, "name is required and must be a non-empty string"));
  const enabled = merged.enabled;
  if (typeof enabled !== "boolean") errors.push(invalid(`${A}/enabled`, "enabled must be a boolean"));
  const token = merged.token ?? null;
  if (token !== null && typeof token !== "string") errors.push(invalid(`${A}/token`, "token must be a string or null"));
  const triggers = readTriggers(merged.triggers, errors);
  const url = readUrl(merged.url ?? null, destinationType, errors);
  const userIds = readUsers(relationships, users, destinationType, previous?.userIds ?? [], errors);

  if (errors.length > 0) return errors;
  return {
    name: name as string,
    destinationType: destinationType as DestinationType,
    url,
    enabled: enabled as boolean,
    token: token as string | null,
    triggers,
    userIds,
  };
}

function readTriggers(value: unknown, errors: ApiError[]): string[] {
  if (!Array.isArray(value)) {
    errors.push(invalid(`${A}/triggers`, "triggers must be an array of trigger values"));
    return [];
  }
  const out: string[] = [];
  value.forEach((trigger, i) => {
    if (typeof trigger !== "string" || !(TRIGGERS as readonly string[]).includes(trigger)) {
      errors.push(invalid(`${A}/triggers/${i}`, `triggers contains an unknown trigger ${JSON.stringify(trigger)}; allowed: ${TRIGGERS.join(", ")}`));
    } else if (!out.includes(trigger)) {
      out.push(trigger);
    }
  });
  return out;
}

function readUrl(value: unknown, destinationType: unknown, errors: ApiError[]): string | null {
  if (destinationType === "email") {
    if (value !== null) errors.push(invalid(`${A}/url`, "url must be absent or null for destination-type email"));
    return null;
  }
  if (typeof value !== "string" || value === "") {
    errors.push(invalid(`${A}/url`, "url is required for destination-type generic, chat-a and chat-b"));
    return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    errors.push(invalid(`${A}/url`, "url must be an absolute http or https URL"));
    return null;
  }
  if ((parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.hostname === "") {
    errors.push(invalid(`${A}/url`, "url must be an http or https URL"));
    return null;
  }
  return value;
}

function readUsers(
  relationships: Record<string, unknown>,
  users: Record<string, User>,
  destinationType: unknown,
  previous: string[],
  errors: ApiError[],
): string[] {
  const pointer = "/data/relationships/users";
  if (!hasOwn(relationships, "users")) return destinationType === "email" ? previous : [];
  const raw = relationships.users;
  // Both the JSON:API form {data: [...]} and a bare array are accepted.
  const list = raw === null ? [] : Array.isArray(raw) ? raw : isRecord(raw) ? (raw.data ?? []) : undefined;
  if (!Array.isArray(list)) {
    errors.push(invalid(pointer, "users must be a relationship object whose data is an array of {id, type: \"users\"}"));
    return [];
  }
  if (list.length > 0 && destinationType !== "email") {
    errors.push(invalid(pointer, "users can only be set for destination-type email"));
    return [];
  }
  const ids: string[] = [];
  for (const [i, item] of list.entries()) {
    if (!isRecord(item) || typeof item.id !== "string" || (item.type !== undefined && item.type !== "users")) {
      errors.push(invalid(`${pointer}/data/${i}`, 'users entries must be {id: string, type: "users"}'));
    } else if (!users[item.id]) {
      errors.push(invalid(`${pointer}/data/${i}/id`, `users: user ${item.id} does not exist`));
    } else if (!ids.includes(item.id)) {
      ids.push(item.id);
    }
  }
  return ids;
}
