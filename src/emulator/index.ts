import { Faults } from "./faults";
import { isIP } from "node:net";
import { Log, Sinks, type DeliveryEntry, type RawRequestEntry } from "./logs";
import { startAutoAdvance } from "./runs/run-progress";
import { RunService } from "./runs/run-service";
import type { Runtime } from "./runtime";
import { KeyedSerial } from "./serial";
import { CONTROL_TOKEN_HEADER, listen } from "./server";
import { DEFAULT_ORGANIZATION, DEFAULT_WORKSPACE_ID, type EmulatorTokens } from "./state";
import { Store } from "./store";
import { randomHex } from "./util";

export type { EmulatorTokens } from "./state";

export interface EmulatorOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Address to bind; defaults to 127.0.0.1. */
  host?: string;
  /** File holding all objects, tokens and mounts across restarts, sealed with AES-256-GCM. */
  statePath?: string;
  /** Durability window of statePath in ms: a write reaches the file at most this long after it; defaults to 1000. */
  flushMs?: number;
  /**
   * Token the control endpoints (/_emulator) require in the x-emulator-control-token header. Off on
   * loopback; when host is anything else and this is absent, a random one is made (see Emulator.controlToken).
   */
  controlToken?: string;
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
  /** Set when control endpoints need it: send it as the `x-emulator-control-token` header. */
  controlToken?: string;
  tokens: EmulatorTokens;
  organization: string;
  workspaceId: string;
  close(): Promise<void>;
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const host = options.host ?? "127.0.0.1";
  const store = new Store(options.statePath, options.tokens, { flushMs: options.flushMs });
  const controlToken = options.controlToken ?? (isLoopback(host) ? undefined : `emu-ctl-${randomHex(16)}`);
  const abort = new AbortController();
  const rt: Runtime = {
    store,
    requests: new Log<RawRequestEntry>(),
    deliveries: new Log<DeliveryEntry>(),
    faults: new Faults(),
    sinks: new Sinks(),
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? 10_000,
    closing: abort.signal,
    runService: new RunService({ forceCancelCooloffMs: options.forceCancelCooloffMs, autoAdvanceMs: options.autoAdvanceMs }),
    serial: new KeyedSerial(),
    controlToken,
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
    ...(controlToken === undefined ? {} : { controlToken }),
    tokens: { ...store.tokens },
    organization: DEFAULT_ORGANIZATION,
    workspaceId: DEFAULT_WORKSPACE_ID,
    close: () => server.close(),
  };
}

export { CONTROL_TOKEN_HEADER };
export { readStateFile, STATE_KEY_ENV } from "./state-file";
export { DEFAULT_FLUSH_MS } from "./store";

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect, so control needs no token. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare === "::1") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return bare.startsWith("::ffff:127.");
}
