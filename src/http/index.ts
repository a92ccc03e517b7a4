// Public surface of the shared HTTP client; other modules import from "../http", except those on
// the way to a provider host's first Check, which make no request: they take errors and redaction
// from "./errors" and "./redact" directly, so the client and its retry rules are not loaded for it.
export { HttpClient, agentFor, closeAgents } from "./client";
export type { ClientOptions, HttpResponse, RequestSpec, RetryInfo, TlsOptions } from "./client";
export {
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  SvcError,
  TransportError,
  errorForStatus,
  extractMessages,
  isAmbiguous,
  isSvcError,
} from "./errors";
export type { Problem, Service, SvcErrorCode, SvcErrorInit, TransportInit } from "./errors";
export { redact, redactOwn, registerSecret, registerSecretField } from "./redact";
export { backoffDelay, isRetryableStatus, isRetryableTransport, isSafeRequest, parseRetryAfter } from "./retry";
