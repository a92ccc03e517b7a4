// A local server that answers 404 to everything and counts what arrives, with both services
// configured to it and the client's request method counted too (synchronously, so a request started
// and not yet arrived counts): for tests that must prove no request was made.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, vi, type MockInstance } from "vitest";
import { HttpClient } from "../../src/http";

const ENV = ["SVC_RUN_URL", "SVC_RUN_TOKEN", "SVC_SECRETS_URL", "SVC_SECRETS_TOKEN", "SVC_MAX_RETRIES"];

/**
 * Starts the server for the enclosing suite; `requests()` is how many were sent or arrived so far,
 * `routes()` the client's requests sent so far (`GET /{mount}/alphabet/{name}`).
 */
export function useCountingServer(): { requests(): number; routes(): string[] } {
  let server: Server;
  let arrived = 0;
  let sent: MockInstance<HttpClient["request"]>;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    sent = vi.spyOn(HttpClient.prototype, "request");
    server = createServer((_req, res) => {
      arrived++;
      // Each answer closes its connection: a pooled one the server closed while idle would reset the next request.
      res.writeHead(404, { "content-type": "application/json", connection: "close" }).end('{"errors":[]}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const k of ENV) saved[k] = process.env[k];
    Object.assign(process.env, {
      SVC_RUN_URL: `${base}/api/v2`, SVC_RUN_TOKEN: "fuzz-run-token", SVC_SECRETS_URL: `${base}/v1`, SVC_SECRETS_TOKEN: "fuzz-secrets-token", SVC_MAX_RETRIES: "0",
    });
  });
  afterAll(async () => {
    for (const k of ENV) if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k];
    sent.mockRestore();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    requests: () => sent.mock.calls.length + arrived,
    routes: () => sent.mock.calls.map(([spec]) => String((spec as { route?: unknown }).route)),
  };
}
