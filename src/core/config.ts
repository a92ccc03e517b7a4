/**
 * Endpoints, credentials and tuning. Read only at call time: a value captured when the program loads
 * would be serialized into every resource's state (a dynamic provider is serialized with what it captures), so nothing here is cached across
 * configure() calls except what configure() itself hands over.
 */
import type { ClientOptions, Service } from "../http";
import { limitRule } from "../http/limiter";
import { markExpected } from "../http/quiet";
import { redact, registerOwnWords } from "../http/redact";
import { nearest } from "./validate";

/** One setting: its stack config key, its environment variable, and what it is for. */
interface Setting {
  key: string;
  env: string;
  about: string;
  /** A credential: set with `pulumi config set --secret`, so the stack's config file never holds it in plaintext. */
  secret?: true;
  /** Not secret although its key says "secret": the CLI wants `--plaintext` to store it. */
  plaintext?: true;
  /** What the value looks like, in the suggested command. */
  example?: string;
}

export const SETTINGS = {
  runUrl: { key: "svc:runUrl", env: "SVC_RUN_URL", about: "run service base URL ending in /api/v2", example: "https://<host>/api/v2" },
  runToken: { key: "svc:runToken", env: "SVC_RUN_TOKEN", about: "run service API token", secret: true, example: "<token>" },
  secretsUrl: { key: "svc:secretsUrl", env: "SVC_SECRETS_URL", about: "secrets service base URL ending in /v1", plaintext: true, example: "https://<host>/v1" },
  secretsToken: { key: "svc:secretsToken", env: "SVC_SECRETS_TOKEN", about: "secrets service token", secret: true, example: "<token>" },
  caCert: { key: "svc:caCert", env: "SVC_CA_CERT", about: "PEM CA certificate (text or a file path)" },
  insecureTls: { key: "svc:insecureTls", env: "SVC_INSECURE_TLS", about: "skip TLS verification (true/false)" },
  requestTimeoutMs: { key: "svc:requestTimeoutMs", env: "SVC_REQUEST_TIMEOUT_MS", about: "per-request timeout" },
  maxRetries: { key: "svc:maxRetries", env: "SVC_MAX_RETRIES", about: "retries of safe requests" },
  maxConcurrentRequests: { key: "svc:maxConcurrentRequests", env: "SVC_MAX_CONCURRENT_REQUESTS", about: "requests in flight to one server at once, per process" },
} satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

// "svc:secretsToken" stays readable in a message about a token that contains "secrets".
registerOwnWords(Object.values(SETTINGS).flatMap((s) => [s.key, s.env, s.about]));

/**
 * A source of raw setting values: the provider's configure() hook or the program's stack config.
 * `origin` names where a key's value really came from when the source is layered (a connection).
 */
export interface ConfigSource {
  (key: string): string | undefined;
  origin?: (key: string) => string | undefined;
  /** Every stack config key the source holds, where it can tell (to name a misspelt `svc:` key). */
  keys?: () => readonly string[];
  /**
   * The environment variables the settings fall back to, where the source reads them its own way
   * (a provider host's: once per deployment, src/runtime.ts); else `process.env` at each lookup.
   */
  env?: (name: string) => string | undefined;
  /** Its values do not change while it is in use (a provider host's, between two configures). */
  fixed?: true;
}

/**
 * Values worked out from a fixed source (a provider host's, between two configures), each made once
 * per source and key: later operations find them without resolving the settings again. Not for a
 * source that is not fixed, whose values may change under it.
 */
export function perFixedSource<K, V>(): { get(source: ConfigSource, key: K, make: () => V): V; clear(): void } {
  let made = new WeakMap<ConfigSource, Map<K, V>>();
  return {
    get(source, key, make) {
      let ofSource = made.get(source);
      if (!ofSource) made.set(source, (ofSource = new Map()));
      let v = ofSource.get(key);
      if (v === undefined && !ofSource.has(key)) ofSource.set(key, (v = make()));
      return v as V;
    },
    clear: () => { made = new WeakMap(); },
  };
}

/** An environment variable as the source reads it. */
const envOf = (source: ConfigSource | undefined, name: string): string | undefined => (source?.env ? source.env(name) : process.env[name]);

/** What a client of one service needs, as resolved from config and environment. */
export type ServiceConfig = Pick<ClientOptions, "service" | "baseUrl" | "token" | "tokenFrom" | "caCert" | "insecureTls" | "requestTimeoutMs" | "maxRetries" | "maxConcurrentRequests">;

/** A setting that is missing or unusable. Its message is redacted like every error's. */
export class ConfigError extends Error {
  /** Always `config`. */
  readonly code = "config";
  constructor(message: string) {
    super(redact(message));
    markExpected(this);
  }
}

/**
 * What a rejected URL setting looked like, without its value: a token pasted into a URL setting
 * must not be printed. Only the scheme and whether a host follows are shown.
 */
function urlShape(value: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]{0,15}):(\/\/)?/.exec(value);
  if (!m) return `a value of ${value.length} characters that does not start with a scheme such as https://`;
  const rest = value.slice(m[0].length);
  return `a "${m[1]}:${m[2] ?? ""}" URL ${/^[^/\s?#]+/.test(rest) ? "with a host" : "without a host"}`;
}

export function lookup(source: ConfigSource | undefined, name: SettingName): string | undefined {
  return valueOf(source, SETTINGS[name]);
}

/** Where a setting's value comes from, for messages: the connection, the stack config key or the variable. */
export function originOf(source: ConfigSource | undefined, name: SettingName): string {
  const s = SETTINGS[name];
  const layered = source?.origin?.(s.key);
  if (layered !== undefined) return layered;
  const fromConfig = source?.(s.key);
  return fromConfig !== undefined && fromConfig !== "" ? `stack config ${s.key}` : `environment variable ${s.env}`;
}

/** A setting's value: stack config first, then the environment; undefined when neither has one. */
function valueOf(source: ConfigSource | undefined, s: Setting): string | undefined {
  const fromConfig = source?.(s.key);
  if (fromConfig !== undefined && fromConfig !== "") return fromConfig;
  const fromEnv = envOf(source, s.env);
  return fromEnv === undefined || fromEnv === "" ? undefined : fromEnv;
}

function required(source: ConfigSource | undefined, name: SettingName): string {
  const value = lookup(source, name);
  if (value === undefined) throw new ConfigError(missingMessage(name, source));
  return value;
}

function integer(source: ConfigSource | undefined, name: SettingName): number | undefined {
  const raw = lookup(source, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) {
    const s = SETTINGS[name];
    throw new ConfigError(`${s.key} / ${s.env} must be a non-negative integer, got "${raw}"`);
  }
  return n;
}

/** A count of at least 1, refused naming where the value came from (a connection, or the key and variable). */
function positive(source: ConfigSource | undefined, name: SettingName): number | undefined {
  const raw = lookup(source, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  const problem = limitRule(n);
  if (!problem) return n;
  const s = SETTINGS[name];
  const layered = source?.origin?.(s.key);
  throw new ConfigError(`${layered ?? `${s.key} / ${s.env}`} ${problem}, got "${raw}"`);
}

function bool(source: ConfigSource | undefined, name: SettingName): boolean | undefined {
  const raw = lookup(source, name);
  if (raw === undefined) return undefined;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  const s = SETTINGS[name];
  throw new ConfigError(`${s.key} / ${s.env} must be true or false, got "${raw}"`);
}

/** A CA given as a path is read here so users can point at a file in config. */
function caCert(source: ConfigSource | undefined): string | undefined {
  const raw = lookup(source, "caCert");
  if (raw === undefined || raw.includes("-----BEGIN")) return raw;
  const fs: typeof import("fs") = require("fs");
  return fs.readFileSync(raw, "utf8");
}

const SERVICE_SETTINGS = {
  runs: { url: "runUrl", token: "runToken" },
  secrets: { url: "secretsUrl", token: "secretsToken" },
} as const satisfies Record<Service, { url: SettingName; token: SettingName }>;

/** The URL and token settings of one service. */
export function serviceSettings(service: Service): (typeof SERVICE_SETTINGS)[Service] {
  return service === "runs" ? SERVICE_SETTINGS.runs : SERVICE_SETTINGS.secrets;
}

/** Every setting a client of each service depends on, in a fixed order (see settingValues). */
const CLIENT_SETTINGS: Record<Service, readonly Setting[]> = {
  runs: [SETTINGS.runUrl, SETTINGS.runToken, SETTINGS.caCert, SETTINGS.insecureTls, SETTINGS.requestTimeoutMs, SETTINGS.maxRetries, SETTINGS.maxConcurrentRequests],
  secrets: [SETTINGS.secretsUrl, SETTINGS.secretsToken, SETTINGS.caCert, SETTINGS.insecureTls, SETTINGS.requestTimeoutMs, SETTINGS.maxRetries, SETTINGS.maxConcurrentRequests],
};

/** Longest base URL: servers and proxies refuse request lines much past 8 KB, and routes come on top. */
export const MAX_URL_LENGTH = 2048;

/** `http://h/v1/` and `http://h/v1` are the same server: compared and recorded without trailing slashes. */
export function normaliseBaseUrl(url: string): string {
  return url.replace(/\/+$/, "");
}

/**
 * Why a base URL is unusable, or undefined when it is a plain http(s) base URL. Requests are made by
 * appending a route to it, so anything that makes URL parsing send them elsewhere, or that would be
 * recorded in a resource's state (`serverUrl` is not secret), is refused. The value is never quoted.
 */
export function baseUrlProblem(url: string): string | undefined {
  // Every check asks about the same few URLs (each resource's server): the answer is the URL's alone.
  if (checkedUrls.has(url)) return checkedUrls.get(url);
  const problem = urlProblem(url);
  if (checkedUrls.size >= MAX_CHECKED_URLS) checkedUrls.clear();
  checkedUrls.set(url, problem);
  return problem;
}

const checkedUrls = new Map<string, string | undefined>();
const MAX_CHECKED_URLS = 64;

function urlProblem(url: string): string | undefined {
  if (url.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters long (a base URL; routes are appended to it), got ${url.length}`;
  if (!/^https?:\/\/[^/\s]/.test(url)) return `must be an http(s) URL, got ${urlShape(url)}`;
  const authority = /^https?:\/\/([^/?#\\]*)/.exec(url)![1];
  if (authority.includes("@")) {
    return "must not contain a user name or password (user:password@host): it would be recorded in each resource's state as serverUrl, which is not secret; give a credential as the token (connection.token, or the svc:*Token setting)";
  }
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(url)) return "must not contain whitespace or control characters (URL parsing drops some of them silently)";
  if (url.includes("\\")) return "must not contain a backslash (URL parsing reads it as /)";
  if (url.includes("?")) return "must not contain a query (?...): it is a base URL, routes are appended to it";
  if (url.includes("#")) return "must not contain a fragment (#...): it is a base URL, routes are appended to it";
  const path = url.slice(url.indexOf("//") + 2 + authority.length);
  if (path.split("/").some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) {
    return 'must not contain "." or ".." path segments (also written %2e): URL parsing resolves them, so requests would go to another path';
  }
  try {
    new URL(url);
  } catch {
    return "must be a valid URL (its host or port does not parse)";
  }
  return undefined;
}

/** A URL without its user name and password, for states recorded before such URLs were refused. */
export function withoutCredentials(url: string): string {
  if (!url.includes("@")) return url;
  return url.replace(/^(https?:\/\/)[^/?#\\]*@/i, "$1");
}

/**
 * What a service still lacks before any request can be made, as messages naming the stack config
 * key and the environment variable (empty when the URL and token are configured). Used by check so
 * a missing setting fails the preview rather than the first `up`.
 */
export function missingSettings(service: Service, source?: ConfigSource): string[] {
  const names = serviceSettings(service);
  return [names.url, names.token].filter((n) => lookup(source, n) === undefined).map((n) => missingMessage(n, source));
}

/**
 * The message for a setting with no value, naming its stack config key (with the command that sets
 * it, `--secret` for a credential) and environment variable; one that is set but empty (an unset
 * shell variable in `pulumi config set svc:runToken "$TOKEN"`) is said to be empty.
 */
export function missingMessage(name: SettingName, source?: ConfigSource): string {
  const s: Setting = SETTINGS[name];
  const set = `set stack config "${s.key}" (pulumi config set ${s.secret ? "--secret " : s.plaintext ? "--plaintext " : ""}${s.key} ${s.example ?? "<value>"}) or environment variable ${s.env}`;
  const empty = source?.(s.key) === "" ? `stack config ${s.key}` : envOf(source, s.env) === "" ? `environment variable ${s.env}` : undefined;
  if (empty !== undefined) return `${s.about} is empty: ${empty} is set to an empty string (an unset shell variable?); ${set}`;
  const misspelt = misspeltFor(source, s.key);
  return `missing ${s.about}: ${set}${misspelt ? ` (${misspelt} is set: did you mean ${s.key}?)` : ""}`;
}

const KNOWN_KEYS = new Set(Object.values(SETTINGS).map((s: Setting) => s.key));

/**
 * Each `svc:` key of the stack config that is no setting of this package, with the setting it is
 * probably a misspelling of. Pulumi hands the provider every key, so a typo is found, not ignored.
 */
export function unknownSettings(source: ConfigSource | undefined): string[] {
  return (source?.keys?.() ?? []).filter((k) => k.startsWith("svc:") && !KNOWN_KEYS.has(k)).sort().map((k) => {
    const near = nearest(k, KNOWN_KEYS);
    return `unknown setting ${k}: ${near ? `did you mean ${near}?` : `the settings are ${[...KNOWN_KEYS].join(", ")}`}`;
  });
}

/** A key of the source that is not a setting and is nearest to `key`, if any is near. */
function misspeltFor(source: ConfigSource | undefined, key: string): string | undefined {
  return (source?.keys?.() ?? []).find((k) => k.startsWith("svc:") && !KNOWN_KEYS.has(k) && nearest(k, KNOWN_KEYS) === key);
}

/**
 * The raw values of every setting a client of `service` depends on (URL first), and where its token
 * came from: equal values
 * resolve to equal clients, so a client can be reused without resolving (and, for a CA given as a
 * path, reading) its settings again.
 */
export function settingValues(service: Service, source?: ConfigSource): string[] {
  const values = (service === "runs" ? CLIENT_SETTINGS.runs : CLIENT_SETTINGS.secrets).map((s) => valueOf(source, s) ?? "");
  // The same token from another setting is another client: its errors name where it came from.
  values.push(originOf(source, serviceSettings(service).token));
  return values;
}

/** Resolves everything a client of one service needs; throws a ConfigError naming key and variable. */
export function resolveServiceConfig(service: Service, source?: ConfigSource, tokenOptional = false): ServiceConfig {
  const names = serviceSettings(service);
  const baseUrl = required(source, names.url);
  const problem = baseUrlProblem(baseUrl);
  if (problem) throw new ConfigError(`${SETTINGS[names.url].key} / ${SETTINGS[names.url].env} ${problem}`);
  return {
    service,
    baseUrl,
    // An endpoint that needs no token (replication status) is called without one when none is set.
    token: tokenOptional ? lookup(source, names.token) ?? "" : required(source, names.token),
    tokenFrom: originOf(source, names.token),
    caCert: caCert(source),
    insecureTls: bool(source, "insecureTls"),
    requestTimeoutMs: integer(source, "requestTimeoutMs"),
    maxRetries: integer(source, "maxRetries"),
    maxConcurrentRequests: positive(source, "maxConcurrentRequests"),
  };
}
