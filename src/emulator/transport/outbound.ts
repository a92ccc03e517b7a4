import http from "node:http";
import https from "node:https";

/**
 * The emulator's own outbound requests (notifications, verifications): the POST, and which incoming
 * connections are them, so the server refuses them the control endpoints (server.ts).
 */

export interface OutboundResponse {
  status: number;
  headers: Record<string, string[]>;
  body: string;
}

/**
 * Every open outbound connection of this process, by both of its ends. An incoming connection
 * whose two ends are an outbound connection's ends, crossed, is the emulator talking to itself,
 * whichever host name, address or redirect led there; the server refuses control endpoints to it.
 * Both ends count: Linux gives one local port to several connections with different peers, so a
 * test client in the same process may share a local port with a delivery. Process-wide on
 * purpose: one emulator's delivery must not reach another emulator's control plane either.
 */
const ownConnections = new Set<string>();

interface Ends {
  localAddress?: string;
  localPort?: number;
  remoteAddress?: string;
  remotePort?: number;
}

const end = (address: string | undefined, port: number | undefined) => `${(address ?? "").replace(/^::ffff:/, "")}|${port ?? 0}`;

/** True when an incoming connection is an outbound request of this process. */
export function isOwnOutbound(incoming: Ends): boolean {
  return ownConnections.size > 0 &&
    ownConnections.has(`${end(incoming.remoteAddress, incoming.remotePort)}>${end(incoming.localAddress, incoming.localPort)}`);
}

/** Response bodies beyond this are not read: only the first 4096 characters are ever stored. */
const MAX_READ = 64 * 1024;

/**
 * POSTs `body` and resolves with the response, or rejects with a message fit for an error detail.
 * A fresh connection per delivery (agent: false) so nothing lingers after the emulator closes.
 */
export function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<OutboundResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const transport = target.protocol === "https:" ? https : http;
    const req = transport.request(target, {
      method: "POST",
      agent: false,
      signal,
      headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
    });
    // Registered on connect, before the request is written, so the server sees it before any byte.
    req.on("socket", (socket) => {
      let key: string | undefined;
      socket.once("connect", () => {
        key = `${end(socket.localAddress, socket.localPort)}>${end(socket.remoteAddress, socket.remotePort)}`;
        ownConnections.add(key);
      });
      socket.once("close", () => {
        if (key !== undefined) ownConnections.delete(key);
      });
    });
    const timer = setTimeout(() => req.destroy(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(new Error(`request to ${url} failed: ${err.message}`));
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        if (size < MAX_READ) chunks.push(chunk);
        size += chunk.length;
      });
      res.on("end", () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headersDistinct as Record<string, string[]>, body: Buffer.concat(chunks).toString("utf8") });
      });
      res.on("error", (err) => {
        clearTimeout(timer);
        reject(new Error(`response from ${url} failed: ${err.message}`));
      });
    });
    req.end(body);
  });
}
