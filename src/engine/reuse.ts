/**
 * Provider hosts kept between the deployments of one process, for pulumi-svc/testing: a test
 * file's stacks (and each stack's operations) take a host that an earlier one left, instead of
 * starting one each (a Node process that loads the SDK and serves gRPC) and loading the provider
 * into it again. The CLI starts a host for every operation; a kept one must serve the next
 * deployment as that fresh one would, so it is kept only when nothing of the last can reach the next:
 *
 * - every provider it served is this package's (a program's own dynamic provider may keep state
 *   in its module, and the host caches each provider it has loaded);
 * - no call is in flight (a late create would act in the next deployment);
 * - before it serves again, it is configured with the next deployment's stack config, and the
 *   runtime forgets what it kept (src/runtime.ts, `forgetDeployment`: what creates made, what
 *   resources hold, the values registered for redaction, clients and their connections, the
 *   servers' pauses), in a Check of a provider made for that purpose, as the host calls its
 *   configure with the config it was just given.
 *
 * The provider reads its settings from Configure alone, never from the host's environment, so a
 * host started with one stack's config in its environment serves another's alike
 * (test/engine/testing-reuse.test.ts holds all of it). A kept host waits IDLE_MS, then ends.
 */
import * as path from "path";
import { compileCacheStart } from "../core/compileCache";
import { builtProviderText, providerModulePath, providerRequest } from "../core/providerText";
import { KIND_NAMES } from "../kinds";
import { ProviderHost, type HostOptions } from "./host";

/** How long a kept host waits for the next deployment before it ends. */
export const IDLE_MS = 5_000;

/** The runtime entry the providers load (as the trampoline finds it: by name, else by this path). */
const RUNTIME = require.resolve("pulumi-svc/runtime");

const OWN_TYPES = new Set(KIND_NAMES.map((k) => `pulumi-nodejs:dynamic/${k}`));

/**
 * Whether a provider text is one of this package's, for the resource type it served: the
 * text this package writes for its own built module of the kind (src/core/providerText.ts: an
 * installed package's one-line require, a checkout's require by name, else by path), or the
 * trampoline captured by value (which names the kind and requires the runtime entry).
 */
export function isOwnProvider(text: string, type: string): boolean {
  if (!OWN_TYPES.has(type)) return false;
  const kind = type.slice("pulumi-nodejs:dynamic/".length);
  // This package's file as it runs here, and the package installed under its own name.
  const own = [path.join(path.dirname(RUNTIME), providerModulePath(kind)), `/node_modules/${providerRequest(kind)}`];
  return own.some((file) => text.trimEnd() === builtProviderText(kind, file).trimEnd()) ||
    (text.includes("pulumi-svc/runtime") && text.includes(JSON.stringify(kind)));
}

/**
 * The provider whose configure makes the runtime forget the last deployment and take the next
 * one's config. Each text is new (`n`): the host configures a provider when it first loads its text.
 */
function forgetting(n: number): string {
  return `exports.handler = () => ({
  // Deployment ${n} in this host (src/engine/reuse.ts).
  async configure(req) {
    let runtime;
    try {
      runtime = require("pulumi-svc/runtime");
    } catch (e) {
      if (e.code !== "MODULE_NOT_FOUND") throw e;
      runtime = require(${JSON.stringify(RUNTIME)});
    }
    await runtime.forgetDeployment();
    await runtime.configure(req);
  },
  async check(olds, news) { return { inputs: news, failures: [] }; },
});
`;
}

const FORGET_URN = "urn:pulumi:reuse::reuse::pulumi-nodejs:dynamic:Forget::forget";

interface Kept {
  host: ProviderHost;
  timer: ReturnType<typeof setTimeout>;
}

export class HostPool {
  private readonly kept = new Map<string, Kept[]>();
  private deployments = 0;

  /** A host for a deployment with this stack config: one kept for the same folder and environment, else a new one. */
  async acquire(options: HostOptions, config: Record<string, string>): Promise<ProviderHost> {
    const list = this.kept.get(keyOf(options)) ?? [];
    for (let k = list.pop(); k !== undefined; k = list.pop()) {
      clearTimeout(k.timer);
      k.host.keepAlive(true);
      try {
        await prepare(k.host, config, ++this.deployments);
        return k.host;
      } catch {
        await k.host.close();
      }
    }
    // The compile cache from the host's first module on, @pulumi/pulumi's included: the next test
    // file's host starts about 0.2 s sooner (docs/performance.md#testing-your-program).
    const cache = compileCacheStart({ ...process.env, ...options.env });
    const host = await ProviderHost.start({ ...options, env: { ...cache.env, ...options.env }, preload: [...cache.preload, ...(options.preload ?? [])], endWithParent: true });
    await host.configure(config);
    return host;
  }

  /** Takes a host back after its deployment: kept when nothing of it can reach the next one, else closed. */
  async release(host: ProviderHost, options: HostOptions): Promise<void> {
    const own = [...host.providers].every(([text, type]) => isOwnProvider(text, type));
    if (!own || !host.idle) return host.close();
    try {
      await host.flushStderr();
    } catch {
      return host.close();
    }
    host.providers.clear();
    host.keepAlive(false);
    const key = keyOf(options);
    const list = this.kept.get(key) ?? [];
    this.kept.set(key, list);
    const kept: Kept = { host, timer: setTimeout(() => void this.end(key, kept), IDLE_MS) };
    kept.timer.unref();
    list.push(kept);
  }

  /** Ends every kept host. */
  async close(): Promise<void> {
    const all = [...this.kept.values()].flat();
    this.kept.clear();
    for (const k of all) clearTimeout(k.timer);
    await Promise.all(all.map((k) => k.host.close()));
  }

  private async end(key: string, kept: Kept): Promise<void> {
    const list = this.kept.get(key) ?? [];
    const at = list.indexOf(kept);
    if (at < 0) return;
    list.splice(at, 1);
    await kept.host.close();
  }
}

/** The stack config, then a fresh start of the runtime with it (see the module's comment). */
async function prepare(host: ProviderHost, config: Record<string, string>, n: number): Promise<void> {
  await host.configure(config);
  await host.check(FORGET_URN, {}, { __provider: forgetting(n) });
  host.providers.clear();
}

/** Hosts are kept per folder and environment, but the stack config, which Configure sends. */
function keyOf(options: HostOptions): string {
  const env = Object.entries(options.env ?? {}).filter(([k]) => k !== "PULUMI_CONFIG").sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([options.cwd, env]);
}
