/**
 * The emulator's public entry (`pulumi-svc/emulator`): starts one runtime per cluster over the areas.
 * Layout (docs/emulator.md, "Layout"): a folder per service area (`runs/`, `secrets/<area>/`)
 * mirroring the provider, one file per API object named as the provider's, and per area where needed
 * `index.ts` (its routes table, which `npm run docs` writes from the folder's files, and its `Area`,
 * area.ts), `state.ts` (its stored model) and
 * `control.ts` (its `/_emulator` rows); a folder per job every area shares (`transport/`,
 * `persistence/`, `control/`, `ui/`), which reads the areas from the runtime (`rt.areas`, listed once
 * in areas.ts) and imports none of them. Imports point one way: objects → their area's state → the
 * service's shared files → the top-level files and the shared folders.
 */
import { AREAS, STORED } from "./areas";
import type { EmulatorTokens } from "./auth";
import { Clock } from "./clock";
import { Faults } from "./control/faults";
import { NextIds } from "./control/nextIds";
import { setMaxListeners } from "node:events";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { Log, Sinks, type DeliveryEntry, type RawRequestEntry } from "./control/logs";
import { startAutoAdvance } from "./runs/runStateMachine";
import { ReplicationNetwork } from "./secrets/replication/network";
import type { ClusterStore, Runtime } from "./clusterRuntime";
import { KeyedSerial } from "./persistence/serial";
import { restoreSnapshot } from "./persistence/snapshot";
import { CONTROL_TOKEN_HEADER, listen, type Listening } from "./transport/server";
import { RunService } from "./runs/runService";
import { DEFAULT_ORGANIZATION, DEFAULT_WORKSPACE_ID } from "./runs/state";
import { checkAllowedHost, sitesOf } from "./transport/sites";
import { Store } from "./persistence/store";
import { randomHex } from "./util";

export type { EmulatorTokens } from "./auth";

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
  /**
   * Host names (or addresses) the control endpoints and the page answer, with any port, besides
   * the address the emulator listens on and the loopback names with its port (`--allowed-host`):
   * a name of a proxy, container, machine or port forward that reaches it. Any other Host gets
   * 403, so a page of another site cannot read it through DNS rebinding. The service APIs answer
   * whatever the Host.
   */
  allowedHosts?: string[];
  /** Fixed tokens; the rest are random per start unless the state file has them. */
  tokens?: Partial<EmulatorTokens>;
  /** Time limit for outbound verification requests and notifications; defaults to 10000 ms. */
  deliveryTimeoutMs?: number;
  /** Delay between a run's cancel and the moment force-cancel becomes available; defaults to 60000 ms. */
  forceCancelCooloffMs?: number;
  /** When > 0 every active run moves one status step per tick of this many ms; defaults to 0 (off). */
  autoAdvanceMs?: number;
  /**
   * Secrets-service clusters to start, each on its own port with its own tokens, storage and cluster
   * id, linked by performance replication (`sys/replication/performance`); defaults to 1. Cluster 0
   * is the one the top-level fields describe and the only one with the run service. With statePath,
   * cluster i > 0 keeps its state in `<statePath>.cluster<i>`.
   */
  clusters?: number;
  /**
   * A snapshot file (`GET /_emulator/snapshot`) to start from: it replaces whatever statePath held,
   * tokens included. It must hold as many clusters as `clusters` and be sealed with this emulator's
   * state key (SVC_EMULATOR_STATE_KEY).
   */
  loadPath?: string;
}

/** One secrets-service cluster of a running emulator. */
export interface EmulatorCluster {
  index: number;
  /** `http://host:port`: the cluster's API address, as replication status reports it. */
  url: string;
  secretsUrl: string;
  controlUrl: string;
  /** The root (sudo) token of this cluster; the same as tokens.secretsRoot. */
  secretsToken: string;
  tokens: Pick<EmulatorTokens, "secretsRoot" | "secretsUser">;
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
  /** Every secrets-service cluster, cluster 0 first (the same server as the fields above). */
  clusters: EmulatorCluster[];
  close(): Promise<void>;
}

export const MAX_CLUSTERS = 16;

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const count = options.clusters ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > MAX_CLUSTERS) throw new Error(`clusters must be an integer from 1 to ${MAX_CLUSTERS}, got ${count}`);
  const host = options.host ?? "127.0.0.1";
  const controlToken = options.controlToken ?? (isLoopback(host) ? undefined : `emu-ctl-${randomHex(16)}`);
  const badHost = (options.allowedHosts ?? []).map(checkAllowedHost).find((e) => e !== undefined);
  if (badHost !== undefined) throw new Error(badHost);

  const network = new ReplicationNetwork();
  const stores: ClusterStore[] = [];
  const started: Started[] = [];
  try {
    for (let index = 0; index < count; index++) started.push(await startCluster(options, { index, stores, network }, host, controlToken));
  } catch (err) {
    await Promise.all(started.map((s) => s.server.close()));
    throw err;
  }
  if (options.loadPath !== undefined) {
    try {
      restoreSnapshot(started.map((s) => s.rt.store), readFileSync(options.loadPath, "utf8"), options.loadPath);
    } catch (err) {
      await Promise.all(started.map((s) => s.server.close()));
      throw err;
    }
  }
  const first = started[0];
  first.rt.runService.baseUrl = first.url;
  startAutoAdvance(first.rt);
  return emulatorOf(started, controlToken);
}

/** A started cluster: its runtime, its server, and the URL it answers on. */
interface Started { rt: Runtime; server: Listening; url: string }

/** Cluster `index`: its store (its own state file beside cluster 0's), its runtime, listening on its own port. */
async function startCluster(options: EmulatorOptions, cluster: Runtime["cluster"] & { stores: ClusterStore[] }, host: string, controlToken: string | undefined): Promise<Started> {
  const { index, network } = cluster;
  const statePath = options.statePath && index > 0 ? `${options.statePath}.cluster${index}` : options.statePath;
  const store = new Store(STORED, statePath, index === 0 ? options.tokens : {}, { flushMs: options.flushMs });
  cluster.stores.push(store);
  const abort = new AbortController();
  // Every delayed request listens for the close while it waits, and a bench holds hundreds at once.
  setMaxListeners(0, abort.signal);
  const clock = new Clock();
  const rt: Runtime = {
    store,
    areas: AREAS,
    requests: new Log<RawRequestEntry>(),
    deliveries: new Log<DeliveryEntry>(),
    faults: new Faults(),
    nextIds: new NextIds(AREAS.flatMap((a) => a.assignedIds ?? [])),
    sinks: new Sinks(),
    deliveryTimeoutMs: options.deliveryTimeoutMs ?? 10_000,
    closing: abort.signal,
    runService: new RunService(clock, { forceCancelCooloffMs: options.forceCancelCooloffMs, autoAdvanceMs: options.autoAdvanceMs }),
    clock,
    serial: new KeyedSerial(),
    controlToken,
    // Each cluster answers on its own port, set once it listens.
    sites: sitesOf(host, options.allowedHosts),
    cluster,
  };
  const server = await listen(rt, abort, host, index === 0 ? options.port ?? 0 : 0);
  rt.sites.port = server.port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${server.port}`;
  network.add({ index, apiAddr: url, store });
  return { rt, server, url };
}

/** The handle a caller gets: cluster 0's URLs and tokens, every cluster, and close. */
function emulatorOf(started: Started[], controlToken: string | undefined): Emulator {
  const first = started[0]!;
  return {
    url: first.url,
    runUrl: `${first.url}/api/v2`,
    secretsUrl: `${first.url}/v1`,
    controlUrl: `${first.url}/_emulator`,
    ...(controlToken === undefined ? {} : { controlToken }),
    // Getters: a restored snapshot brings its own tokens.
    get tokens() {
      return { ...first.rt.store.tokens };
    },
    organization: DEFAULT_ORGANIZATION,
    workspaceId: DEFAULT_WORKSPACE_ID,
    clusters: started.map(({ rt, url }, index) => ({
      index,
      url,
      secretsUrl: `${url}/v1`,
      controlUrl: `${url}/_emulator`,
      get secretsToken() {
        return rt.store.tokens.secretsRoot;
      },
      get tokens() {
        return { secretsRoot: rt.store.tokens.secretsRoot, secretsUser: rt.store.tokens.secretsUser };
      },
    })),
    close: async () => {
      await Promise.all(started.map((s) => s.server.close()));
    },
  };
}

export { CONTROL_TOKEN_HEADER };
export { readStateFile, STATE_KEY_ENV } from "./persistence/stateFile";
export { DEFAULT_FLUSH_MS } from "./persistence/store";

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect, so control needs no token. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare === "::1") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return bare.startsWith("::ffff:127.");
}
