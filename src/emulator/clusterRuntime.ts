import type { Clock } from "./clock";
import type { Faults } from "./control/faults";
import type { NextIds } from "./control/nextIds";
import type { DeliveryEntry, Log, RawRequestEntry, Sinks } from "./control/logs";
import type { KeyedSerial } from "./persistence/serial";
import type { ReplicationNetwork } from "./secrets/replication/network";
import type { RunService } from "./runs/runService";
import type { Sites } from "./transport/sites";
import type { Store } from "./persistence/store";

/** Everything a handler may touch; one per running emulator, never module-level. */
export interface Runtime {
  store: Store;
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
   * Which cluster of the emulator this runtime is (0 serves the run service too) and the network of
   * all of them, through which performance replication links clusters.
   */
  cluster: { index: number; network: ReplicationNetwork };
}
