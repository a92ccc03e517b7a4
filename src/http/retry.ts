// Retry policy: what may be repeated, on which failures, and how long to wait.
// A repeated POST may create a second object or perform an action twice, so only
// methods the caller marks safe are ever retried.

/** Methods that are safe to repeat unless the caller says otherwise. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "LIST", "PUT", "DELETE"]);

/** Statuses that signal a transient condition (overload, gateway trouble). */
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

// Failures where the request may simply not have reached a healthy server. TLS and
// argument errors are deliberately absent: repeating them cannot succeed.
const RETRYABLE_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

export function isSafeRequest(routeMethod: string, retry?: "safe" | "never"): boolean {
  if (retry !== undefined) return retry === "safe";
  return SAFE_METHODS.has(routeMethod) || SAFE_METHODS.has(routeMethod.toUpperCase());
}

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUS.has(status);
}

export function isRetryableTransport(code: string): boolean {
  return RETRYABLE_CODES.has(code);
}

/**
 * Milliseconds to wait according to a Retry-After header (delay-seconds or HTTP-date),
 * or undefined when absent or unreadable. A date in the past means "now" (0).
 */
export function parseRetryAfter(
  header: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Only accept something that looks like a date, so "-5" or "soon" are ignored.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * Exponential backoff with full jitter: a uniform delay in [0, min(cap, base * 2^(attempt-1))).
 * Jitter spreads parallel `pulumi up` runs so they do not retry in lock-step.
 * `attempt` counts retries from 1.
 */
export function backoffDelay(
  attempt: number,
  baseMs: number,
  capMs: number,
  random: () => number = Math.random,
): number {
  const exp = baseMs * Math.pow(2, Math.max(0, attempt - 1));
  const ceiling = Math.max(0, Math.min(capMs, exp));
  return Math.floor(random() * ceiling);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
