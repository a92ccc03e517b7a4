import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach } from "vitest";

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The status it answers with; tests change it. */
  status: number;
  /** When true it holds each request, unanswered, until release() (or the end of the file). */
  hang: boolean;
  /** Answers every held request with `status`; how many there were. */
  release(): number;
}

/** A webhook receiver on 127.0.0.1 for the whole file, emptied and answering 200 again before each test. */
export function useReceiver(): Receiver {
  let held: http.ServerResponse[] = [];
  const answer = (res: http.ServerResponse) => {
    res.writeHead(receiver.status, { "content-type": "text/plain", "x-receiver": "yes" });
    res.end(`received ${receiver.status}`);
  };
  const receiver: Receiver = {
    url: "", received: [], status: 200, hang: false,
    release: () => {
      const all = held;
      held = [];
      all.forEach(answer);
      return all.length;
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      receiver.received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (receiver.hang) held.push(res);
      else answer(res);
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  beforeEach(() => {
    held = [];
    receiver.received.length = 0;
    receiver.status = 200;
    receiver.hang = false;
  });
  return receiver;
}
