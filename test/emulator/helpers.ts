import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";

export interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** One request on a fresh connection, so no pooled socket outlives a test's emulator. */
export function call(
  method: string,
  url: string,
  options: { headers?: Record<string, string>; body?: unknown; raw?: string } = {},
): Promise<Response> {
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent: false, headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...options.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = text === "" ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" });
export const svcToken = (token: string) => ({ "x-svc-token": token });

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 whose answer each test can change. */
export async function startReceiver(): Promise<{ url: string; received: Received[]; status: number; close(): Promise<void>; hang: boolean }> {
  const state = { url: "", received: [] as Received[], status: 200, hang: false, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      state.received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (state.hang) return;
      res.writeHead(state.status, { "content-type": "text/plain", "x-receiver": "yes" });
      res.end(`received ${state.status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** A port with nothing listening on it, for connection-refused cases. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A raw TCP connection that collects everything the server writes. */
export async function rawConnection(url: string): Promise<{ socket: net.Socket; data: () => string; waitFor(count: number, timeoutMs?: number): Promise<string[]>; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let buffer = "";
  socket.on("data", (c: Buffer) => (buffer += c.toString("latin1")));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return {
    socket,
    data: () => buffer,
    closed,
    /** Resolves with `count` complete responses (Content-Length framed). */
    async waitFor(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const responses = splitResponses(buffer);
        if (responses.length >= count) return responses;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} responses; got:\n${buffer}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

function splitResponses(buffer: string): string[] {
  const out: string[] = [];
  let rest = buffer;
  for (;;) {
    const end = rest.indexOf("\r\n\r\n");
    if (end < 0) return out;
    const head = rest.slice(0, end);
    const length = /content-length:\s*(\d+)/i.exec(head);
    const size = length ? Number(length[1]) : 0;
    if (rest.length < end + 4 + size) return out;
    out.push(rest.slice(0, end + 4 + size));
    rest = rest.slice(end + 4 + size);
  }
}

export function statusOf(response: string): number {
  return Number(response.split(" ")[1]);
}

export function bodyOf(response: string): string {
  return response.slice(response.indexOf("\r\n\r\n") + 4);
}
