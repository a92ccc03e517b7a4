// Public surface of the shared HTTP client; other modules import from "../http" only.
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
export { redact, registerSecret, registerSecretField } from "./redact";
export { backoffDelay, isRetryableStatus, isRetryableTransport, isSafeRequest, parseRetryAfter } from "./retry";
