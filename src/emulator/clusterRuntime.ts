import type { Area } from "./area";
import type { EmulatorTokens } from "./auth";
import type { Clock } from "./clock";
import type { Faults } from "./control/faults";
import type { NextIds } from "./control/nextIds";
import type { DeliveryEntry, Log, RawRequestEntry, Sinks } from "./control/logs";
import type { KeyedSerial } from "./persistence/serial";
import type { ReplicationNetwork } from "./secrets/replication/network";
import type { RunService } from "./runs/runService";
import type { RunState } from "./runs/state";
import type { SecretsState } from "./secrets/state";
import type { Sites } from "./transport/sites";
import type { Store } from "./persistence/store";

/** What the areas store (areas.ts): `data` of the state document, one entry per service. */
export interface Data {
  run: RunState;
  secrets: SecretsState;
}

/** A cluster's storage: its data and tokens, kept in its state file. */
export type ClusterStore = Store<Data, EmulatorTokens>;

/** Everything a handler may touch; one per running cluster, never module-level. */
export interface Runtime {
  store: ClusterStore;
  /** Every area of the services (areas.ts), which the shared folders read instead of naming any. */
  areas: readonly Area<Runtime, Data>[];
  requests: Log<RawRequestEntry>;
  deliveries: Log<DeliveryEntry>;
  faults: Faults;
  /** Ids to give the next objects of the kinds whose ids the services assign (control/nextIds.ts). */
  nextIds: NextIds;
  sinks: Sinks;
  deliveryTimeoutMs: number;
  /** Aborted by close() so outbound deliveries and fault delays end with the emulator. */
  closing: AbortSignal;
  /** Run-service timing, timer and delivery counters (runs/runService.ts). */
  runService: RunService;
  /** The cluster's clock: the run service's cool-offs and the secrets engines' lifetimes. */
  clock: Clock;
  /** Writes that await the network (a verification) run one at a time per object. */
  serial: KeyedSerial;
  /** Required on control endpoints when set (the emulator listens beyond loopback). */
  controlToken?: string;
  /** Which Host names the control endpoints answer (transport/sites.ts). */
  sites: Sites;
  /**
   * Which cluster of the emulator this runtime is (0 serves the run service too), every cluster's
   * store (cluster 0 first: snapshots and the page hold them all), and the network of all of them,
   * through which performance replication links clusters.
   */
  cluster: { index: number; stores: readonly ClusterStore[]; network: ReplicationNetwork };
}
