// Errors with stable codes. Callers branch on `code` (or isSvcError), never on message text,
// and the message is always redacted because it ends up in Pulumi's output and logs.
import { STATUS_CODES } from "http";
import { debugging, markExpected } from "./quiet";
import { redact, redactOwn } from "./redact";

export type Service = "runs" | "secrets";

export type SvcErrorCode =
  | "not_found"
  | "conflict"
  | "forbidden"
  | "rate_limited"
  | "invalid_input"
  | "server"
  | "transport";

export interface Problem {
  path: string;
  message: string;
}

export interface SvcErrorInit {
  service?: Service;
  method?: string;
  path?: string;
  status?: number;
  messages?: string[];
  retryAfterMs?: number;
  cause?: unknown;
}

// A registered brand survives the module being loaded twice (dist and src, or a copy
// serialized into a provider), where instanceof would fail.
const BRAND = Symbol.for("pulumi-svc.SvcError");

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function compose(method: string, path: string, head: string, messages: string[]): string {
  const where = method || path ? `${method} ${path}`.trim() + ": " : "";
  const tail = messages.length > 0 ? `: ${messages.join("; ")}` : "";
  return oneLine(`${where}${head}${tail}`);
}

/**
 * Every error from a service call or a local check: a stable `code` to branch on, the request it
 * came from and the server's messages. Messages are redacted: no token or secret value reaches them.
 * Branch on `code` rather than `instanceof`, which fails when two copies of the package are loaded.
 */
export class SvcError extends Error {
  /** Stable code of the kind of failure; branch on it, never on the message. */
  readonly code: SvcErrorCode;
  /** Undefined only for local validation errors raised before any request. */
  readonly service?: Service;
  /** HTTP method as sent ("" when no request was made). */
  readonly method: string;
  /** Path as sent, with its query string ("" when no request was made). */
  readonly path: string;
  /** HTTP status of the answer; undefined when there was none (a local check, a transport failure). */
  readonly status?: number;
  /** The server's own error messages (redacted). */
  readonly messages: string[];
  /** What the server's `Retry-After` header asked for, in milliseconds, when it sent one. */
  readonly retryAfterMs?: number;

  constructor(code: SvcErrorCode, init: SvcErrorInit, head?: string) {
    const method = init.method ?? "";
    // The path is the package's own (it built the request); messages with a status are the
    // server's, which may echo a secret cut short; without one they are the package's own words.
    const path = redactOwn(init.path ?? "");
    const status = init.status;
    const messages = (init.messages ?? []).map((m) => oneLine(status !== undefined ? redact(m) : redactOwn(m)));
    const summary = head ?? (status !== undefined ? `${status} ${STATUS_CODES[status] ?? "Error"}` : code);
    // An expected error shows its first line alone (markExpected): frames captured for it would
    // only be formatted for nothing (in a provider host, by its source-map support, which reads
    // the file of each frame). They are kept when debugging, where the stack is shown.
    const limit = Error.stackTraceLimit;
    if (!debugging()) Error.stackTraceLimit = 0;
    try {
      super(compose(method, path, summary, messages), init.cause !== undefined ? { cause: init.cause } : undefined);
    } finally {
      Error.stackTraceLimit = limit;
    }
    // Each subclass is named by its class (NotFoundError, ...), so none sets it again.
    this.name = new.target.name;
    this.code = code;
    this.service = init.service;
    this.method = method;
    this.path = path;
    this.status = status;
    this.messages = messages;
    this.retryAfterMs = init.retryAfterMs;
    Object.defineProperty(this, BRAND, { value: true });
    markExpected(this);
  }
}

/** The object does not exist (404). Reads of a resource treat it as "gone"; the run service also answers it for "not authorized". */
export class NotFoundError extends SvcError { constructor(init: SvcErrorInit) { super("not_found", init); } }

/**
 * The request conflicts with the object's state (409), or a check the provider makes first refused
 * it: an object already at the path (without `adopt`), a delete of something still in use, a run
 * action the run does not allow now.
 */
export class ConflictError extends SvcError { constructor(init: SvcErrorInit) { super("conflict", init); } }

/** The token is missing, invalid or lacks a capability (401, 403). */
export class ForbiddenError extends SvcError { constructor(init: SvcErrorInit) { super("forbidden", init); } }

/** Too many requests (429), after the client's retries honouring `Retry-After` ran out. */
export class RateLimitedError extends SvcError { constructor(init: SvcErrorInit) { super("rate_limited", init); } }

/** The server failed (5xx, or any other unexpected status), after the client's retries of safe requests ran out. */
export class ServerError extends SvcError { constructor(init: SvcErrorInit) { super("server", init); } }

/**
 * 400/422 from a server, or local validation: `new InvalidInputError([{ path: "urls[0]",
 * message: "must be http or https" }])` needs no request; `problems` names each property.
 */
export class InvalidInputError extends SvcError {
  /** Each local problem as `{ path, message }` (the property and what is wrong); empty for a server's 400. */
  readonly problems: Problem[];

  constructor(input: SvcErrorInit | Problem[], context: SvcErrorInit = {}) {
    const local = Array.isArray(input);
    const problems = local ? input.map((p) => ({ path: p.path, message: redactOwn(p.message) })) : [];
    const init: SvcErrorInit = local
      ? { ...context, messages: problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)) }
      : input;
    super("invalid_input", init, local && init.status === undefined ? "invalid input" : undefined);
    this.problems = problems;
  }
}

export interface TransportInit extends SvcErrorInit {
  /** The underlying error's code, e.g. ECONNREFUSED or UND_ERR_HEADERS_TIMEOUT. */
  causeCode: string;
  causeMessage: string;
}

/** The request got no HTTP response: refused, reset, timed out, TLS failure. */
export class TransportError extends SvcError {
  /** The underlying error's code, e.g. `ECONNREFUSED` or `UND_ERR_HEADERS_TIMEOUT`. */
  readonly causeCode: string;

  constructor(init: TransportInit) {
    // The transport's own message names hosts and addresses, never our request's body; redacted all the same.
    super("transport", init, oneLine(redact(`${init.causeCode} ${init.causeMessage}`)));
    this.causeCode = init.causeCode;
  }
}

export function isSvcError(e: unknown, code?: SvcErrorCode): e is SvcError {
  if (e === null || typeof e !== "object") return false;
  const branded = e instanceof SvcError || (e as Record<symbol, unknown>)[BRAND] === true;
  return branded && (code === undefined || (e as SvcError).code === code);
}

/**
 * Whether a failed write may still have acted on the server: the connection dropped, a 5xx, or a
 * 429 (a proxy may answer it after the server acted). Such an outcome is read back, never assumed.
 */
export function isAmbiguous(e: unknown): boolean {
  return isSvcError(e, "transport") || isSvcError(e, "server") || isSvcError(e, "rate_limited");
}

/** The error class for a non-2xx status. */
export function errorForStatus(status: number, init: SvcErrorInit): SvcError {
  const full = { ...init, status };
  if (status === 404) return new NotFoundError(full);
  if (status === 409) return new ConflictError(full);
  if (status === 401 || status === 403) return new ForbiddenError(full);
  if (status === 429) return new RateLimitedError(full);
  if (status === 400 || status === 422) return new InvalidInputError(full);
  return new ServerError(full);
}

const MAX_TEXT = 300;

/**
 * The server's messages from an error body. Runs: JSON:API `errors[]` objects (detail or
 * title, prefixed with the source pointer's last segment). Secrets: `errors` as strings.
 * Both shapes are accepted from either service; anything else falls back to the text.
 */
export function extractMessages(body: unknown): string[] {
  const errors = body !== null && typeof body === "object" ? (body as { errors?: unknown }).errors : undefined;
  if (Array.isArray(errors)) {
    const out: string[] = [];
    for (const e of errors) {
      if (typeof e === "string") out.push(e);
      else if (e !== null && typeof e === "object") {
        const o = e as { detail?: unknown; title?: unknown; source?: { pointer?: unknown } };
        const text = typeof o.detail === "string" && o.detail ? o.detail : typeof o.title === "string" ? o.title : "";
        if (!text) continue;
        const pointer = typeof o.source?.pointer === "string" ? o.source.pointer : "";
        const field = pointer.split("/").filter(Boolean).pop();
        out.push(field ? `${field}: ${text}` : text);
      }
    }
    if (out.length > 0) return out;
  }
  if (body === undefined || body === null || body === "") return [];
  // Redact before truncating so a cut can never leave half a secret behind.
  const text = oneLine(redact(typeof body === "string" ? body : JSON.stringify(body)));
  return text ? [text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text] : [];
}
