import type { Clock } from "../clock";

/**
 * Per-emulator run-service machinery that is not data: timing settings, the auto-advance timer,
 * the emulator's own URL (for links inside notifications) and the delivery counters. Data lives
 * in the store; this object lives as long as the emulator and is never persisted.
 */
export interface RunServiceOptions {
  /** Delay between a cancel and the moment force-cancel becomes available; default 60000 ms. */
  forceCancelCooloffMs?: number;
  /** When > 0 every active run moves one status step per tick of this many ms; default 0 (off). */
  autoAdvanceMs?: number;
}

export const DEFAULT_FORCE_CANCEL_COOLOFF_MS = 60_000;

export class RunService {
  forceCancelCooloffMs: number;
  autoAdvanceMs: number;
  /**
   * Whether a verification request goes to the configuration's destination (the default). Off, it
   * is recorded and succeeds without being sent: a test of a server's configurations, whose
   * destinations it cannot reach (pulumi-svc/testing's `seed`).
   */
  verifyDestinations = true;
  /** Absolute base URL of the emulator (`http://127.0.0.1:port`), set once it listens. */
  baseUrl = "";
  /** Event order of run and assessment notifications, carried by their delivery log entries. */
  deliverySequence = 0;
  /** Bumped by reset so deliveries still in flight from before it are not logged after it. */
  generation = 0;
  /** Per notification configuration, the tail of its delivery chain: one receiver sees events in order. */
  readonly chains = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private tick: (() => void) | undefined;

  constructor(private readonly clock: Clock, private readonly defaults: RunServiceOptions = {}) {
    this.forceCancelCooloffMs = defaults.forceCancelCooloffMs ?? DEFAULT_FORCE_CANCEL_COOLOFF_MS;
    this.autoAdvanceMs = defaults.autoAdvanceMs ?? 0;
  }

  /** Wires the step function and stops the timer when the emulator closes. */
  attach(tick: () => void, closing: AbortSignal): void {
    this.tick = tick;
    closing.addEventListener("abort", () => this.stopTimer(), { once: true });
    this.setAutoAdvance(this.autoAdvanceMs);
  }

  setAutoAdvance(ms: number): void {
    this.autoAdvanceMs = ms;
    this.stopTimer();
    if (ms > 0 && this.tick) {
      this.timer = setInterval(this.tick, ms);
      // The timer alone must never keep a process (a test run, the CLI after close) alive.
      this.timer.unref();
    }
  }

  /** The run service's time (ms since the epoch): the emulator's clock (clock.ts). */
  nowMs(): number {
    return this.clock.nowMs();
  }

  /** Back to the options the emulator was started with; called by /_emulator/reset. */
  reset(): void {
    this.generation += 1;
    this.chains.clear();
    this.forceCancelCooloffMs = this.defaults.forceCancelCooloffMs ?? DEFAULT_FORCE_CANCEL_COOLOFF_MS;
    this.verifyDestinations = true;
    this.setAutoAdvance(this.defaults.autoAdvanceMs ?? 0);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
