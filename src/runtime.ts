/**
 * The runtime entry (`pulumi-svc/runtime`): what the serialized trampoline requires in the provider
 * host. It dispatches a method call for a kind to the machinery in provider.ts.
 */
// First, before anything else loads: what is compiled from here on is kept for the next host.
import "./core/startCompileCache";
import { keepCompiled } from "./core/compileCache";
// Before anything requires zod: its locales are loaded when first used (a cold start's third of zod).
import "./core/zodLocales";
import type { ConfigSource } from "./core/config";
import { isSvcError } from "./http/errors";
import { quietHostLine } from "./http/quiet";
import { kindDefinition, loadedDefinition } from "./kinds";
import { dispatch, type Method } from "./core/connected";
import type { ResourceDefinition } from "./core/definition";
import * as machinery from "./core/provider";
import { forEngine, type CheckFailure } from "./core/validate";

let source: ConfigSource | undefined;

/** Called once per provider text by the host with the whole stack config (namespaced keys). */
export async function configure(req: { config: { get(key: string): unknown } }): Promise<void> {
  const configured: ConfigSource = (key) => {
    const v = req.config.get(key);
    return v === undefined || v === null ? undefined : String(v);
  };
  // The SDK's config object keeps the keys it was given as rawConfig (SDK 3.x); without it a
  // misspelt key cannot be named, and nothing else changes.
  const raw = (req.config as { rawConfig?: unknown }).rawConfig;
  if (raw !== null && typeof raw === "object") configured.keys = () => Object.keys(raw);
  // The CLI fixes a host's environment when it starts it: each variable is read once per
  // deployment, not at every operation (reading process.env is a call into Node, which costs a
  // configuration's check + CRUD about 40 µs: docs/performance.md).
  const env = new Map<string, string | undefined>();
  configured.env = (name) => {
    if (!env.has(name)) env.set(name, process.env[name]);
    return env.get(name);
  };
  configured.fixed = true;
  source = configured;
}

/** @internal The settings configure() made, as every call reads them (bench/run.ts calls definitions with them). */
export const configuredSource = (): ConfigSource | undefined => source;

export async function definition(kind: string): Promise<ResourceDefinition> {
  const def = await kindDefinition(kind);
  if (!def) throw new Error(`pulumi-svc: unknown resource kind "${kind}" (is the installed pulumi-svc older than the program's?)`);
  return def;
}

/** Every method goes through the connection layer (src/core/connected.ts), then the machinery. */
export async function call(kind: string, method: Method, args: unknown[]): Promise<unknown> {
  try {
    return await dispatch(machinery, loadedDefinition(kind) ?? (await definition(kind)), source, method, args);
  } catch (e) {
    // The host logs failures of these four itself; create and update failures go back only as gRPC errors.
    const logged = method !== "create" && method !== "update";
    if (logged && e instanceof Error && (isSvcError(e) || (e as { code?: unknown }).code === "config")) quietHostLine(e);
    throw e;
  } finally {
    keepCompiled(method);
  }
}

/** The check the engine calls (through the trampoline): failures in the form the engine prints well. */
export async function checkForEngine(kind: string, olds: unknown, news: unknown): Promise<unknown> {
  const checked = (await call(kind, "check", [olds, news])) as { inputs: unknown; failures: CheckFailure[] };
  return { ...checked, failures: forEngine(checked.failures) };
}

/**
 * @internal Forgets what this process kept of the deployments it served: the objects its creates
 * made and its resources hold, the values registered for redaction, its clients and their
 * connections, its servers' pauses, and the settings (until configure is called again).
 * pulumi-svc/testing calls it (src/engine/reuse.ts) before a provider host it keeps serves the
 * next deployment, which then starts as in a fresh host: the CLI starts one for each.
 */
export async function forgetDeployment(): Promise<void> {
  // Each module is imported here, not above: a host's first Check loads only what it uses.
  const [holders, creates, context, client, redact, limiter, quiet] = await Promise.all([
    import("./core/holders"), import("./core/createOnce"), import("./core/context"), import("./http/client"),
    import("./http/redact"), import("./http/limiter"), import("./http/quiet"),
  ]);
  holders.forgetHolders();
  creates.forgetCreates();
  context.forgetClients();
  redact.forgetRegistered();
  limiter.forgetGates();
  quiet.forgetQuietLines();
  source = undefined;
  await client.closeAgents();
}
