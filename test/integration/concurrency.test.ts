// The shared client against the emulator: every client of one server counts against one limit
// (svc:maxConcurrentRequests), and a 429 with Retry-After holds back every request to that server.
import { afterAll, describe, expect, it } from "vitest";
import { HttpClient, RateLimitedError, closeAgents, type ClientOptions } from "../../src/http";
import { gateFor } from "../../src/http/limiter";
import { control, requests, useEmulator } from "../support/emulator";

const { emu } = useEmulator({ secretsToken: "secretsRoot" });

afterAll(closeAgents);

const client = (o: Partial<ClientOptions> = {}) => new HttpClient({ service: "secrets", baseUrl: emu.secretsUrl, token: emu.tokens.secretsRoot, ...o });
const peak = async () => (await control<{ peak: number }>(emu, "GET", "/throttle")).peak;

describe("requests to one server", () => {
  it("never more in flight than the limit, counted across clients of the same server", async () => {
    await control(emu, "PUT", "/throttle", {});
    // Each request is held a moment, so they pile up at the server unless the client holds them back.
    await control(emu, "POST", "/faults", { path: "/v1/transform/alphabet/*", delayMs: 20, count: 60 });
    const a = client({ maxConcurrentRequests: 3 });
    const b = client({ maxConcurrentRequests: 3, onRetry: () => undefined });
    const all = Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).request({ route: "POST /transform/alphabet/{name}", params: { name: `c${i}` }, body: { alphabet: "01" } }));
    expect((await Promise.all(all)).every((r) => r.status === 204)).toBe(true);
    expect(await peak()).toBeLessThanOrEqual(3);
    expect(gateFor(emu.secretsUrl).peak).toBe(3);
  });

  it("a 429 with Retry-After pauses every request to the server, not just the one that got it", async () => {
    await control(emu, "POST", "/faults", { method: "GET", path: "/v1/transform/alphabet/first", retryAfter: 1 });
    const c = client({ maxConcurrentRequests: 1 });
    let second: Promise<unknown> | undefined;
    // Sent while the first request waits out its Retry-After: it must wait too, behind the retry.
    const first = client({ maxConcurrentRequests: 1, onRetry: () => { second = c.request({ route: "GET /transform/alphabet/{name}", params: { name: "second" }, expect: [404] }); } })
      .request({ route: "GET /transform/alphabet/{name}", params: { name: "first" }, expect: [404] });
    await first;
    await second;
    const log = (await requests(emu)).map((r) => `${r.status} ${r.path}`);
    expect(log).toEqual(["429 /v1/transform/alphabet/first", "404 /v1/transform/alphabet/first", "404 /v1/transform/alphabet/second"]);
  });

  it("a write that is never repeated is sent once on 429, and still pauses the others", async () => {
    await control(emu, "POST", "/faults", { method: "POST", path: "/v1/transform/alphabet/once", retryAfter: 1 });
    const c = client({ maxConcurrentRequests: 4 });
    const write = c.request({ route: "POST /transform/alphabet/{name}", params: { name: "once" }, body: { alphabet: "01" }, retry: "never" });
    await expect(write).rejects.toBeInstanceOf(RateLimitedError);
    // Any request to the server now has to wait for its turn: the pause the 429 asked for.
    const gate = gateFor(emu.secretsUrl);
    const turn = gate.enter(100);
    expect(turn).toBeInstanceOf(Promise);
    await turn;
    gate.leave();
    expect((await requests(emu)).map((r) => `${r.method} ${r.status}`)).toEqual(["POST 429"]);
  });
});
