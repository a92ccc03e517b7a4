import { timingSafeEqual } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { handleControl } from "../control";
import { faultAction, type Fault } from "../control/faults";
import { header, jsonReply, type Incoming, type Reply } from "./http";
import type { ServiceEntry } from "../area";
import type { Runtime } from "../clusterRuntime";
import { isOwnOutbound } from "./outbound";
import { hostRefusal, writeRefusal } from "./sites";
import { listTakeover, serveNative } from "./listTakeover";

const MAX_BODY = 10 * 1024 * 1024;
// A snapshot holds every object of every cluster: a big emulator's is far past an API request's limit.
const MAX_SNAPSHOT_BODY = 512 * 1024 * 1024;
const CONTROL_PREFIX = "/_emulator";
const SINK_PREFIX = "/_emulator/sink/";
const UI_PREFIX = "/_emulator/ui";
export const CONTROL_TOKEN_HEADER = "x-emulator-control-token";

/** What a path reaches: a service an area answers (area.ts), a webhook sink, the control endpoints, or nothing. */
type Target = { kind: "service"; entry: ServiceEntry<Runtime> } | { kind: "sink" | "control" | "none" };

function classify(rt: Runtime, path: string): Target {
  const under = (prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  for (const area of rt.areas) {
    if (area.service && under(area.service.prefix)) return { kind: "service", entry: area.service };
  }
  if (path.startsWith(SINK_PREFIX)) return { kind: "sink" };
  if (under(CONTROL_PREFIX)) return { kind: "control" };
  return { kind: "none" };
}

/** The request's method as its service reads it (the request log, faults and throttle see this one). */
function methodFor(target: Target, method: string, query: URLSearchParams): string {
  return target.kind === "service" && target.entry.method ? target.entry.method(method, query) : method;
}

export interface Listening {
  port: number;
  close(): Promise<void>;
}

/**
 * One TCP listener feeding one HTTP server through the LIST rewriter. Connections are tracked
 * so close() ends idle keep-alive sockets too, and in-flight handlers are awaited so nothing
 * writes state after close() resolves.
 */
export async function listen(rt: Runtime, abort: AbortController, host: string, port: number): Promise<Listening> {
  const inflight = new Set<Promise<void>>();
  // Node hands over pipelined requests of one connection before the previous ones are answered;
  // a server acts on them in order, so each waits for the one before it on its connection.
  const pending = new WeakMap<object, Promise<void>>();
  const httpServer = http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    const before = pending.get(req.socket);
    const handle = () => serve(rt, req, res).catch((err: unknown) => {
      if (!res.headersSent && !res.destroyed) send(res, jsonReply(500, { error: String(err) }));
    });
    const task = before ? before.then(handle) : handle();
    pending.set(req.socket, task);
    inflight.add(task);
    void task.finally(() => {
      inflight.delete(task);
      if (pending.get(req.socket) === task) pending.delete(req.socket);
    });
  });
  const sockets = new Set<net.Socket>();
  httpServer.on("clientError", listTakeover(httpServer));
  const netServer = net.createServer({ allowHalfOpen: true, noDelay: true }, (raw) => {
    sockets.add(raw);
    raw.on("close", () => sockets.delete(raw));
    serveNative(httpServer, raw);
  });
  await new Promise<void>((resolve, reject) => {
    netServer.once("error", reject);
    netServer.listen(port, host, () => {
      netServer.off("error", reject);
      resolve();
    });
  });
  let closing: Promise<void> | undefined;
  return {
    port: (netServer.address() as net.AddressInfo).port,
    close() {
      closing ??= (async () => {
        abort.abort();
        const closed = new Promise<void>((resolve) => netServer.close(() => resolve()));
        // The HTTP server never listens itself, so its own connection tracking is inactive:
        // destroying the raw sockets is what ends idle keep-alive connections.
        for (const socket of sockets) socket.destroy();
        await Promise.allSettled([...inflight]);
        await closed;
        rt.store.close();
      })();
      return closing;
    },
  };
}

/** Service requests are counted while the emulator holds them, and throttled when asked (control/faults.ts). */
async function serve(rt: Runtime, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const target = req.url ?? "/";
  const q = target.indexOf("?");
  const service = classify(rt, q < 0 ? target : target.slice(0, q));
  if (service.kind !== "service") return serveRequest(rt, req, res);
  const throttle = rt.faults.throttle;
  const retryAfter = throttle.enter();
  try {
    if (retryAfter === undefined) return await serveRequest(rt, req, res);
    req.resume();
    const path = q < 0 ? target : target.slice(0, q);
    const query = q < 0 ? "" : target.slice(q + 1);
    const method = methodFor(service, req.method ?? "GET", new URLSearchParams(query));
    rt.requests.push({ method, path, query, status: 429, at: Date.now() });
    const reply = errorFor(service, 429, "throttled: too many requests");
    send(res, { ...reply, headers: { ...reply.headers, "retry-after": String(retryAfter) } });
  } finally {
    throttle.leave();
  }
}

async function serveRequest(rt: Runtime, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const target = req.url ?? "/";
  const q = target.indexOf("?");
  const path = q < 0 ? target : target.slice(0, q);
  const query = new URLSearchParams(q < 0 ? "" : target.slice(q + 1));
  const max = path === "/_emulator/snapshot" ? MAX_SNAPSHOT_BODY : MAX_BODY;
  const body = await readBody(req, max);
  if (body === undefined) return send(res, jsonReply(413, { error: `request body too large (at most ${max} bytes)` }));
  const service = classify(rt, path);
  const rawMethod = req.method ?? "GET";
  const method = methodFor(service, rawMethod, query);
  const incoming: Incoming = { method: rawMethod, path, params: {}, query, headers: req.headers, body };
  const mutating = rawMethod !== "GET" && rawMethod !== "HEAD";

  if (service.kind === "control" || service.kind === "none") {
    const refused = service.kind === "control" ? controlRefusal(rt, req, body, mutating, path.startsWith(UI_PREFIX) ? query.get("token") : null) : undefined;
    const reply =
      refused ?? (service.kind === "none" ? jsonReply(404, { error: `no such path ${path}` }) : await handleControl(rt, { ...incoming, path: path.slice(CONTROL_PREFIX.length) }));
    settle(rt, mutating);
    return send(res, reply);
  }

  const log = (status: number) => {
    if (service.kind === "service") rt.requests.push({ method, path, query: q < 0 ? "" : target.slice(q + 1), status, at: Date.now() });
  };
  const fault = rt.faults.take([rawMethod, method], path);
  if (fault?.when === "before") {
    if (fault.delayMs) await sleep(fault.delayMs, rt.closing);
    if (fault.hold) await rt.faults.hold({ method, path, when: "before" }, rt.closing);
    const early = applyFault(fault, service, req, res, log);
    if (early) return;
  }

  let reply: Reply;
  try {
    reply = await dispatch(rt, service, incoming);
  } catch (err) {
    reply = errorFor(service, 500, `internal emulator error: ${(err as Error).message}`);
  }
  settle(rt, mutating);

  if (fault?.when === "after") {
    if (fault.delayMs) await sleep(fault.delayMs, rt.closing);
    if (fault.hold) await rt.faults.hold({ method, path, when: "after" }, rt.closing);
    if (applyFault(fault, service, req, res, log)) return;
  }
  log(reply.status);
  send(res, reply);
}

/**
 * Control endpoints never answer the emulator's own outbound requests (a notification URL pointing
 * at /_emulator/reset) nor pages of other sites (sites.ts), and need the control token when the
 * emulator listens beyond loopback.
 */
function controlRefusal(rt: Runtime, req: http.IncomingMessage, body: Buffer, mutating: boolean, uiToken: string | null): Reply | undefined {
  if (isOwnOutbound(req.socket)) {
    return jsonReply(403, { error: "control endpoints do not answer the emulator's own outbound requests" });
  }
  const refused = hostRefusal(rt.sites, req.headers) ?? (mutating ? writeRefusal(req.headers, body) : undefined);
  if (refused !== undefined || rt.controlToken === undefined) return refused;
  // A browser cannot set a header on the page it opens: the web page takes the token as ?token=.
  const given = Buffer.from(header(req.headers, CONTROL_TOKEN_HEADER) ?? uiToken ?? "");
  const expected = Buffer.from(rt.controlToken);
  if (given.length === expected.length && timingSafeEqual(given, expected)) return undefined;
  return jsonReply(401, { error: `control endpoints need the control token (header ${CONTROL_TOKEN_HEADER}) printed at start` });
}

/**
 * Every area settles after every request, reads included (replication copies whatever changed at
 * once: a GET can mint credentials into storage). The snapshot is due after a write.
 */
function settle(rt: Runtime, mutating: boolean): void {
  for (const area of rt.areas) area.settle?.(rt);
  if (mutating) rt.store.save();
}

function dispatch(rt: Runtime, service: Target, req: Incoming): Promise<Reply> | Reply {
  if (service.kind === "service") return service.entry.handle(rt, { ...req, path: req.path.slice(service.entry.prefix.length) });
  const name = safeDecode(req.path.slice(SINK_PREFIX.length));
  const sink = rt.sinks.record(name, { method: req.method, headers: req.headers, body: req.body.toString("utf8") });
  return { status: sink.status, headers: { "content-type": "text/plain" }, body: sink.body };
}

/** Answers for the fault; false when the fault only delays and normal handling continues. */
function applyFault(fault: Fault, service: Target, req: http.IncomingMessage, res: http.ServerResponse, log: (status: number) => void): boolean {
  const action = faultAction(fault);
  if (action.kind === "delay-only") return false;
  if (action.kind === "drop") {
    log(0);
    req.socket.destroy();
    return true;
  }
  const reply = errorFor(service, action.status, `injected fault (HTTP ${action.status})`);
  if (action.retryAfter !== undefined) reply.headers = { ...reply.headers, "retry-after": String(action.retryAfter) };
  log(action.status);
  send(res, reply);
  return true;
}

/** An error body in the shape of the service the request was for. */
function errorFor(service: Target, status: number, message: string): Reply {
  if (service.kind === "service") return service.entry.error(status, message);
  return { status, headers: { "content-type": "text/plain" }, body: message };
}

function send(res: http.ServerResponse, reply: Reply): void {
  if (res.destroyed || res.headersSent) return;
  const body = reply.body ?? "";
  const headers: Record<string, string | number> = { ...reply.headers };
  if (reply.status !== 204 && reply.status !== 304) headers["content-length"] = Buffer.byteLength(body);
  res.writeHead(reply.status, headers);
  res.end(reply.status === 204 || reply.status === 304 ? undefined : body);
}

const NO_BODY = Buffer.alloc(0);

function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | undefined> | Buffer {
  // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112 6.3): no listeners,
  // no promise, on the path every GET takes.
  if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) {
    req.resume();
    return NO_BODY;
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > max ? undefined : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** Resolves early when the emulator closes, so a pending delay never holds the process open. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
