import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { startEmulator, type Emulator, type EmulatorOptions } from "../../src/emulator";
import { call } from "../support/http";

export const bearer = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" });
export const svcToken = (token: string) => ({ "x-svc-token": token });

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

/**
 * A fresh temporary state file per test; `start` opens emulators on it, and every emulator in
 * `running` is closed (a second close is harmless) and the folder removed after each test.
 */
export function useStateFile(prefix: string) {
  let dir = "";
  const files = {
    path: "",
    running: [] as Emulator[],
    async start(options: EmulatorOptions = {}): Promise<Emulator> {
      const emu = await startEmulator({ statePath: files.path, ...options });
      files.running.push(emu);
      return emu;
    },
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    files.path = join(dir, "state.json");
  });
  afterEach(async () => {
    await Promise.all(files.running.splice(0).map((e) => e.close()));
    rmSync(dir, { recursive: true, force: true });
  });
  return files;
}

/** Secrets-service requests under `base`, with the root token unless a test passes other headers. */
export function secretsApi(emu: Emulator, base = "") {
  const root = () => svcToken(emu.tokens.secretsRoot);
  const url = (path = "") => `${emu.secretsUrl}/${base}${path}`;
  const send = (method: string) => (path = "", headers = root()) => call(method, url(path), { headers });
  const write = (method: string) => (path: string, body: unknown = {}, headers = root()) => call(method, url(path), { headers, body });
  return { root, user: () => svcToken(emu.tokens.secretsUser), url, get: send("GET"), list: send("LIST"), del: send("DELETE"), post: write("POST"), put: write("PUT") };
}
