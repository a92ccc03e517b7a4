import { beforeAll, describe, expect, test } from "vitest";
import { startEmulator } from "../../src/emulator";
import { ListRewriter } from "../../src/emulator/transport/listRewrite";
import { bodyOf, rawConnection, statusOf, svcToken } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";

const { emu } = useEmulator({ reset: false });
beforeAll(async () => {
  await call("POST", `${emu.secretsUrl}/transform/alphabet/seeded`, { headers: svcToken(emu.tokens.secretsRoot), body: { alphabet: "xy" } });
});

const host = () => new URL(emu.url).host;

describe("LIST over a raw keep-alive connection", () => {
  test("LIST, POST with a body, LIST, GET ?list=true, chunked POST, LIST on one socket", async () => {
    const conn = await rawConnection(emu.url);
    const token = emu.tokens.secretsRoot;
    const head = (line: string, extra = "") => `${line}\r\nHost: ${host()}\r\nX-Svc-Token: ${token}\r\n${extra}\r\n`;
    const postBody = JSON.stringify({ alphabet: "abc" });
    const chunkedBody = JSON.stringify({ alphabet: "0123" });
    const requests = [
      head("LIST /v1/transform/alphabet HTTP/1.1"),
      head("POST /v1/transform/alphabet/a1 HTTP/1.1", `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(postBody)}\r\n`) + postBody,
      head("LIST /v1/transform/alphabet/ HTTP/1.1"),
      head("GET /v1/transform/alphabet?list=true HTTP/1.1"),
      head("POST /v1/transform/alphabet/a2 HTTP/1.1", "Transfer-Encoding: chunked\r\n") +
        `${(5).toString(16)}\r\n${chunkedBody.slice(0, 5)}\r\n${(chunkedBody.length - 5).toString(16)}\r\n${chunkedBody.slice(5)}\r\n0\r\n\r\n`,
      // A body that itself looks like a LIST request line must not be rewritten.
      head("POST /v1/transform/alphabet/a3 HTTP/1.1", "Content-Length: 40\r\n") + "LIST /v1/x HTTP/1.1\r\n\r\n".padEnd(40, " "),
      head("LIST /v1/transform/alphabet HTTP/1.1"),
    ];
    // One byte at a time for the first two requests, so heads and bodies split across packets.
    for (const ch of requests[0] + requests[1]) {
      conn.socket.write(ch);
      await new Promise((r) => setImmediate(r));
    }
    for (const r of requests.slice(2)) conn.socket.write(r);
    const responses = await conn.waitFor(requests.length);
    expect(responses.map(statusOf)).toEqual([200, 204, 200, 200, 204, 400, 200]);
    expect(JSON.parse(bodyOf(responses[0])).data.keys).toEqual(["seeded"]);
    expect(JSON.parse(bodyOf(responses[2])).data.keys).toEqual(["a1", "seeded"]);
    expect(JSON.parse(bodyOf(responses[3])).data.keys).toEqual(["a1", "seeded"]);
    expect(JSON.parse(bodyOf(responses[6])).data.keys).toEqual(["a1", "a2", "seeded"]);
    conn.socket.destroy();
  });

  test("a connection that starts with GETs moves to the rewriter at its first LIST, split at any byte", async () => {
    const token = emu.tokens.secretsRoot;
    const req = (line: string) => `${line}\r\nHost: ${host()}\r\nX-Svc-Token: ${token}\r\n\r\n`;
    const list = req("LIST /v1/transform/alphabet HTTP/1.1");
    for (const cut of [0, 1, 2, 3, 5, list.length - 1]) {
      const conn = await rawConnection(emu.url);
      conn.socket.write(req("GET /v1/transform/alphabet/seeded HTTP/1.1"));
      await conn.waitFor(1);
      conn.socket.write(list.slice(0, cut));
      await new Promise((r) => setTimeout(r, 20));
      conn.socket.write(list.slice(cut));
      await conn.waitFor(2);
      conn.socket.write(req("GET /v1/transform/alphabet/seeded HTTP/1.1") + list);
      const responses = await conn.waitFor(4);
      expect(responses.map(statusOf), `cut at ${cut}`).toEqual([200, 200, 200, 200]);
      expect(JSON.parse(bodyOf(responses[1])).data.keys).toContain("seeded");
      expect(JSON.parse(bodyOf(responses[2])).data.alphabet).toBe("xy");
      expect(JSON.parse(bodyOf(responses[3])).data.keys).toContain("seeded");
      conn.socket.destroy();
    }
  });

  test("a GET and a LIST pipelined in one packet are answered in order", async () => {
    const token = emu.tokens.secretsRoot;
    const req = (line: string) => `${line}\r\nHost: ${host()}\r\nX-Svc-Token: ${token}\r\n\r\n`;
    const conn = await rawConnection(emu.url);
    conn.socket.write(req("GET /v1/transform/alphabet/seeded HTTP/1.1") + req("LIST /v1/transform/alphabet HTTP/1.1"));
    const responses = await conn.waitFor(2);
    expect(responses.map(statusOf)).toEqual([200, 200]);
    expect(JSON.parse(bodyOf(responses[0])).data.alphabet).toBe("xy");
    expect(JSON.parse(bodyOf(responses[1])).data.keys).toContain("seeded");
    conn.socket.destroy();
  });

  test("pipelined requests act in order: a write, then a bodiless read of it, in one packet", async () => {
    const token = emu.tokens.secretsRoot;
    const body = JSON.stringify({ alphabet: "pq" });
    const conn = await rawConnection(emu.url);
    conn.socket.write(
      `POST /v1/transform/alphabet/piped HTTP/1.1\r\nHost: ${host()}\r\nX-Svc-Token: ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
      `GET /v1/transform/alphabet/piped HTTP/1.1\r\nHost: ${host()}\r\nX-Svc-Token: ${token}\r\n\r\n` +
      `DELETE /v1/transform/alphabet/piped HTTP/1.1\r\nHost: ${host()}\r\nX-Svc-Token: ${token}\r\n\r\n` +
      `GET /v1/transform/alphabet/piped HTTP/1.1\r\nHost: ${host()}\r\nX-Svc-Token: ${token}\r\n\r\n`);
    const responses = await conn.waitFor(4);
    expect(responses.map(statusOf)).toEqual([204, 200, 204, 404]);
    expect(JSON.parse(bodyOf(responses[1])).data.alphabet).toBe("pq");
    conn.socket.destroy();
  });

  test.each(["FOO /v1/x HTTP/1.1", "LIX /v1/x HTTP/1.1", "LISTEN /v1/x HTTP/1.1"])("any other unknown method (%s) is refused with 400 and the connection closed", async (line) => {
    const conn = await rawConnection(emu.url);
    conn.socket.write(`GET /v1/transform/alphabet/seeded HTTP/1.1\r\nHost: ${host()}\r\nX-Svc-Token: ${emu.tokens.secretsRoot}\r\n\r\n`);
    await conn.waitFor(1);
    conn.socket.write(`${line}\r\nHost: ${host()}\r\n\r\n`);
    await conn.closed;
    expect(conn.data()).toMatch(/HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n\r\n$/);
  });

  test("LIST with an existing query string keeps it", async () => {
    const conn = await rawConnection(emu.url);
    conn.socket.write(`LIST /v1/transform/alphabet?foo=bar HTTP/1.1\r\nHost: ${host()}\r\nX-Svc-Token: ${emu.tokens.secretsRoot}\r\n\r\n`);
    const [response] = await conn.waitFor(1);
    expect(statusOf(response)).toBe(200);
    conn.socket.destroy();
    const log = await call("GET", `${emu.controlUrl}/requests`);
    const entry = log.json.requests.find((r: { query: Record<string, string> }) => r.query.foo === "bar");
    expect(entry).toMatchObject({ method: "LIST", path: "/v1/transform/alphabet", status: 200 });
  });

  test("close() ends idle keep-alive connections", async () => {
    const local = await startEmulator();
    const conn = await rawConnection(local.url);
    conn.socket.write(`LIST /v1/transform/alphabet HTTP/1.1\r\nHost: x\r\nX-Svc-Token: ${local.tokens.secretsRoot}\r\n\r\n`);
    await conn.waitFor(1);
    await local.close();
    await conn.closed;
    expect(conn.socket.destroyed).toBe(true);
  });
});

describe("ListRewriter", () => {
  const feed = (parts: string[]) => {
    const r = new ListRewriter();
    return parts.flatMap((p) => r.push(Buffer.from(p, "latin1"))).map((b) => b.toString("latin1")).join("");
  };

  test("rewrites only request lines", () => {
    expect(feed(["LIST /v1/a HTTP/1.1\r\nHost: h\r\n\r\n"])).toBe("GET /v1/a?list=true HTTP/1.1\r\nHost: h\r\n\r\n");
    expect(feed(["LIST /v1/a?x=1 HTTP/1.1\r\n\r\n"])).toBe("GET /v1/a?x=1&list=true HTTP/1.1\r\n\r\n");
    expect(feed(["GET /v1/a HTTP/1.1\r\n\r\n"])).toBe("GET /v1/a HTTP/1.1\r\n\r\n");
  });

  test("skips Content-Length and chunked bodies split at any byte", () => {
    const stream =
      "POST /a HTTP/1.1\r\nContent-Length: 23\r\n\r\nLIST /x HTTP/1.1\r\n\r\n..." +
      "POST /b HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n4\r\nLIST\r\n0\r\nX-T: 1\r\n\r\n" +
      "\r\nLIST /c HTTP/1.1\r\n\r\n";
    const expected = stream.replace("LIST /c HTTP/1.1", "GET /c?list=true HTTP/1.1");
    for (let cut = 1; cut < stream.length; cut++) {
      expect(feed([stream.slice(0, cut), stream.slice(cut)])).toBe(expected);
    }
    expect(feed([...stream])).toBe(expected);
  });
});
