import type { IncomingHttpHeaders } from "node:http";

/** Logs are bounded so a long-running emulator in CI cannot grow without limit. */
const MAX_ENTRIES = 10_000;

export interface RequestEntry {
  method: string;
  path: string;
  query: Record<string, string>;
  /** 0 when the connection was dropped by a fault. */
  status: number;
  at: string;
}

export interface DeliveryEntry {
  configurationId: string;
  destinationType: string;
  url: string | null;
  trigger: string;
  headers: Record<string, string>;
  body: string;
  response: { code: string; body: string; headers: Record<string, string[]> } | null;
  error?: string;
  sentAt: string;
  recipients?: string[];
  /** A verification recorded but not sent: the settings' verifyDestinations is off. */
  notSent?: true;
}

/** What the server records per request; formatting (timestamp, query object) waits until someone reads it. */
export interface RawRequestEntry {
  method: string;
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  status: number;
  /** Epoch milliseconds. */
  at: number;
}

export function formatRequest(e: RawRequestEntry): RequestEntry {
  return { method: e.method, path: e.path, query: Object.fromEntries(new URLSearchParams(e.query)), status: e.status, at: new Date(e.at).toISOString() };
}

/** A ring buffer: once full, a push overwrites the oldest entry instead of shifting the array. */
export class Log<T> {
  private entries: T[] = [];
  /** Index of the oldest entry once the buffer is full. */
  private start = 0;

  constructor(private readonly capacity = MAX_ENTRIES) {}

  push(entry: T): void {
    if (this.entries.length < this.capacity) {
      this.entries.push(entry);
      return;
    }
    this.entries[this.start] = entry;
    this.start = (this.start + 1) % this.capacity;
  }

  /** Oldest first. */
  all(): T[] {
    return this.start === 0 ? [...this.entries] : [...this.entries.slice(this.start), ...this.entries.slice(0, this.start)];
  }

  clear(): void {
    this.entries = [];
    this.start = 0;
  }
}

export interface SinkRequest {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Sink {
  status: number;
  body: string;
  requests: SinkRequest[];
}

/** Webhook receivers inside the emulator, so examples need no server of their own. */
export class Sinks {
  private sinks = new Map<string, Sink>();

  get(name: string): Sink {
    let sink = this.sinks.get(name);
    if (!sink) {
      sink = { status: 200, body: "ok", requests: [] };
      this.sinks.set(name, sink);
    }
    return sink;
  }

  record(name: string, request: SinkRequest): Sink {
    const sink = this.get(name);
    sink.requests.push(request);
    if (sink.requests.length > MAX_ENTRIES) sink.requests.shift();
    return sink;
  }

  delete(name: string): void {
    this.sinks.delete(name);
  }

  clear(): void {
    this.sinks.clear();
  }
}
