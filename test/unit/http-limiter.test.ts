// The per-server gate of src/http/limiter.ts (limit, order, pause) and the setting that feeds it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConfigError, resolveServiceConfig, type ConfigSource } from "../../src/core/config";
import { connectionSource } from "../../src/core/connected";
import { HttpClient, InvalidInputError } from "../../src/http";
import { Gate, gateFor } from "../../src/http/limiter";

const flush = () => new Promise<void>((r) => setImmediate(r));

/** Enters the gate and records when the request may start. */
function enter(gate: Gate, started: string[], name: string, limit: number, first = false): Promise<void> {
  const turn = gate.enter(limit, first);
  if (turn === undefined) {
    started.push(name);
    return Promise.resolve();
  }
  return turn.then(() => { started.push(name); });
}

describe("Gate", () => {
  afterEach(() => { vi.useRealTimers(); });

  it("lets `limit` requests through at once and the next one when one leaves, in order", async () => {
    const gate = new Gate();
    const started: string[] = [];
    for (const n of ["a", "b", "c", "d"]) void enter(gate, started, n, 2);
    await flush();
    expect(started).toEqual(["a", "b"]);
    gate.leave();
    await flush();
    expect(started).toEqual(["a", "b", "c"]);
    gate.leave();
    gate.leave();
    await flush();
    expect(started).toEqual(["a", "b", "c", "d"]);
    expect(gate.peak).toBe(2);
  });

  it("counts requests of every limit together; a waiter with a lower limit is not overtaken", async () => {
    const gate = new Gate();
    const started: string[] = [];
    void enter(gate, started, "a", 4);
    void enter(gate, started, "b", 4);
    void enter(gate, started, "low", 2);
    void enter(gate, started, "high", 4);
    await flush();
    expect(started).toEqual(["a", "b"]);
    gate.leave();
    await flush();
    expect(started).toEqual(["a", "b", "low", "high"]);
  });

  it("a retry goes to the head of the queue", async () => {
    const gate = new Gate();
    const started: string[] = [];
    void enter(gate, started, "a", 1);
    void enter(gate, started, "queued", 1);
    void enter(gate, started, "retry", 1, true);
    gate.leave();
    await flush();
    expect(started).toEqual(["a", "retry"]);
  });

  it("a pause holds back every request until it ends, then releases them in order", async () => {
    vi.useFakeTimers({ now: 0 });
    const gate = new Gate();
    const started: string[] = [];
    gate.pause(1000);
    void enter(gate, started, "a", 8);
    void enter(gate, started, "b", 8);
    gate.pause(500); // a shorter pause asked later does not end the longer one
    await vi.advanceTimersByTimeAsync(999);
    expect(started).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toEqual(["a", "b"]);
  });

  it("is one per server: origin and base path", () => {
    expect(gateFor("http://127.0.0.1:1/v1")).toBe(gateFor("http://127.0.0.1:1/v1"));
    expect(gateFor("http://127.0.0.1:1/v1")).not.toBe(gateFor("http://127.0.0.1:1/other/v1"));
  });
});

describe("svc:maxConcurrentRequests", () => {
  const source = (values: Record<string, string>): ConfigSource => (key) => values[key];
  const base = { "svc:secretsUrl": "http://127.0.0.1:1/v1", "svc:secretsToken": "t0ken-for-limits" };
  afterEach(() => { delete process.env.SVC_MAX_CONCURRENT_REQUESTS; });

  it("comes from stack config, then the environment, and is unset (the client's default) without either", () => {
    expect(resolveServiceConfig("secrets", source(base)).maxConcurrentRequests).toBeUndefined();
    process.env.SVC_MAX_CONCURRENT_REQUESTS = "6";
    expect(resolveServiceConfig("secrets", source(base)).maxConcurrentRequests).toBe(6);
    expect(resolveServiceConfig("secrets", source({ ...base, "svc:maxConcurrentRequests": "3" })).maxConcurrentRequests).toBe(3);
  });

  it("a connection's own value wins over the setting", () => {
    const layered = connectionSource(source({ ...base, "svc:maxConcurrentRequests": "3" }), "secrets", { maxConcurrentRequests: 2 });
    expect(resolveServiceConfig("secrets", layered).maxConcurrentRequests).toBe(2);
  });

  it("refuses anything but a positive integer, naming the key and variable, or the connection", () => {
    for (const bad of ["0", "-1", "2.5", "many"]) {
      expect(() => resolveServiceConfig("secrets", source({ ...base, "svc:maxConcurrentRequests": bad })))
        .toThrow(new ConfigError(`svc:maxConcurrentRequests / SVC_MAX_CONCURRENT_REQUESTS must be a positive integer, got "${bad}"`));
    }
    const layered = connectionSource(source(base), "secrets", { maxConcurrentRequests: 0 });
    expect(() => resolveServiceConfig("secrets", layered)).toThrow('connection.maxConcurrentRequests must be a positive integer, got "0"');
  });

  it("the client refuses a limit below 1 before any request", () => {
    expect(() => new HttpClient({ service: "secrets", baseUrl: "http://127.0.0.1:1/v1", token: "", maxConcurrentRequests: 0 }))
      .toThrow(InvalidInputError);
  });
});
