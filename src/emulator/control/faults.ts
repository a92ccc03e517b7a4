import { randomId, isRecord } from "../util";

/** A registered fault; see the README of the emulator for how each field acts. */
export interface Fault {
  id: string;
  method?: string;
  path: string;
  remaining: number;
  /** Matching requests let through untouched before the fault acts. */
  skip: number;
  /** Acts on one matching request in `every` (the last of each group), so a share of them fails. */
  every: number;
  /** Matching requests seen since the fault last acted, for `every`. */
  seen: number;
  status?: number;
  retryAfter?: number;
  delayMs?: number;
  /** Holds the request at its `when` until POST /_emulator/faults/release: a test decides when it goes on. */
  hold: boolean;
  drop: boolean;
  when: "before" | "after";
}

/** A request a `hold` fault is holding, as GET /_emulator/faults/held lists it. */
export interface HeldRequest {
  method: string;
  path: string;
  when: "before" | "after";
}

/** What the server does for a matched fault, resolved once so both timings share the rule. */
export type FaultAction = { kind: "drop" } | { kind: "status"; status: number; retryAfter?: number } | { kind: "delay-only" };

export function faultAction(fault: Fault): FaultAction {
  if (fault.drop) return { kind: "drop" };
  if (fault.status !== undefined) return { kind: "status", status: fault.status, retryAfter: fault.retryAfter };
  // Retry-After alone means "rate limited"; a delay or a hold alone means "slow but correct".
  if (fault.retryAfter !== undefined) return { kind: "status", status: 429, retryAfter: fault.retryAfter };
  if (fault.delayMs !== undefined || fault.hold) return { kind: "delay-only" };
  return { kind: "status", status: 503 };
}

/**
 * Throttling of the service endpoints: above `maxConcurrent` requests held at once, or above `rate`
 * requests answered per second, a request gets 429 with Retry-After. It also reports the most
 * requests the emulator held at once, so a test can prove a client never exceeds its limit.
 */
export class Throttle {
  maxConcurrent?: number;
  rate?: number;
  /** Seconds announced when refusing above maxConcurrent (above the rate: until the second ends). */
  retryAfter = 1;
  inFlight = 0;
  peak = 0;
  throttled = 0;
  private windowStart = 0;
  private inWindow = 0;

  set(input: unknown): string | undefined {
    if (!isRecord(input)) return "body must be a JSON object";
    const { maxConcurrent, rate, retryAfter = 1 } = input;
    if (maxConcurrent !== undefined && (!Number.isInteger(maxConcurrent) || (maxConcurrent as number) < 1)) return "maxConcurrent must be a positive integer";
    if (rate !== undefined && (!Number.isInteger(rate) || (rate as number) < 1)) return "rate must be a positive integer (requests per second)";
    if (!Number.isInteger(retryAfter) || (retryAfter as number) < 0) return "retryAfter must be a non-negative integer number of seconds";
    this.maxConcurrent = maxConcurrent as number | undefined;
    this.rate = rate as number | undefined;
    this.retryAfter = retryAfter as number;
    this.reset();
    return undefined;
  }

  /** Settings off and counters from now (requests in flight stay counted until they end). */
  reset(): void {
    this.peak = this.inFlight;
    this.throttled = 0;
    this.inWindow = 0;
    this.windowStart = 0;
  }

  off(): void {
    this.maxConcurrent = undefined;
    this.rate = undefined;
    this.retryAfter = 1;
    this.reset();
  }

  /** A service request arrived: the Retry-After seconds of a 429 for it, or undefined to serve it. */
  enter(now = Date.now()): number | undefined {
    this.inFlight += 1;
    if (this.inFlight > this.peak) this.peak = this.inFlight;
    if (this.maxConcurrent !== undefined && this.inFlight > this.maxConcurrent) return this.refuse(this.retryAfter);
    if (this.rate !== undefined) {
      if (now - this.windowStart >= 1000) {
        this.windowStart = now;
        this.inWindow = 0;
      }
      if (this.inWindow >= this.rate) return this.refuse(Math.max(1, Math.ceil((this.windowStart + 1000 - now) / 1000)));
      this.inWindow += 1;
    }
    return undefined;
  }

  leave(): void {
    this.inFlight -= 1;
  }

  report(): Record<string, unknown> {
    return { maxConcurrent: this.maxConcurrent ?? null, rate: this.rate ?? null, retryAfter: this.retryAfter, inFlight: this.inFlight, peak: this.peak, throttled: this.throttled };
  }

  private refuse(seconds: number): number {
    this.throttled += 1;
    return seconds;
  }
}

export class Faults {
  private faults: Fault[] = [];
  private holding: { request: HeldRequest; release(): void }[] = [];
  readonly throttle = new Throttle();

  /** Holds `request` until release() or clear(); at once when the emulator is closing. */
  hold(request: HeldRequest, closing: AbortSignal): Promise<void> {
    if (closing.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const entry = {
        request,
        release: () => {
          closing.removeEventListener("abort", entry.release);
          this.holding = this.holding.filter((e) => e !== entry);
          resolve();
        },
      };
      closing.addEventListener("abort", entry.release, { once: true });
      this.holding.push(entry);
    });
  }

  held(): HeldRequest[] {
    return this.holding.map((e) => ({ ...e.request }));
  }

  /** Lets every held request go on; how many there were. */
  release(): number {
    const all = [...this.holding];
    for (const e of all) e.release();
    return all.length;
  }

  add(input: unknown): Fault | string {
    if (!isRecord(input)) return "body must be a JSON object";
    const { method, path, count = 1, skip = 0, every = 1, status, retryAfter, delayMs, hold = false, drop = false, when = "before" } = input;
    if (typeof path !== "string" || !path.startsWith("/")) return "path is required and must start with /";
    if (method !== undefined && (typeof method !== "string" || method === "")) return "method must be a non-empty string";
    if (!Number.isInteger(count) || (count as number) < 1) return "count must be a positive integer";
    if (!Number.isInteger(skip) || (skip as number) < 0) return "skip must be a non-negative integer";
    if (!Number.isInteger(every) || (every as number) < 1) return "every must be a positive integer";
    if (status !== undefined && (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599)) {
      return "status must be an integer HTTP status (100-599)";
    }
    if (retryAfter !== undefined && (!Number.isInteger(retryAfter) || (retryAfter as number) < 0)) {
      return "retryAfter must be a non-negative integer number of seconds";
    }
    if (delayMs !== undefined && (!Number.isInteger(delayMs) || (delayMs as number) < 0)) {
      return "delayMs must be a non-negative integer";
    }
    if (typeof drop !== "boolean") return "drop must be a boolean";
    if (typeof hold !== "boolean") return "hold must be a boolean";
    if (when !== "before" && when !== "after") return 'when must be "before" or "after"';
    const fault: Fault = {
      id: randomId("fault"),
      method: typeof method === "string" ? method.toUpperCase() : undefined,
      path,
      remaining: count as number,
      skip: skip as number,
      every: every as number,
      seen: 0,
      status: status as number | undefined,
      retryAfter: retryAfter as number | undefined,
      delayMs: delayMs as number | undefined,
      hold,
      drop,
      when,
    };
    this.faults.push(fault);
    return fault;
  }

  /** Consumes one use of the oldest fault matching any of `methods` and `path`. */
  take(methods: string[], path: string): Fault | undefined {
    const index = this.faults.findIndex(
      (f) => (f.method === undefined || methods.includes(f.method)) && pathMatches(f.path, path),
    );
    if (index < 0) return undefined;
    const fault = this.faults[index];
    if (fault.skip > 0) {
      fault.skip -= 1;
      return undefined;
    }
    fault.seen += 1;
    if (fault.seen < fault.every) return undefined;
    fault.seen = 0;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.faults.splice(index, 1);
    return fault;
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  /** No faults, no throttle, and nothing held: a cleared emulator never keeps a request waiting. */
  clear(): void {
    this.faults = [];
    this.release();
    this.throttle.off();
  }
}

function pathMatches(pattern: string, path: string): boolean {
  return pattern.endsWith("*") ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
}
