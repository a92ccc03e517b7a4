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
}

export class Log<T> {
  private entries: T[] = [];

  push(entry: T): void {
    this.entries.push(entry);
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
  }

  all(): T[] {
    return [...this.entries];
  }

  clear(): void {
    this.entries = [];
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
