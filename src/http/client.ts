// The one HTTP client used by every resource and function. It is created at call time
// inside the dynamic-provider host and must never be captured by a serialized provider:
// undici is reached through its module object, agents are built lazily, no #private fields.
import { createHash } from "crypto";
import { STATUS_CODES } from "http";
import type { Agent } from "undici";
import {
  InvalidInputError,
  Problem,
  Service,
  SvcError,
  TransportError,
  errorForStatus,
  extractMessages,
} from "./errors";
import { registerSecret, registerSecretField } from "./redact";
import { DEFAULT_MAX_CONCURRENT_REQUESTS, gateFor, limitRule, type Gate } from "./limiter";
import { undiciAgent } from "./agentClass";

// The header every secrets-service request carries its token in: masked wherever a server echoes it.
registerSecretField("x-svc-token");
import { backoffDelay, isRetryableStatus, isRetryableTransport, isSafeRequest, parseRetryAfter, sleep } from "./retry";
import { parseRoute as readRoute, pathPieces } from "./route";

export interface RetryInfo {
  method: string;
  path: string;
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface ClientOptions {
  service: Service;
  /** Base address including the version segment (`.../api/v2`, `.../v1`); a trailing slash is fine. */
  baseUrl: string;
  token: string;
  /** Where the token came from (`stack config svc:secretsToken`, …), named when the service refuses it. */
  tokenFrom?: string;
  /** PEM text of the CA that signed the server's certificate (replaces the system roots). */
  caCert?: string;
  insecureTls?: boolean;
  /** Per attempt; default 30000. */
  requestTimeoutMs?: number;
  /** Default 4. */
  maxRetries?: number;
  /** Default 250. */
  retryBaseMs?: number;
  /** Cap for Retry-After and backoff; default 30000. */
  maxRetryDelayMs?: number;
  /**
   * Requests this client may have in flight to its server at once, counted with every other client
   * of the same server (origin and base path) in the process; default 16.
   */
  maxConcurrentRequests?: number;
  onRetry?: (info: RetryInfo) => void;
}

export interface RequestSpec {
  /** "METHOD /path/{param}", e.g. "GET /notification-configurations/{id}" or "LIST /{mount}/template". */
  route: string;
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean | string[] | undefined>;
  body?: unknown;
  /** Default: safe for GET, LIST, PUT, DELETE; never for POST and PATCH. */
  retry?: "safe" | "never";
  /**
   * Error statuses the caller expects (a 404 of an existence check): answered as a response, with
   * no error built, instead of thrown.
   */
  expect?: readonly number[];
}

export interface HttpResponse<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T | undefined;
}

export interface TlsOptions {
  caCert?: string;
  insecureTls?: boolean;
}

// undici is required on the first request, not when the module loads: a provider host's first
// Check validates before any request, and only its Agent is loaded (./agentClass).

// One pooled keep-alive Agent per distinct TLS configuration, per process. Keyed by a
// digest so the map holds no PEM text.
const agents = new Map<string, Agent>();

function agentKey(tls: TlsOptions): string {
  const ca = tls.caCert && tls.caCert.trim() ? tls.caCert : undefined;
  return `${tls.insecureTls ? "insecure" : "verify"}:${ca ? createHash("sha256").update(ca).digest("hex") : "system"}`;
}

export function agentFor(tls: TlsOptions, key = agentKey(tls)): Agent {
  const ca = tls.caCert && tls.caCert.trim() ? tls.caCert : undefined;
  let agent = agents.get(key);
  if (agent === undefined) {
    agent = new (undiciAgent())({ connect: { ...(ca ? { ca } : {}), rejectUnauthorized: !tls.insecureTls } });
    agents.set(key, agent);
  }
  return agent;
}

/** Close every pooled connection (tests, benchmarks, short-lived tools). */
export async function closeAgents(): Promise<void> {
  const all = [...agents.values()];
  agents.clear();
  await Promise.all(all.map((a) => a.close()));
}

let userAgentValue: string | undefined;

// Read lazily: the source lives in src/http/ and the compiled file in dist/src/http/.
function userAgent(): string {
  if (userAgentValue === undefined) {
    userAgentValue = "pulumi-svc";
    for (const rel of ["../../package.json", "../../../package.json"]) {
      try {
        const pkg = require(rel) as { name?: unknown; version?: unknown };
        if (pkg.name === "pulumi-svc" && typeof pkg.version === "string") {
          userAgentValue = `pulumi-svc/${pkg.version}`;
          break;
        }
      } catch {
        // Not found from this location (or no require in this runtime): try the next one.
      }
    }
  }
  return userAgentValue;
}

function encodeSegment(name: string, value: unknown, problems: Problem[]): string {
  if (typeof value !== "string" || value === "") {
    problems.push({ path: `params.${name}`, message: "must be a non-empty string" });
    return "";
  }
  // "." and ".." would be collapsed by URL parsing (even as %2E) and address another object.
  if (value === "." || value === "..") {
    problems.push({ path: `params.${name}`, message: `must not be "${value}"` });
    return "";
  }
  try {
    return encodeURIComponent(value);
  } catch {
    problems.push({ path: `params.${name}`, message: "must not contain a lone UTF-16 surrogate" });
    return "";
  }
}

/** A route split once into its method and the literal and parameter pieces of its path. */
interface ParsedRoute {
  method: string;
  /** Even indexes are literal text, odd indexes parameter names. */
  pieces: readonly string[];
}

const parsedRoutes = new Map<string, ParsedRoute | null>();

function parseRoute(route: unknown): ParsedRoute | null {
  if (typeof route !== "string") return null;
  let parsed = parsedRoutes.get(route);
  if (parsed === undefined) {
    const read = readRoute(route);
    parsed = read ? { method: read.method, pieces: pathPieces(read.path) } : null;
    // Routes are data written in the source: a handful per kind, so the map stays small.
    parsedRoutes.set(route, parsed);
  }
  return parsed;
}

function buildPath(pieces: readonly string[], params: Record<string, string>, problems: Problem[]): string {
  let out = pieces[0];
  for (let i = 1; i < pieces.length; i += 2) {
    const name = pieces[i];
    if (!Object.prototype.hasOwnProperty.call(params, name)) {
      problems.push({ path: `params.${name}`, message: "is required by the route" });
    } else {
      const value = params[name];
      // Engines can be mounted at nested paths ("transform/eu"), so a mount keeps its slashes.
      if (name === "mount" && typeof value === "string") {
        const segments = value.replace(/^\/+|\/+$/g, "").split("/");
        out += segments.map((s) => encodeSegment(name, s, problems)).join("/");
      } else {
        out += encodeSegment(name, value, problems);
      }
    }
    out += pieces[i + 1];
  }
  return out;
}

// Query keys are the routes' own words (`page[number]`, `list`): each is encoded once.
const encodedKeys = new Map<string, string>();
function encodedKey(key: string): string {
  let encoded = encodedKeys.get(key);
  if (encoded === undefined) {
    encoded = encodeURIComponent(key);
    if (encodedKeys.size < 256) encodedKeys.set(key, encoded);
  }
  return encoded;
}

function buildQuery(query: RequestSpec["query"], list: boolean): string {
  if (query === undefined && !list) return "";
  const parts: string[] = [];
  const all: Record<string, unknown> = list ? { ...query, list: "true" } : query ?? {};
  for (const [key, value] of Object.entries(all)) {
    if (value === undefined || value === null) continue;
    // An empty list means "no filter", so it is omitted rather than sent as `key=`.
    if (Array.isArray(value) && value.length === 0) continue;
    const encoded = Array.isArray(value)
      ? value.map((v) => encodeURIComponent(String(v))).join(",")
      : encodeURIComponent(String(value));
    parts.push(`${encodedKey(key)}=${encoded}`);
  }
  return parts.length > 0 ? `?${parts.join("&")}` : "";
}

function parseBody(status: number, text: string, contentType: string | string[] | undefined): unknown {
  if (status === 204 || text.length === 0 || !/\S/.test(text)) return undefined;
  const type = Array.isArray(contentType) ? contentType.join(",") : (contentType ?? "");
  if (type.includes("json") || /json/i.test(type) || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // Malformed JSON is still worth showing as text (for example in an error message).
    }
  }
  return text;
}

function causeOf(e: unknown): { code: string; message: string } {
  const err = (e ?? {}) as { code?: unknown; message?: unknown; cause?: { code?: unknown }; errors?: unknown };
  const code =
    typeof err.code === "string" ? err.code : typeof err.cause?.code === "string" ? err.cause.code : "UNKNOWN";
  let message = typeof err.message === "string" ? err.message : String(e);
  // Node reports a failed multi-address connect as an AggregateError with an empty message.
  if (!message && Array.isArray(err.errors) && err.errors[0] instanceof Error) message = err.errors[0].message;
  return { code, message };
}

interface Prepared {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  safe: boolean;
}

interface Received {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One exchange through undici's dispatcher, the body gathered as bytes and decoded once. undici's
 * request() wraps every response in a Node stream and an async resource; for the small JSON
 * documents of these services that wrapping costs more CPU than the exchange itself (bench/run.ts).
 */
function send(agent: Agent, origin: string, path: string, p: Prepared, timeout: number): Promise<Received> {
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    let headers: Received["headers"] = {};
    const chunks: Buffer[] = [];
    agent.dispatch({ origin, path, method: p.method as "GET", headers: p.headers, body: p.body, headersTimeout: timeout, bodyTimeout: timeout }, {
      // Present so undici drives this handler through its controller interface (its newer one).
      onRequestStart() {},
      onResponseStart(_controller, status, responseHeaders) {
        statusCode = status;
        headers = responseHeaders as Received["headers"];
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        const text = chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks).toString("utf8");
        resolve({ statusCode, headers, text });
      },
      onResponseError(_controller, error) {
        reject(error);
      },
    });
  });
}

export class HttpClient {
  private readonly options: ClientOptions;
  private readonly base: string;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly tlsKey: string;
  private readonly gate: Gate;
  private readonly limit: number;
  private headers?: Record<string, string>;
  private bodyHeaders?: Record<string, string>;

  constructor(options: ClientOptions) {
    const problems: Problem[] = [];
    if (options.service !== "runs" && options.service !== "secrets") {
      problems.push({ path: "service", message: 'must be "runs" or "secrets"' });
    }
    let base = "";
    let origin = "";
    let basePath = "";
    try {
      const u = new URL(options.baseUrl);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
      base = options.baseUrl.replace(/\/+$/, "");
      // Split once: each request then sends the path it built, with no URL parsed per request.
      origin = `${u.protocol}//${u.host}`;
      basePath = u.pathname.replace(/\/+$/, "");
    } catch {
      problems.push({ path: "baseUrl", message: "must be an http or https URL" });
    }
    if (typeof options.token !== "string") problems.push({ path: "token", message: "must be a string" });
    else registerSecret(options.token);
    const limit = options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT_REQUESTS;
    const badLimit = limitRule(limit);
    if (badLimit) problems.push({ path: "maxConcurrentRequests", message: badLimit });
    if (problems.length > 0) throw new InvalidInputError(problems, { service: options.service });
    this.options = options;
    this.base = base;
    this.origin = origin;
    this.basePath = basePath;
    this.tlsKey = agentKey(options);
    this.gate = gateFor(origin + basePath);
    this.limit = limit;
  }

  /** The service's base URL, without a trailing slash. */
  get baseUrl(): string {
    return this.base;
  }

  async request<T = unknown>(spec: RequestSpec): Promise<HttpResponse<T>> {
    const o = this.options;
    const p = this.prepare(spec);
    const maxRetries = p.safe ? Math.max(0, o.maxRetries ?? 4) : 0;
    const baseMs = o.retryBaseMs ?? 250;
    const capMs = o.maxRetryDelayMs ?? 30000;
    const timeout = o.requestTimeoutMs ?? 30000;

    for (let attempt = 0; ; attempt++) {
      let error: SvcError;
      let retryable: boolean;
      let retryAfterMs: number | undefined;
      let reason: string;
      try {
        // A retry goes first: it has waited its turn already, and the pause a 429 set is honoured here.
        const turn = this.gate.enter(this.limit, attempt > 0);
        if (turn) await turn;
        let res: Received;
        try {
          res = await send(agentFor(o, this.tlsKey), this.origin, this.basePath + p.path, p, timeout);
        } finally {
          this.gate.leave();
        }
        const body = parseBody(res.statusCode, res.text, res.headers["content-type"]);
        if ((res.statusCode >= 200 && res.statusCode < 300) || spec.expect?.includes(res.statusCode)) {
          return { status: res.statusCode, headers: res.headers, body: body as T | undefined };
        }
        retryAfterMs = parseRetryAfter(res.headers["retry-after"]);
        // 429 is about the server, not this request: every request to it waits, retried or not.
        if (res.statusCode === 429 && retryAfterMs !== undefined) this.gate.pause(Math.min(retryAfterMs, capMs));
        const messages = extractMessages(body);
        // A refused token is most often the wrong one: say which setting it came from.
        if ((res.statusCode === 401 || res.statusCode === 403) && o.tokenFrom) messages.push(`check the token (from ${o.tokenFrom})`);
        error = errorForStatus(res.statusCode, { service: o.service, method: p.method, path: p.path, messages, retryAfterMs });
        retryable = isRetryableStatus(res.statusCode);
        reason = `${res.statusCode} ${STATUS_CODES[res.statusCode] ?? "Error"}`;
      } catch (e) {
        const cause = causeOf(e);
        error = new TransportError({ service: o.service, method: p.method, path: p.path, causeCode: cause.code, causeMessage: cause.message, cause: e });
        retryable = isRetryableTransport(cause.code);
        reason = cause.code;
      }
      if (!retryable || attempt >= maxRetries) throw error;
      const delayMs =
        retryAfterMs !== undefined ? Math.min(retryAfterMs, capMs) : backoffDelay(attempt + 1, baseMs, capMs);
      try {
        o.onRetry?.({ method: p.method, path: p.path, attempt: attempt + 1, delayMs, reason });
      } catch {
        // A logging hook must not change the outcome of a request.
      }
      // After a 429 with Retry-After the gate holds every request back, this one included.
      if (!(retryAfterMs !== undefined && error.status === 429)) await sleep(delayMs);
    }
  }

  private prepare(spec: RequestSpec): Prepared {
    const o = this.options;
    const route = parseRoute(spec.route);
    if (!route) throw new InvalidInputError([{ path: "route", message: `is not "METHOD /path": ${String(spec.route)}` }], { service: o.service });
    const routeMethod = route.method;
    const problems: Problem[] = [];
    const pathOnly = buildPath(route.pieces, spec.params ?? {}, problems);
    // LIST is not an HTTP method Node's parser or most proxies accept: send GET ?list=true.
    const isList = routeMethod === "LIST";
    const method = isList ? "GET" : routeMethod;
    const path = pathOnly + buildQuery(spec.query, isList);
    if (problems.length > 0) throw new InvalidInputError(problems, { service: o.service, method, path: route.pieces.map((p, i) => (i % 2 ? `{${p}}` : p)).join("") });

    let body: string | undefined;
    if (spec.body !== undefined) {
      try {
        body = JSON.stringify(spec.body);
      } catch (e) {
        throw new InvalidInputError([{ path: "body", message: `cannot be encoded as JSON: ${causeOf(e).message}` }], {
          service: o.service,
          method,
          path,
        });
      }
    }
    const headers = body === undefined ? (this.headers ??= this.headersOf(false)) : (this.bodyHeaders ??= this.headersOf(true));
    return { method, path, headers, body, safe: isSafeRequest(routeMethod, spec.retry) };
  }

  /** The same for every request of this client: built once (undici only reads them). */
  private headersOf(withBody: boolean): Record<string, string> {
    const o = this.options;
    const json = o.service === "runs" ? "application/vnd.api+json" : "application/json";
    const headers: Record<string, string> = { "user-agent": userAgent(), accept: json };
    if (o.token) {
      if (o.service === "runs") headers.authorization = `Bearer ${o.token}`;
      else headers["x-svc-token"] = o.token;
    }
    if (withBody) headers["content-type"] = json;
    return headers;
  }
}
