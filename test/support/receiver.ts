import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received { headers: Record<string, string | string[] | undefined>; body: string }

/** A webhook destination on 127.0.0.1:0 that records requests and answers with `status`. */
export async function startReceiver(): Promise<{ url: string; received: Received[]; setStatus(s: number): void; close(): Promise<void> }> {
  const received: Received[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "nope");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    setStatus: (s) => { status = s; },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
