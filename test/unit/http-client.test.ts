import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ConflictError,
  ForbiddenError,
  HttpClient,
  InvalidInputError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  SvcError,
  TransportError,
  closeAgents,
  isSvcError,
  registerSecret,
  type ClientOptions,
  type RetryInfo,
  type Service,
} from "../../src/http";

// A tiny local server per file: each test installs a handler and inspects what was received.
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;
interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const RUNS_TOKEN = "runs-tok-4f1c9a7e";
const SECRETS_TOKEN = "sec-tok-b82d3e61";
const seen: Seen[] = [];
let handler: Handler = () => undefined;
let origin = "";

const server = http.createServer((req, res) => {
  let data = "";
  req.setEncoding("utf8");
  req.on("data", (c: string) => (data += c));
  req.on("end", () => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: data });
    handler(req, res, data);
  });
});

function json(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Reply from a list of handlers, one per request; the last one repeats. */
function sequence(...steps: Handler[]): Handler {
  let i = 0;
  return (req, res, body) => steps[Math.min(i++, steps.length - 1)](req, res, body);
}

const ok: Handler = (_req, res) => json(res, 200, { ok: true });
const drop: Handler = (req) => req.socket.destroy();
const status =
  (code: number, headers: http.OutgoingHttpHeaders = {}): Handler =>
  (_req, res) =>
    json(res, code, { errors: [`status ${code}`] }, headers);

function client(service: Service, extra: Partial<ClientOptions> = {}): HttpClient {
  return new HttpClient({
    service,
    baseUrl: service === "runs" ? `${origin}/api/v2` : `${origin}/v1`,
    token: service === "runs" ? RUNS_TOKEN : SECRETS_TOKEN,
    retryBaseMs: 2,
    maxRetryDelayMs: 50,
    ...extra,
  });
}

async function failure(p: Promise<unknown>): Promise<SvcError> {
  try {
    await p;
  } catch (e) {
    expect(isSvcError(e)).toBe(true);
    return e as SvcError;
  }
  throw new Error("expected the request to fail");
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await closeAgents();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
  handler = ok;
});

describe("headers per service", () => {
  it("runs: bearer token, JSON:API content type and accept, user agent", async () => {
    const res = await client("runs").request({ route: "POST /workspaces/{id}/runs", params: { id: "ws-1" }, body: { data: { type: "runs" } } });
    expect(res.status).toBe(200);
    const h = seen[0].headers;
    expect(seen[0].method).toBe("POST");
    expect(seen[0].url).toBe("/api/v2/workspaces/ws-1/runs");
    expect(h.authorization).toBe(`Bearer ${RUNS_TOKEN}`);
    expect(h["content-type"]).toBe("application/vnd.api+json");
    expect(h.accept).toBe("application/vnd.api+json");
    expect(h["user-agent"]).toMatch(/^pulumi-svc(\/\d+\.\d+\.\d+.*)?$/);
    expect(h["x-svc-token"]).toBeUndefined();
    expect(JSON.parse(seen[0].body)).toEqual({ data: { type: "runs" } });
  });

  it("runs: no content type without a body", async () => {
    await client("runs").request({ route: "GET /runs/{id}", params: { id: "run-1" } });
    expect(seen[0].headers["content-type"]).toBeUndefined();
    expect(seen[0].body).toBe("");
  });

  it("secrets: X-Svc-Token and application/json, never Authorization", async () => {
    await client("secrets").request({ route: "POST /transform/role/{name}", params: { name: "r1" }, body: { transformations: [] } });
    const h = seen[0].headers;
    expect(h["x-svc-token"]).toBe(SECRETS_TOKEN);
    expect(h["content-type"]).toBe("application/json");
    expect(h.authorization).toBeUndefined();
    expect(seen[0].url).toBe("/v1/transform/role/r1");
  });

  it("secrets: LIST is sent as GET with list=true", async () => {
    await client("secrets").request({ route: "LIST /{mount}/template", params: { mount: "transform/eu" }, query: { filter: "a*" } });
    expect(seen[0].method).toBe("GET");
    expect(seen[0].url).toBe("/v1/transform/eu/template?filter=a*&list=true");
  });

  it("accepts a base URL with a trailing slash", async () => {
    await client("runs", { baseUrl: `${origin}/api/v2/` }).request({ route: "GET /runs/{id}", params: { id: "r" } });
    expect(seen[0].url).toBe("/api/v2/runs/r");
  });

  it("keeps a base URL's deeper path (a service behind a path prefix)", async () => {
    await client("secrets", { baseUrl: `${origin}/vault/eu/v1` }).request({ route: "LIST /transform/role" });
    expect(seen[0].url).toBe("/vault/eu/v1/transform/role?list=true");
    expect(seen[0].headers.host).toBe(origin.replace(/^http:\/\//, ""));
  });
});

describe("URL encoding", () => {
  it("percent-encodes spaces, slashes and unicode in params", async () => {
    await client("secrets").request({ route: "GET /transform/role/{name}", params: { name: "a b/c?ü€" } });
    expect(seen[0].url).toBe("/v1/transform/role/a%20b%2Fc%3F%C3%BC%E2%82%AC");
  });

  it("keeps the slashes of a mount but encodes each segment", async () => {
    await client("secrets").request({ route: "GET /{mount}/roles/{name}", params: { mount: "/dir ectory/eu#1/", name: "x" } });
    expect(seen[0].url).toBe("/v1/dir%20ectory/eu%231/roles/x");
  });

  it("encodes bracketed query keys, joins arrays, skips undefined", async () => {
    await client("runs").request({
      route: "GET /workspaces/{id}/runs",
      params: { id: "ws-1" },
      query: { "page[number]": 2, "filter[status]": ["applied", "planned and finished"], skip: undefined, flag: true },
    });
    expect(seen[0].url).toBe(
      "/api/v2/workspaces/ws-1/runs?page%5Bnumber%5D=2&filter%5Bstatus%5D=applied,planned%20and%20finished&flag=true",
    );
  });

  it("rejects a missing, empty or dot param before any request", async () => {
    const c = client("secrets");
    const missing = await failure(c.request({ route: "GET /transform/role/{name}" }));
    expect(missing).toBeInstanceOf(InvalidInputError);
    expect((missing as InvalidInputError).problems).toEqual([{ path: "params.name", message: "is required by the route" }]);
    const dots = await failure(c.request({ route: "GET /{mount}/roles/{name}", params: { mount: "a/../b", name: ".." } }));
    expect(dots.code).toBe("invalid_input");
    expect((dots as InvalidInputError).problems.map((p) => p.path)).toEqual(["params.mount", "params.name"]);
    const empty = await failure(c.request({ route: "GET /transform/role/{name}", params: { name: "" } }));
    expect(empty.code).toBe("invalid_input");
    expect(seen).toHaveLength(0);
  });
});

describe("2xx bodies", () => {
  it("parses JSON and returns status and headers", async () => {
    handler = (_req, res) => json(res, 201, { data: { id: "nc-1" } }, { "x-request-id": "abc" });
    const res = await client("runs").request<{ data: { id: string } }>({ route: "POST /x", body: {} });
    expect(res.status).toBe(201);
    expect(res.body?.data.id).toBe("nc-1");
    expect(res.headers["x-request-id"]).toBe("abc");
  });

  it("returns undefined for 204 and empty bodies, text for non-JSON", async () => {
    handler = sequence(
      (_req, res) => res.writeHead(204).end(),
      (_req, res) => res.writeHead(200).end(""),
      (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("plain words"),
    );
    const c = client("secrets");
    expect((await c.request({ route: "DELETE /a" })).body).toBeUndefined();
    expect((await c.request({ route: "DELETE /a" })).body).toBeUndefined();
    expect((await c.request({ route: "GET /a" })).body).toBe("plain words");
  });

  it("decodes a body that arrives in many pieces, with characters split between them", async () => {
    const names = Array.from({ length: 4000 }, (_, i) => `schlüssel-€-${i}`);
    const bytes = Buffer.from(JSON.stringify({ data: { keys: names } }));
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": bytes.length });
      // Odd-sized writes land inside the two- and three-byte characters ("ü", "€").
      let at = 0;
      const next = () => {
        if (at >= bytes.length) return void res.end();
        res.write(bytes.subarray(at, (at += 4093)));
        setImmediate(next);
      };
      next();
    };
    const res = await client("secrets").request<{ data: { keys: string[] } }>({ route: "LIST /transform/role" });
    expect(res.body?.data.keys).toEqual(names);
  });
});

describe("errors by status", () => {
  const runsError = {
    errors: [
      { status: "422", title: "invalid attribute", detail: "must be http or https", source: { pointer: "/data/attributes/url" } },
      { title: "second problem" },
    ],
  };
  const secretsError = { errors: ["must be http or https", "second problem"] };
  const cases: Array<[number, new (...a: never[]) => SvcError, string]> = [
    [400, InvalidInputError, "invalid_input"],
    [401, ForbiddenError, "forbidden"],
    [403, ForbiddenError, "forbidden"],
    [404, NotFoundError, "not_found"],
    [409, ConflictError, "conflict"],
    [422, InvalidInputError, "invalid_input"],
    [429, RateLimitedError, "rate_limited"],
    [500, ServerError, "server"],
    [502, ServerError, "server"],
    [418, ServerError, "server"],
  ];

  for (const service of ["runs", "secrets"] as const) {
    for (const [code, cls, name] of cases) {
      it(`${service} ${code} → ${name}`, async () => {
        handler = (_req, res) => json(res, code, service === "runs" ? runsError : secretsError);
        const err = await failure(
          client(service).request({ route: "GET /things/{id}", params: { id: "x y" }, query: { a: 1 }, retry: "never" }),
        );
        expect(err).toBeInstanceOf(cls);
        expect(err.code).toBe(name);
        expect(isSvcError(err, name as SvcError["code"])).toBe(true);
        expect(err.status).toBe(code);
        expect(err.service).toBe(service);
        expect(err.method).toBe("GET");
        expect(err.path).toBe("/things/x%20y?a=1");
        const first = service === "runs" ? "url: must be http or https" : "must be http or https";
        expect(err.messages).toEqual([first, "second problem"]);
        expect(err.message).toBe(`GET /things/x%20y?a=1: ${code} ${http.STATUS_CODES[code]}: ${first}; second problem`);
        expect(seen).toHaveLength(1);
      });
    }
  }

  it("falls back to a one-line, truncated text body", async () => {
    handler = sequence(
      (_req, res) => res.writeHead(500, { "content-type": "text/plain" }).end("upstream\nexploded"),
      (_req, res) => res.writeHead(500, { "content-type": "text/html" }).end("x".repeat(5000)),
    );
    const c = client("runs");
    const a = await failure(c.request({ route: "GET /a" }));
    expect(a.messages).toEqual(["upstream exploded"]);
    expect(a.message).toBe("GET /a: 500 Internal Server Error: upstream exploded");
    const b = await failure(c.request({ route: "GET /a" }));
    expect(b.messages[0].length).toBeLessThanOrEqual(301);
    expect(b.message).not.toContain("\n");
  });
});

describe("redaction", () => {
  const HOOK_SECRET = "hook-secret-5e0a2b";
  registerSecret(HOOK_SECRET);

  it("runs: token, bearer header and registered secret echoed by the server never appear", async () => {
    handler = (req, res) =>
      json(res, 422, {
        errors: [{ detail: `bad header Authorization: ${req.headers.authorization}; token ${RUNS_TOKEN}; hook ${HOOK_SECRET}` }],
      });
    const err = await failure(client("runs").request({ route: "POST /hooks", body: { token: HOOK_SECRET } }));
    for (const text of [err.message, err.stack ?? "", err.messages.join("|")]) {
      expect(text).not.toContain(RUNS_TOKEN);
      expect(text).not.toContain(HOOK_SECRET);
      expect(text).toContain("[REDACTED]");
    }
  });

  it("secrets: echoed token in string errors and in a text body is removed", async () => {
    handler = sequence(
      (req, res) => json(res, 403, { errors: [`token ${String(req.headers["x-svc-token"])} denied`] }),
      (req, res) => res.writeHead(500).end(`crash with ${String(req.headers["x-svc-token"])} and ${HOOK_SECRET}`),
    );
    const c = client("secrets");
    const a = await failure(c.request({ route: "GET /a" }));
    expect(a.message).toBe("GET /a: 403 Forbidden: token [REDACTED] denied");
    const b = await failure(c.request({ route: "GET /a" }));
    expect(b.message).toBe("GET /a: 500 Internal Server Error: crash with [REDACTED] and [REDACTED]");
    expect(b.stack).not.toContain(SECRETS_TOKEN);
  });
});

describe("retries", () => {
  function recorder(): { calls: RetryInfo[]; onRetry: (i: RetryInfo) => void } {
    const calls: RetryInfo[] = [];
    return { calls, onRetry: (i) => calls.push(i) };
  }

  it("honours Retry-After on 429 for GET", async () => {
    handler = sequence(status(429, { "retry-after": "1" }), ok);
    const r = recorder();
    const res = await client("runs", { onRetry: r.onRetry, maxRetryDelayMs: 30000 }).request({ route: "GET /runs/{id}", params: { id: "r1" } });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(2);
    expect(r.calls).toEqual([{ method: "GET", path: "/runs/r1", attempt: 1, delayMs: 1000, reason: "429 Too Many Requests" }]);
  });

  it("caps Retry-After at maxRetryDelayMs", async () => {
    handler = sequence(status(429, { "retry-after": "120" }), ok);
    const r = recorder();
    await client("secrets", { onRetry: r.onRetry, maxRetryDelayMs: 25 }).request({ route: "LIST /transform/role" });
    expect(r.calls.map((c) => c.delayMs)).toEqual([25]);
  });

  it("retries GET on 503 with jittered backoff", async () => {
    handler = sequence(status(503), status(503), ok);
    const r = recorder();
    const res = await client("runs", { onRetry: r.onRetry, retryBaseMs: 10 }).request({ route: "GET /a" });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(3);
    expect(r.calls.map((c) => c.attempt)).toEqual([1, 2]);
    expect(r.calls[0].delayMs).toBeLessThan(10);
    expect(r.calls[1].delayMs).toBeLessThan(20);
    expect(r.calls[0].reason).toBe("503 Service Unavailable");
  });

  it("retries GET on a dropped connection", async () => {
    handler = sequence(drop, ok);
    const r = recorder();
    const res = await client("secrets", { onRetry: r.onRetry }).request({ route: "GET /a" });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(2);
    expect(r.calls[0].reason).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
  });

  it("retries PUT and DELETE by default", async () => {
    handler = sequence(status(502), ok, status(504), ok);
    const c = client("secrets");
    await c.request({ route: "PUT /a", body: {} });
    await c.request({ route: "DELETE /a" });
    expect(seen).toHaveLength(4);
  });

  it("never retries POST on 503", async () => {
    handler = sequence(status(503), ok);
    const r = recorder();
    const err = await failure(client("runs", { onRetry: r.onRetry }).request({ route: "POST /runs", body: {} }));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.status).toBe(503);
    expect(seen).toHaveLength(1);
    expect(r.calls).toHaveLength(0);
  });

  it("never retries POST on a dropped connection", async () => {
    handler = sequence(drop, ok);
    const err = await failure(client("runs").request({ route: "POST /runs", body: {} }));
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).causeCode).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
    expect(err.message).toMatch(/^POST \/runs: (UND_ERR_SOCKET|ECONNRESET) /);
    expect(seen).toHaveLength(1);
  });

  it("never retries PATCH, nor a GET marked never", async () => {
    handler = sequence(status(503), status(503), ok);
    const c = client("secrets");
    await failure(c.request({ route: "PATCH /a", body: {} }));
    await failure(c.request({ route: "GET /a", retry: "never" }));
    expect(seen).toHaveLength(2);
  });

  it("retries POST when the caller marks it safe", async () => {
    handler = sequence(status(503), ok);
    const res = await client("secrets").request({ route: "POST /transform/role/{name}", params: { name: "r" }, body: {}, retry: "safe" });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(2);
  });

  it("does not retry 404 or 500", async () => {
    handler = sequence(status(404), status(500), ok);
    const c = client("runs");
    await failure(c.request({ route: "GET /a" }));
    await failure(c.request({ route: "GET /a" }));
    expect(seen).toHaveLength(2);
  });

  it("throws RateLimitedError with retryAfterMs when 429 persists", async () => {
    handler = status(429, { "retry-after": "7" });
    const r = recorder();
    const err = await failure(client("runs", { maxRetries: 2, maxRetryDelayMs: 5, onRetry: r.onRetry }).request({ route: "GET /a" }));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err.code).toBe("rate_limited");
    expect(err.retryAfterMs).toBe(7000);
    expect(seen).toHaveLength(3);
    expect(r.calls.map((c) => c.delayMs)).toEqual([5, 5]);
  });

  it("throws ServerError when 503 persists", async () => {
    handler = status(503);
    const err = await failure(client("secrets", { maxRetries: 3 }).request({ route: "GET /a" }));
    expect(err).toBeInstanceOf(ServerError);
    expect(err.status).toBe(503);
    expect(seen).toHaveLength(4);
  });
});

describe("transport failures", () => {
  it("times out waiting for headers", async () => {
    handler = () => undefined; // never answer
    const err = await failure(client("runs", { requestTimeoutMs: 150, maxRetries: 0 }).request({ route: "GET /slow" }));
    expect(err).toBeInstanceOf(TransportError);
    expect(err.code).toBe("transport");
    expect(err.status).toBeUndefined();
    expect((err as TransportError).causeCode).toBe("UND_ERR_HEADERS_TIMEOUT");
    expect(err.message).toMatch(/^GET \/slow: UND_ERR_HEADERS_TIMEOUT /);
  });

  it("times out on a stalled body", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write("{");
    };
    const err = await failure(client("secrets", { requestTimeoutMs: 150, maxRetries: 0 }).request({ route: "GET /slow" }));
    expect((err as TransportError).causeCode).toBe("UND_ERR_BODY_TIMEOUT");
  });

  it("retries a timed-out GET", async () => {
    handler = sequence(() => undefined, ok);
    const res = await client("runs", { requestTimeoutMs: 150, maxRetries: 1 }).request({ route: "GET /slow" });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(2);
  });

  it("reports a refused connection with its code, after retrying", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const calls: RetryInfo[] = [];
    const err = await failure(
      new HttpClient({ service: "secrets", baseUrl: `http://127.0.0.1:${port}/v1`, token: SECRETS_TOKEN, maxRetries: 1, retryBaseMs: 1, onRetry: (i) => calls.push(i) }).request({ route: "GET /sys/health" }),
    );
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).causeCode).toBe("ECONNREFUSED");
    expect(err.message).toMatch(/^GET \/sys\/health: ECONNREFUSED /);
    expect(calls.map((c) => c.reason)).toEqual(["ECONNREFUSED"]);
  });
});

describe("options", () => {
  it("rejects a bad base URL or service", () => {
    expect(() => new HttpClient({ service: "runs", baseUrl: "ftp://x/api/v2", token: "t" })).toThrow(InvalidInputError);
    expect(() => new HttpClient({ service: "other" as Service, baseUrl: "http://x/v1", token: "t" })).toThrow(/service/);
  });
});
