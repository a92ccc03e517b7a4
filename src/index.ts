/** pulumi-svc: resources and functions of the run-orchestration and secrets services. */
export * as runs from "./runs";
export * as secrets from "./secrets";
export { SvcError, NotFoundError, ConflictError, ForbiddenError, RateLimitedError, InvalidInputError, ServerError, TransportError } from "./http";
export { ConfigError, SETTINGS } from "./core/config";
