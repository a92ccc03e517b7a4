import { perFixedSource, resolveServiceConfig, settingValues, type ConfigSource } from "./config";
import { HttpClient, redactOwn, type Service } from "../http";
import type { Context } from "./definition";
import { logToEngine } from "./engineLog";
// Every operation and function builds its context here: the secret fields are known to redaction first.

interface Pooled {
  service: Service;
  tokenOptional: boolean;
  values: string[];
  client: HttpClient;
}

// One client per distinct configuration per process, so connections are pooled across resources.
// Found by URL, then by comparing the other values: no key string is built and hashed per operation.
const clients = new Map<string, Pooled[]>();

// A fixed source (a provider host's) resolves to the same client every time: found without its settings.
const bySource = perFixedSource<string, HttpClient>();

/** Forgets every client (and so the tokens they registered), for a process that serves another deployment next. */
export function forgetClients(): void {
  clients.clear();
  bySource.clear();
}

const sameValues = (a: string[], b: string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

export function clientFor(service: Service, source?: ConfigSource, tokenOptional = false): HttpClient {
  if (!source?.fixed) return pooledClient(service, source, tokenOptional);
  return bySource.get(source, tokenOptional ? `${service}?` : service, () => pooledClient(service, source, tokenOptional));
}

function pooledClient(service: Service, source: ConfigSource | undefined, tokenOptional: boolean): HttpClient {
  const values = settingValues(service, source);
  let pooled = clients.get(values[0]);
  const hit = pooled?.find((p) => p.service === service && p.tokenOptional === tokenOptional && sameValues(p.values, values));
  if (hit) return hit.client;
  const cfg = resolveServiceConfig(service, source, tokenOptional);
  const client = new HttpClient({ ...cfg, onRetry: (r) => logLine(`retrying ${r.method} ${r.path} in ${r.delayMs} ms (${r.reason})`) });
  if (!pooled) clients.set(values[0], (pooled = []));
  pooled.push({ service, tokenOptional, values, client });
  return client;
}

function logLine(message: string, urn?: string, severity: "info" | "warning" = "info"): void {
  // Progress lines are the package's own words, naming inputs and paths; the errors they quote were
  // redacted as errors. Whole secrets are masked again here, as on every line leaving the provider.
  const line = `pulumi-svc: ${redactOwn(message)}`;
  if (urn && logToEngine(line, urn, severity)) return;
  try {
    const pulumi: typeof import("@pulumi/pulumi") = require("@pulumi/pulumi");
    if (severity === "warning") pulumi.log.warn(line);
    else pulumi.log.info(line);
  } catch {
    process.stderr.write(`${line}\n`);
  }
}

/**
 * With tokenOptional, clients are made without a token when none is configured (token-free endpoints).
 * A context serves one operation: its settings are resolved once per service, at its first request,
 * not again for each of the operation's requests.
 */
export function makeContext(source?: ConfigSource, tokenOptional = false, urn?: string): Context {
  let runs: HttpClient | undefined;
  let secrets: HttpClient | undefined;
  return {
    client: (service) => service === "runs"
      ? (runs ??= clientFor(service, source, tokenOptional))
      : (secrets ??= clientFor(service, source, tokenOptional)),
    log: (message) => logLine(message, urn),
    warn: (message) => logLine(message, urn, "warning"),
    ...(urn !== undefined ? { urn } : {}),
  };
}
