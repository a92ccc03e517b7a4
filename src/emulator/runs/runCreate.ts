import { hasOwn, isRecord } from "../util";
import { invalid, type ApiError } from "./jsonapi";
import type { RunVariable } from "./state";

/** A create-run body after shape checks; absent members take their defaults in run-create.ts. */
export interface RunInput {
  workspaceId: string;
  configurationVersionId?: string;
  allowEmptyApply?: boolean;
  allowConfigGeneration?: boolean;
  autoApply?: boolean;
  isDestroy?: boolean;
  message?: string;
  refresh?: boolean;
  refreshOnly?: boolean;
  replaceAddrs?: string[];
  targetAddrs?: string[];
  variables?: RunVariable[];
  planOnly?: boolean;
  toolVersion?: string;
}

const A = "/data/attributes";
const BOOLEANS = {
  "allow-empty-apply": "allowEmptyApply",
  "allow-config-generation": "allowConfigGeneration",
  "auto-apply": "autoApply",
  "is-destroy": "isDestroy",
  refresh: "refresh",
  "refresh-only": "refreshOnly",
  "plan-only": "planOnly",
} as const;
/** Which versions are "available to the organization" is not shown: any x.y.z (with a pre-release) is. */
const TOOL_VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/**
 * Checks the shape of a create-run document; every problem is one error naming its pointer.
 * A member set to null counts as absent, so clients may send explicit nulls for "default".
 */
export function readRunInput(body: unknown): RunInput | ApiError[] {
  if (!isRecord(body) || !isRecord(body.data)) return [invalid("/data", "data must be a JSON object")];
  const data = body.data;
  const errors: ApiError[] = [];
  if (data.type !== "runs") errors.push(invalid("/data/type", 'type is required and must be "runs"'));
  const attributes = data.attributes ?? {};
  const relationships = data.relationships;
  if (!isRecord(attributes)) errors.push(invalid(A, "attributes must be a JSON object"));
  if (!isRecord(relationships)) {
    errors.push(invalid("/data/relationships", "relationships with a workspace are required"));
    return errors;
  }
  const workspaceId = readRelationship(relationships, "workspace", "workspaces", true, errors);
  const configurationVersionId = readRelationship(relationships, "configuration-version", "configuration-versions", false, errors);
  if (!isRecord(attributes)) return errors;

  const input: RunInput = { workspaceId: workspaceId ?? "" };
  if (configurationVersionId !== undefined) input.configurationVersionId = configurationVersionId;
  const present = (key: string) => hasOwn(attributes, key) && attributes[key] !== null;
  for (const [key, field] of Object.entries(BOOLEANS)) {
    if (!present(key)) continue;
    if (typeof attributes[key] === "boolean") input[field] = attributes[key] as boolean;
    else errors.push(invalid(`${A}/${key}`, `${key} must be a boolean`));
  }
  if (present("message")) {
    if (typeof attributes.message === "string") input.message = attributes.message;
    else errors.push(invalid(`${A}/message`, "message must be a string"));
  }
  for (const [key, field] of [["target-addrs", "targetAddrs"], ["replace-addrs", "replaceAddrs"]] as const) {
    if (present(key)) input[field] = readAddresses(attributes[key], key, errors);
  }
  if (present("variables")) input.variables = readVariables(attributes.variables, errors);
  if (present("tool-version")) {
    const v = attributes["tool-version"];
    if (typeof v === "string" && TOOL_VERSION.test(v)) input.toolVersion = v;
    else errors.push(invalid(`${A}/tool-version`, "tool-version must be a version such as 1.9.0"));
  }
  if (input.isDestroy === true && input.refreshOnly === true) {
    errors.push(invalid(`${A}/refresh-only`, "is-destroy and refresh-only are mutually exclusive; set at most one of them to true"));
  }
  return errors.length > 0 ? errors : input;
}

function readRelationship(relationships: Record<string, unknown>, name: string, type: string, required: boolean, errors: ApiError[]): string | undefined {
  const pointer = `/data/relationships/${name}/data`;
  const rel = relationships[name];
  if (rel === undefined || rel === null || (isRecord(rel) && rel.data === null)) {
    if (required) errors.push(invalid(`${pointer}/id`, `${name} is required: {data: {type: "${type}", id}}`));
    return undefined;
  }
  if (!isRecord(rel) || !isRecord(rel.data)) {
    errors.push(invalid(pointer, `${name} must be a relationship object {data: {type: "${type}", id}}`));
    return undefined;
  }
  const { id, type: given } = rel.data;
  if (given !== undefined && given !== type) errors.push(invalid(`${pointer}/type`, `${name} type must be "${type}"`));
  if (typeof id !== "string" || id === "") {
    errors.push(invalid(`${pointer}/id`, `${name} id must be a non-empty string`));
    return undefined;
  }
  return id;
}

function readAddresses(value: unknown, key: string, errors: ApiError[]): string[] {
  if (!Array.isArray(value)) {
    errors.push(invalid(`${A}/${key}`, `${key} must be an array of resource addresses`));
    return [];
  }
  value.forEach((v, i) => {
    if (typeof v !== "string" || v === "") errors.push(invalid(`${A}/${key}/${i}`, `${key} entries must be non-empty strings`));
  });
  return value as string[];
}

function readVariables(value: unknown, errors: ApiError[]): RunVariable[] {
  const pointer = `${A}/variables`;
  if (!Array.isArray(value)) {
    errors.push(invalid(pointer, "variables must be an array of {key, value}"));
    return [];
  }
  const out: RunVariable[] = [];
  const keys = new Set<string>();
  value.forEach((v, i) => {
    if (!isRecord(v)) return errors.push(invalid(`${pointer}/${i}`, "variables entries must be {key, value} objects"));
    if (typeof v.key !== "string" || v.key === "") return errors.push(invalid(`${pointer}/${i}/key`, "key must be a non-empty string"));
    if (typeof v.value !== "string") return errors.push(invalid(`${pointer}/${i}/value`, "value must be a string (a literal expression, strings with embedded quotes)"));
    if (keys.has(v.key)) return errors.push(invalid(`${pointer}/${i}/key`, `variable ${v.key} is given twice`));
    keys.add(v.key);
    out.push({ key: v.key, value: v.value });
  });
  return out;
}
