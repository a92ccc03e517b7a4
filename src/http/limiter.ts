// How many requests one process has in flight to one server, and when it may send the next. Every
// client of a server shares its gate, so 64 resources updated in parallel by one provider host, or
// two connections to the same server, never send more than the limit at once, and a 429 with
// Retry-After holds back every request to that server, not just the one that got it.

/** The default of `svc:maxConcurrentRequests`: twice what `pulumi up` runs at once by default on 2 cores (8). */
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 16;

/** The one rule for a limit, wherever it comes from (stack config, environment, a connection, a client). */
export function limitRule(v: unknown): string | undefined {
  return Number.isInteger(v) && (v as number) >= 1 ? undefined : "must be a positive integer";
}

interface Waiter {
  limit: number;
  start: () => void;
}

export class Gate {
  private active = 0;
  private pausedUntil = 0;
  private readonly queue: Waiter[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The most requests this gate let through at once (benchmarks and tests read it). */
  peak = 0;

  /**
   * Resolves when a request may be sent: fewer than `limit` in flight, no pause, and nobody queued
   * before it. `first` puts it at the head of the queue: a retry has waited its turn already.
   * Undefined when it may be sent at once (no promise on the common path).
   */
  enter(limit: number, first = false): Promise<void> | undefined {
    if (this.queue.length === 0 && this.active < limit && Date.now() >= this.pausedUntil) {
      this.started();
      return undefined;
    }
    return new Promise<void>((resolve) => {
      const waiter = { limit, start: resolve };
      if (first) this.queue.unshift(waiter);
      else this.queue.push(waiter);
      this.drain();
    });
  }

  /** A request's exchange ended (answered or failed): the next may start. */
  leave(): void {
    this.active -= 1;
    this.drain();
  }

  /** The server asked to wait: nothing more starts before `ms` from now (requests in flight go on). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
  }

  private started(): void {
    this.active += 1;
    if (this.active > this.peak) this.peak = this.active;
  }

  // In order: a waiter with a lower limit is not overtaken by one with a higher limit behind it, so
  // neither starves.
  private drain(): void {
    const wait = this.pausedUntil - Date.now();
    if (wait > 0) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.drain();
      }, wait);
      return;
    }
    while (this.queue.length > 0 && this.active < this.queue[0].limit) {
      this.started();
      this.queue.shift()!.start();
    }
  }
}

// One per server (origin and base path) per process. A handful of servers per program: never pruned.
const gates = new Map<string, Gate>();

/** Forgets every server's gate (its pause after a 429, its peak), for a process that serves another deployment next. */
export function forgetGates(): void {
  gates.clear();
}

/** The gate of a server, e.g. `https://vault.example.com/v1`. */
export function gateFor(server: string): Gate {
  let gate = gates.get(server);
  if (gate === undefined) gates.set(server, (gate = new Gate()));
  return gate;
}
