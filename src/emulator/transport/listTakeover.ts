import type http from "node:http";
import type { Socket } from "node:net";
import { RewritingSocket } from "./socket";

/**
 * Connections start on Node's native path, where its C++ parser reads the socket itself (about
 * twice the requests per second of a JavaScript stream in between). That parser refuses the
 * secrets service's LIST method. It accepts "LI" (the start of LINK) and fails at the "S", so when
 * it refuses a LIST the connection is handed, from that request on, to a RewritingSocket, which
 * rewrites LIST for the parser, and stays there. Every other parse error is answered as Node does.
 */

/** What Node answers a request it cannot parse with, by error code. */
const REFUSALS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "413 Payload Too Large",
  ERR_HTTP_REQUEST_TIMEOUT: "408 Request Timeout",
};

interface ParseError extends Error {
  code?: string;
  bytesParsed?: number;
  rawPacket?: unknown;
}

/** The refused request's bytes from its first one ("LIST ..."), or undefined when it is no LIST. */
function refusedList(err: ParseError): Buffer | undefined {
  const packet = err.rawPacket;
  const at = err.bytesParsed;
  if (err.code !== "HPE_INVALID_METHOD" || !Buffer.isBuffer(packet) || typeof at !== "number" || at < 0 || at > packet.length) return undefined;
  // "LI" may have come in an earlier read; what this read holds of it must be its end.
  const before = packet.subarray(Math.max(0, at - 2), at).toString("latin1");
  const rest = packet.subarray(at);
  if (!"LI".endsWith(before) || !"ST ".startsWith(rest.subarray(0, 3).toString("latin1"))) return undefined;
  return Buffer.concat([Buffer.from("LI", "latin1"), rest]);
}

interface NodeParser {
  _consumed?: boolean;
  unconsume?(): void;
}

/** Events the HTTP server listens to on a connection it serves. */
const SERVER_EVENTS = ["data", "end", "close", "drain", "error", "timeout", "pause", "resume"] as const;

/** Per connection, the listeners it had before the HTTP server took it (the socket's own, ours). */
const before = new WeakMap<Socket, Map<string, Set<Function>>>();

/** Hands a new connection to the HTTP server on the native path, noting what listened before. */
export function serveNative(server: http.Server, raw: Socket): void {
  before.set(raw, new Map(SERVER_EVENTS.map((e) => [e, new Set(raw.listeners(e))])));
  server.emit("connection", raw);
}

/**
 * Detaches the HTTP server from `raw` (stops its parser reading the socket, removes the listeners
 * it added, clears its timer) and serves the rest of the connection through a RewritingSocket.
 * False when this Node's server cannot be detached.
 */
function takeOver(server: http.Server, raw: Socket, first: Buffer): boolean {
  const parser = (raw as unknown as { parser?: NodeParser | null }).parser;
  const had = before.get(raw);
  if (!had || !parser || typeof parser.unconsume !== "function") return false;
  if (parser._consumed) parser.unconsume();
  parser._consumed = false;
  (raw as unknown as { parser?: unknown }).parser = null;
  for (const event of SERVER_EVENTS) {
    for (const l of raw.listeners(event)) if (!had.get(event)!.has(l)) raw.removeListener(event, l as (...args: unknown[]) => void);
  }
  raw.setTimeout(0);
  const wrapped = new RewritingSocket(raw, first);
  // A response still being written for an earlier (pipelined) request goes out first.
  const inFlight = (raw as unknown as { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished) {
    let handed = false;
    const hand = () => { if (!handed) { handed = true; server.emit("connection", wrapped); } };
    inFlight.once("finish", hand);
    inFlight.once("close", hand);
  } else {
    server.emit("connection", wrapped);
  }
  return true;
}

/** The server's clientError handler: LIST moves the connection, anything else is refused as Node would. */
export function listTakeover(server: http.Server): (err: Error, socket: Socket) => void {
  return (err, socket) => {
    const first = refusedList(err as ParseError);
    if (first && !(socket instanceof RewritingSocket) && takeOver(server, socket, first)) return;
    const inFlight = (socket as unknown as { _httpMessage?: http.ServerResponse | null })._httpMessage;
    if (socket.writable && (!inFlight || !inFlight.headersSent)) {
      const status = REFUSALS[(err as ParseError).code ?? ""] ?? "400 Bad Request";
      socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    }
    socket.destroy(err);
  };
}
