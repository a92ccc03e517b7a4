/**
 * Helpers for the receiving end of notifications (your webhook): check the
 * `X-Svc-Notification-Signature` header and validate the body into typed payloads.
 * They make no request and need no configuration.
 */
import { createHmac, timingSafeEqual } from "crypto";
import { z } from "../core/zod";
import type { z as Zod } from "zod";
import { field, lazy, type Fields, type PlainArgsOf } from "../core/fields";
import { propertyPath } from "../core/validate";
import { ASSESSMENT_NOTIFICATION_TRIGGERS, RUN_NOTIFICATION_TRIGGERS, RUN_STATUSES } from "./runVocabulary";

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
// Payloads (field names as sent: snake_case). Each is a record of its fields, written once: its
// type is the record's (`PlainArgsOf`, each field's doc on hover) and its schema is built from the
// same record on first use. zod schemas are built when a body is first parsed, never at load.
// ---------------------------------------------------------------------------------------------

export { RUN_NOTIFICATION_TRIGGERS, ASSESSMENT_NOTIFICATION_TRIGGERS, type RunNotificationTrigger, type AssessmentNotificationTrigger } from "./runVocabulary";

const str = () => z.string({ error: "must be a string" });
const text = () => str().min(1, "must not be empty");
const num = () => z.number({ error: "must be a number" }).int("must be an integer").min(0, "must not be negative");
const bool = () => z.boolean({ error: "must be true or false" });
const none = () => z.null();
const version = <N extends 1 | 2>(n: N) => () => z.preprocess((v) => (v === String(n) ? n : v), z.literal(n, { error: `must be ${n}` })) as unknown as Zod.ZodType<N>;
/** The schema of a payload's record: each field's own, unknown members ignored (the service may add some). */
const objectOf = (fields: Fields, error?: string) => z.object(Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.type!() as unknown as Zod.ZodType])), error ? { error } : undefined);
const atLeastOne = <T>(item: () => Zod.ZodType<T>, error?: string) => () => z.array(item(), error ? { error } : undefined).min(1, "must hold at least one notification");

const runNotificationFields = {
  message: field(str),
  trigger: field(() => z.enum(RUN_NOTIFICATION_TRIGGERS, { error: `must be one of ${RUN_NOTIFICATION_TRIGGERS.join(", ")}` })),
  /** The run's status when the notification was sent. */
  run_status: field(() => z.enum(RUN_STATUSES, { error: "must be a run status" })),
  run_updated_at: field(text),
  /** Username; null when the change was not made by a user (a team token, the service itself). */
  run_updated_by: field(() => str().nullable()),
};

/** One element of `notifications` (currently always exactly one). */
export interface RunNotification extends PlainArgsOf<typeof runNotificationFields> {}

const runPayloadFields = {
  payload_version: field(version(1)),
  notification_configuration_id: field(text),
  run_url: field(text),
  run_id: field(text),
  /** Why the run was queued. */
  run_message: field(str),
  run_created_at: field(text),
  /** Username; null when the run was not queued by a user (a team token). */
  run_created_by: field(() => str().nullable()),
  workspace_id: field(text),
  workspace_name: field(str),
  organization_name: field(str),
  notifications: field(atLeastOne((): Zod.ZodType<RunNotification> => objectOf(runNotificationFields) as never, "must be an array")),
};

/** Generic run notification (`payload_version` 1). */
export interface RunNotificationPayload extends PlainArgsOf<typeof runPayloadFields> {}

/** A member a verification carries as null: it is about no run. */
const noRun = field(none);

const verificationNotificationFields = {
  message: field(str),
  trigger: field(() => z.literal("verification")),
  run_status: noRun,
  run_updated_at: noRun,
  run_updated_by: noRun,
};

/** The one element of a verification's `notifications`: a notification with no run. */
export interface VerificationNotification extends PlainArgsOf<typeof verificationNotificationFields> {}

const verificationPayloadFields = {
  payload_version: field(version(1)),
  notification_configuration_id: field(text),
  run_url: noRun,
  run_id: noRun,
  run_message: noRun,
  run_created_at: noRun,
  run_created_by: noRun,
  workspace_id: field(text),
  workspace_name: field(() => str().nullable()),
  organization_name: field(() => str().nullable()),
  notifications: field(atLeastOne((): Zod.ZodType<VerificationNotification> => objectOf(verificationNotificationFields) as never)),
};

/**
 * The verification request sent on create/update with enabled true and on the verify action:
 * a version 1 payload with the run fields null and trigger `verification` (docs/assumptions.md, item 22).
 */
export interface VerificationPayload extends PlainArgsOf<typeof verificationPayloadFields> {}

const assessmentResultFields = {
  id: field(text),
  /** API URL of the result. */
  url: field(text),
  succeeded: field(bool),
  all_checks_succeeded: field(bool),
  /** Numbers of resources, data sources and outputs. */
  checks_passed: field(num),
  checks_failed: field(num),
  checks_errored: field(num),
  checks_unknown: field(num),
  drifted: field(bool),
  resources_drifted: field(num),
  resources_undrifted: field(num),
  created_at: field(text),
};

/** An assessment result (the triggering one, or the one before it). */
export interface AssessmentResult extends PlainArgsOf<typeof assessmentResultFields> {}

const assessmentResult = (): Zod.ZodType<AssessmentResult> => objectOf(assessmentResultFields, "must be an assessment result object") as never;

const assessmentDetailsFields = {
  new_assessment_result: field(assessmentResult),
  /** Null for a workspace's first assessment. */
  prior_assessment_result: field(() => assessmentResult().nullable()),
  workspace_id: field(text),
  workspace_name: field(str),
  organization_name: field(str),
};

/** What an assessment notification says of the assessment and its workspace. */
export interface AssessmentDetails extends PlainArgsOf<typeof assessmentDetailsFields> {}

const assessmentPayloadFields = {
  payload_version: field(version(2)),
  notification_configuration_id: field(text),
  /** API URL of the configuration. */
  notification_configuration_url: field(text),
  trigger_scope: field(() => z.literal("assessment", { error: "must be assessment" })),
  trigger: field(() => z.enum(ASSESSMENT_NOTIFICATION_TRIGGERS, { error: `must be one of ${ASSESSMENT_NOTIFICATION_TRIGGERS.join(", ")}` })),
  message: field(str),
  details: field((): Zod.ZodType<AssessmentDetails> => objectOf(assessmentDetailsFields, "must be an object") as never),
};

/** Generic workspace assessment notification (`payload_version` 2). */
export interface AssessmentNotificationPayload extends PlainArgsOf<typeof assessmentPayloadFields> {}

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

/** Each payload's schema, from its record, built on first use. */
const schemas = lazy(() => ({
  run: objectOf(runPayloadFields),
  verification: objectOf(verificationPayloadFields),
  assessment: objectOf(assessmentPayloadFields),
}));

function problemsOf(error: Zod.ZodError): string[] {
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
  const s = schemas();
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
