import { Faults } from "./faults";
import { Log, Sinks, type DeliveryEntry, type RequestEntry } from "./logs";
import { startAutoAdvance } from "./runs/run-progress";
import { RunService } from "./runs/run-service";
import type { Runtime } from "./runtime";
import { listen } from "./server";
import { DEFAULT_ORGANIZATION, DEFAULT_WORKSPACE_ID, type EmulatorTokens } from "./state";
import { Store } from "./store";

export type { EmulatorTokens } from "./state";

export interface EmulatorOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Address to bind; defaults to 127.0.0.1. */
  host?: string;
  /** JSON file holding all objects, tokens and mounts across restarts. */
  statePath?: string;
  /** Fixed tokens; the rest are random per start unless the state file has them. */
  tokens?: Partial<EmulatorTokens>;
  /** Time limit for outbound verification requests and notifications; defaults to 10000 ms. */
  deliveryTimeoutMs?: number;
  /** Delay between a run's cancel and the moment force-cancel becomes available; defaults to 60000 ms. */
  forceCancelCooloffMs?: number;
  /** When > 0 every active run moves one status step per tick of this many ms; defaults to 0 (off). */
  autoAdvanceMs?: number;
}

export interface Emulator {
  url: string;
  runUrl: string;
  secretsUrl: string;
  controlUrl: string;
  tokens: EmulatorTokens;
  organization: string;
  workspaceId: string;
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? "127.0.0.1";
  const store = new Store(options.statePath, options.tokens);
  const abort = new AbortController();
  const rt: Runtime = {
    store,
    requests: new Log<RequestEntry>(),
    deliveries: new Log<DeliveryEntry>(),
    faults: new Faults(),
    sinks: new Sinks(),
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? 10_000,
    closing: abort.signal,
    runService: new RunService({ forceCancelCooloffMs: options.forceCancelCooloffMs, autoAdvanceMs: options.autoAdvanceMs }),
  };
  const server = await listen(rt, abort, host, options.port ?? 0);
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${server.port}`;
  rt.runService.baseUrl = url;
  startAutoAdvance(rt);
  return {
    url,
    runUrl: `${url}/api/v2`,
    secretsUrl: `${url}/v1`,
    controlUrl: `${url}/_emulator`,
    tokens: { ...store.tokens },
    organization: DEFAULT_ORGANIZATION,
    workspaceId: DEFAULT_WORKSPACE_ID,
    close: () => server.close(),
  };
}
