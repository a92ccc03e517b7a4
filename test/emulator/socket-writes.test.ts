import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { RewritingSocket } from "../../src/emulator/transport/socket";
import { rawConnection } from "./helpers";
import { call } from "../support/http";

/** An HTTP server behind the LIST rewriter, as the emulator runs it, counting writes to the raw socket. */
const writes: number[] = [];
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const body = JSON.stringify({ method: req.method, url: req.url, pad: "x".repeat(Number(req.headers["x-pad"] ?? 0)) });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(Buffer.from(body));
  });
});
const listener = net.createServer({ allowHalfOpen: true }, (raw) => {
  const index = writes.push(0) - 1;
  const write = raw.write.bind(raw) as (...args: unknown[]) => boolean;
  raw.write = ((...args: unknown[]) => {
    writes[index]++;
    return write(...args);
  }) as typeof raw.write;
  server.emit("connection", new RewritingSocket(raw));
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

describe("RewritingSocket writes", () => {
  test("head and body of a response reach the raw socket in one write", async () => {
    writes.length = 0;
    const res = await call("GET", `${url}/one`, { headers: { "x-pad": "20000" } });
    expect(res.json.url).toBe("/one");
    expect(writes).toEqual([1]);
  });

  test("three keep-alive requests on one connection: one write each, LIST rewritten", async () => {
    writes.length = 0;
    const conn = await rawConnection(url);
    const head = (line: string) => `${line}\r\nHost: x\r\n\r\n`;
    conn.socket.write(head("GET /a HTTP/1.1"));
    await conn.waitFor(1);
    conn.socket.write(head("LIST /b HTTP/1.1"));
    await conn.waitFor(2);
    conn.socket.write(head("GET /c HTTP/1.1"));
    const responses = await conn.waitFor(3);
    conn.socket.destroy();
    expect(responses.map((r) => JSON.parse(r.slice(r.indexOf("\r\n\r\n") + 4)).url)).toEqual(["/a", "/b?list=true", "/c"]);
    expect(writes).toEqual([3]);
  });
});
