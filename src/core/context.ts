import { resolveServiceConfig, settingsKey, type ConfigSource } from "../config";
import { HttpClient, type Service } from "../http";
import type { Context } from "./definition";

// One client per distinct configuration per process, so connections are pooled across resources.
const clients = new Map<string, HttpClient>();

export function clientFor(service: Service, source?: ConfigSource, tokenOptional = false): HttpClient {
  const key = `${tokenOptional ? "tokenless" : "token"}\0${settingsKey(service, source)}`;
  let client = clients.get(key);
  if (!client) {
    const cfg = resolveServiceConfig(service, source, tokenOptional);
    client = new HttpClient({ ...cfg, onRetry: (r) => logLine(`retrying ${r.method} ${r.path} in ${r.delayMs} ms (${r.reason})`) });
    clients.set(key, client);
  }
  return client;
}

function logLine(message: string): void {
  try {
    const pulumi: typeof import("@pulumi/pulumi") = require("@pulumi/pulumi");
    pulumi.log.info(`pulumi-svc: ${message}`);
  } catch {
    process.stderr.write(`pulumi-svc: ${message}\n`);
  }
}

/**
 * With tokenOptional, clients are made without a token when none is configured (token-free endpoints).
 * A context serves one operation: its settings are resolved once per service, at its first request,
 * not again for each of the operation's requests.
 */
export function makeContext(source?: ConfigSource, tokenOptional = false): Context {
  let runs: HttpClient | undefined;
  let secrets: HttpClient | undefined;
  return {
    client: (service) => service === "runs"
      ? (runs ??= clientFor(service, source, tokenOptional))
      : (secrets ??= clientFor(service, source, tokenOptional)),
    log: logLine,
  };
}
