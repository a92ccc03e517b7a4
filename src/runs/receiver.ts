/**
 * Helpers for the receiving end of notifications (your webhook): check the
 * `X-Svc-Notification-Signature` header and validate the body into typed payloads.
 * They make no request and need no configuration.
 */
import { createHmac, timingSafeEqual } from "crypto";
import { z } from "zod";
import { propertyPath } from "../core/validate";
import {
  ASSESSMENT_NOTIFICATION_TRIGGERS, RUN_NOTIFICATION_TRIGGERS, RUN_STATUSES, type AssessmentNotificationTrigger, type RunNotificationTrigger, type RunStatus,
} from "./runVocabulary";

/** The header that carries the signature of a generic notification (compare case-insensitively). */
export const SIGNATURE_HEADER = "X-Svc-Notification-Signature";

const SIGNATURE = /^[0-9a-fA-F]{128}$/;

/**
 * Whether `signatureHeader` is the hex HMAC-SHA512 of `rawBody` keyed with `token`, compared in
 * constant time. Pass the body exactly as received (bytes or text), before any JSON parsing.
 *
 * Returns false when the header is missing, is not 128 hex digits, or differs, and when `token`
 * is empty. A notification configuration without a `token` sends no signature, so such
 * notifications can never be verified: configure a token on every configuration you verify.
 */
export function verifyNotificationSignature(rawBody: string | Buffer, signatureHeader: string | string[] | undefined, token: string): boolean {
  const header = Array.isArray(signatureHeader) ? (signatureHeader.length === 1 ? signatureHeader[0] : undefined) : signatureHeader;
  if (typeof header !== "string" || typeof token !== "string" || token === "") return false;
  const given = header.trim();
  if (!SIGNATURE.test(given)) return false;
  const body = typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : rawBody;
  if (!Buffer.isBuffer(body)) return false;
  const expected = createHmac("sha512", token).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(given, "hex"));
}

// ---------------------------------------------------------------------------------------------
// Payload types (field names as sent: snake_case)
// ---------------------------------------------------------------------------------------------

export { RUN_NOTIFICATION_TRIGGERS, ASSESSMENT_NOTIFICATION_TRIGGERS, type RunNotificationTrigger, type AssessmentNotificationTrigger } from "./runVocabulary";

/** One element of `notifications` (currently always exactly one). */
export interface RunNotification {
  message: string;
  trigger: RunNotificationTrigger;
  /** The run's status when the notification was sent. */
  run_status: RunStatus;
  run_updated_at: string;
  /** Username; null when the change was not made by a user (a team token, the service itself). */
  run_updated_by: string | null;
}

/** Generic run notification (`payload_version` 1). */
export interface RunNotificationPayload {
  payload_version: 1;
  notification_configuration_id: string;
  run_url: string;
  run_id: string;
  /** Why the run was queued. */
  run_message: string;
  run_created_at: string;
  /** Username; null when the run was not queued by a user (a team token). */
  run_created_by: string | null;
  workspace_id: string;
  workspace_name: string;
  organization_name: string;
  notifications: RunNotification[];
}

/**
 * The verification request sent on create/update with enabled true and on the verify action:
 * a version 1 payload with the run fields null and trigger `verification` (docs/assumptions.md, item 22).
 */
export interface VerificationPayload {
  payload_version: 1;
  notification_configuration_id: string;
  run_url: null;
  run_id: null;
  run_message: null;
  run_created_at: null;
  run_created_by: null;
  workspace_id: string;
  workspace_name: string | null;
  organization_name: string | null;
  notifications: { message: string; trigger: "verification"; run_status: null; run_updated_at: null; run_updated_by: null }[];
}

/** An assessment result (the triggering one, or the one before it). */
export interface AssessmentResult {
  id: string;
  /** API URL of the result. */
  url: string;
  succeeded: boolean;
  all_checks_succeeded: boolean;
  /** Numbers of resources, data sources and outputs. */
  checks_passed: number;
  checks_failed: number;
  checks_errored: number;
  checks_unknown: number;
  drifted: boolean;
  resources_drifted: number;
  resources_undrifted: number;
  created_at: string;
}

/** Generic workspace assessment notification (`payload_version` 2). */
export interface AssessmentNotificationPayload {
  payload_version: 2;
  notification_configuration_id: string;
  /** API URL of the configuration. */
  notification_configuration_url: string;
  trigger_scope: "assessment";
  trigger: AssessmentNotificationTrigger;
  message: string;
  details: {
    new_assessment_result: AssessmentResult;
    /** Null for a workspace's first assessment. */
    prior_assessment_result: AssessmentResult | null;
    workspace_id: string;
    workspace_name: string;
    organization_name: string;
  };
}

export type NotificationPayload = RunNotificationPayload | VerificationPayload | AssessmentNotificationPayload;

/** The result of {@link parseNotification}: a valid notification of one kind, or the problems. */
export type ParsedNotification = ParsedOk<"run", RunNotificationPayload> | ParsedOk<"verification", VerificationPayload>
  | ParsedOk<"assessment", AssessmentNotificationPayload> | ParsedProblems;

/** A valid notification. */
export interface ParsedOk<K extends string, P> {
  /** The body is a valid notification. */
  ok: true;
  /** Which notification: `run`, `verification` or `assessment`. */
  kind: K;
  /** The payload, typed by kind. */
  payload: P;
}

/** A body that is not a valid notification. */
export interface ParsedProblems {
  /** The body is not a valid notification; `problems` says why. */
  ok: false;
  /** Each problem with the property it concerns. */
  problems: string[];
}

// ---------------------------------------------------------------------------------------------
// Schemas (built on first use)
// ---------------------------------------------------------------------------------------------

interface Schemas {
  run: z.ZodType;
  verification: z.ZodType;
  assessment: z.ZodType;
}

let schemas: Schemas | undefined;

function buildSchemas(): Schemas {
  const str = () => z.string({ error: "must be a string" });
  const text = () => str().min(1, "must not be empty");
  const num = () => z.number({ error: "must be a number" }).int("must be an integer").min(0, "must not be negative");
  const bool = () => z.boolean({ error: "must be true or false" });
  const version = (n: 1 | 2) => z.preprocess((v) => (v === String(n) ? n : v), z.literal(n, { error: `must be ${n}` }));

  const run = z.object({
    payload_version: version(1),
    notification_configuration_id: text(),
    run_url: text(),
    run_id: text(),
    run_message: str(),
    run_created_at: text(),
    run_created_by: str().nullable(),
    workspace_id: text(),
    workspace_name: str(),
    organization_name: str(),
    notifications: z.array(z.object({
      message: str(),
      trigger: z.enum(RUN_NOTIFICATION_TRIGGERS, { error: `must be one of ${RUN_NOTIFICATION_TRIGGERS.join(", ")}` }),
      run_status: z.enum(RUN_STATUSES, { error: "must be a run status" }),
      run_updated_at: text(),
      run_updated_by: str().nullable(),
    }), { error: "must be an array" }).min(1, "must hold at least one notification"),
  });

  const verification = z.object({
    payload_version: version(1),
    notification_configuration_id: text(),
    run_url: z.null(), run_id: z.null(), run_message: z.null(), run_created_at: z.null(), run_created_by: z.null(),
    workspace_id: text(),
    workspace_name: str().nullable(),
    organization_name: str().nullable(),
    notifications: z.array(z.object({
      message: str(),
      trigger: z.literal("verification"),
      run_status: z.null(), run_updated_at: z.null(), run_updated_by: z.null(),
    })).min(1, "must hold at least one notification"),
  });

  const result = z.object({
    id: text(),
    url: text(),
    succeeded: bool(),
    all_checks_succeeded: bool(),
    checks_passed: num(),
    checks_failed: num(),
    checks_errored: num(),
    checks_unknown: num(),
    drifted: bool(),
    resources_drifted: num(),
    resources_undrifted: num(),
    created_at: text(),
  }, { error: "must be an assessment result object" });

  const assessment = z.object({
    payload_version: version(2),
    notification_configuration_id: text(),
    notification_configuration_url: text(),
    trigger_scope: z.literal("assessment", { error: "must be assessment" }),
    trigger: z.enum(ASSESSMENT_NOTIFICATION_TRIGGERS, { error: `must be one of ${ASSESSMENT_NOTIFICATION_TRIGGERS.join(", ")}` }),
    message: str(),
    details: z.object({
      new_assessment_result: result,
      prior_assessment_result: result.nullable(),
      workspace_id: text(),
      workspace_name: str(),
      organization_name: str(),
    }, { error: "must be an object" }),
  });
  return { run, verification, assessment };
}

function problemsOf(error: z.ZodError): string[] {
  return error.issues.map((i) => `${propertyPath(i.path) || "(body)"}: ${i.message}`);
}

/**
 * Validates a notification body (the raw text or bytes, or an already parsed object) and returns
 * the typed payload with its kind (`run`, `verification`, `assessment`), or the problems found,
 * each naming the field: `notifications[0].trigger: must be one of run:created, ...`.
 * It never throws. Check the signature on the raw body first (verifyNotificationSignature).
 */
export function parseNotification(body: unknown): ParsedNotification {
  let value: unknown = body;
  if (typeof body === "string" || Buffer.isBuffer(body)) {
    try {
      value = JSON.parse(typeof body === "string" ? body : body.toString("utf8"));
    } catch (e) {
      return { ok: false, problems: [`(body): is not JSON: ${(e as Error).message}`] };
    }
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { ok: false, problems: ["(body): must be a JSON object"] };
  const s = (schemas ??= buildSchemas());
  const v = value as Record<string, unknown>;
  const version = v.payload_version;
  if (version === 2 || version === "2") {
    const r = s.assessment.safeParse(value);
    return r.success ? { ok: true, kind: "assessment", payload: r.data as AssessmentNotificationPayload } : { ok: false, problems: problemsOf(r.error) };
  }
  if (version === 1 || version === "1") {
    const first = Array.isArray(v.notifications) ? (v.notifications[0] as { trigger?: unknown } | undefined) : undefined;
    if (first?.trigger === "verification") {
      const r = s.verification.safeParse(value);
      return r.success ? { ok: true, kind: "verification", payload: r.data as VerificationPayload } : { ok: false, problems: problemsOf(r.error) };
    }
    const r = s.run.safeParse(value);
    return r.success ? { ok: true, kind: "run", payload: r.data as RunNotificationPayload } : { ok: false, problems: problemsOf(r.error) };
  }
  return { ok: false, problems: ["payload_version: must be 1 (run notification) or 2 (assessment notification)"] };
}
