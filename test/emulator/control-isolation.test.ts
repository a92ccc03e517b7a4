import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startEmulator } from "../../src/emulator";
import { main } from "../../src/emulator/cli";
import { bearer, call, svcToken, useEmulator } from "./helpers";

const { emu, control } = useEmulator();

/** Answers every request with a redirect to `location()`, counting what it got. */
const redirector = { url: "", hits: 0, location: "" };
const redirectServer = http.createServer((req, res) => {
  redirector.hits++;
  req.resume();
  res.writeHead(307, { location: redirector.location, "content-length": 0 });
  res.end();
});
beforeAll(async () => {
  await new Promise<void>((resolve) => redirectServer.listen(0, "127.0.0.1", resolve));
  redirector.url = `http://127.0.0.1:${(redirectServer.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((resolve) => redirectServer.close(() => resolve())));

async function createEnabledNc(url: string) {
  return call("POST", `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`, {
    headers: bearer(emu.tokens.runOrganization),
    body: { data: { type: "notification-configurations", attributes: { name: "attack", "destination-type": "generic", url, enabled: true } } },
  });
}

/** An object that a reset would remove. */
async function canary(): Promise<() => Promise<number>> {
  const url = `${emu.secretsUrl}/transform/alphabet/canary`;
  expect((await call("POST", url, { headers: svcToken(emu.tokens.secretsRoot), body: { alphabet: "ab" } })).status).toBe(204);
  return async () => (await call("GET", url, { headers: svcToken(emu.tokens.secretsRoot) })).status;
}

describe("outbound requests never reach the control endpoints", () => {
  const port = () => new URL(emu.url).port;

  test.each([
    ["the control URL itself", () => `${emu.controlUrl}/reset`],
    ["localhost", () => `http://localhost:${port()}/_emulator/reset`],
    ["an IPv4-mapped IPv6 address", () => `http://[::ffff:127.0.0.1]:${port()}/_emulator/reset`],
    ["a path with dot segments", () => `http://127.0.0.1:${port()}/v1/../_emulator/reset`],
  ])("verification to %s is refused and nothing is reset", async (_label, target) => {
    const alive = await canary();
    const res = await createEnabledNc(target());
    expect(res.status).toBe(400);
    expect(res.json.errors[0].title).toBe("verification failed");
    expect(await alive()).toBe(200);
    const deliveries = (await control("GET", "/deliveries")).json.deliveries;
    // Either the control plane answered 403 or the address was not reachable at all; never a 2xx.
    const codes = deliveries.map((d: { response: { code: string } | null }) => d.response?.code ?? "none");
    expect(codes.every((c: string) => c === "403" || c === "none")).toBe(true);
  });

  test("a redirect to the control plane is not followed", async () => {
    const alive = await canary();
    redirector.location = `${emu.controlUrl}/reset`;
    redirector.hits = 0;
    const res = await createEnabledNc(redirector.url);
    expect(res.status).toBe(400);
    expect(redirector.hits).toBe(1);
    expect(await alive()).toBe(200);
  });

  test("the emulator's webhook sinks still receive deliveries", async () => {
    const res = await createEnabledNc(`${emu.controlUrl}/sink/ci`);
    expect(res.status).toBe(201);
    const sink = await control("GET", "/sinks/ci");
    expect(sink.json.requests).toHaveLength(1);
  });

  test("direct control requests from a client still work", async () => {
    expect((await control("GET", "/faults")).status).toBe(200);
  });
});

describe("control token beyond loopback", () => {
  test("listening on 0.0.0.0 makes a token that control endpoints require", async () => {
    const wide = await startEmulator({ host: "0.0.0.0" });
    try {
      expect(wide.controlToken).toMatch(/^emu-ctl-[0-9a-f]{32}$/);
      const url = `http://127.0.0.1:${new URL(wide.url).port}/_emulator`;
      expect((await call("POST", `${url}/reset`)).status).toBe(401);
      expect((await call("POST", `${url}/reset`, { headers: { "x-emulator-control-token": "wrong" } })).status).toBe(401);
      expect((await call("POST", `${url}/reset`, { headers: { "x-emulator-control-token": wide.controlToken! } })).status).toBe(204);
      // The services themselves keep their own tokens; sinks stay open to receive webhooks.
      expect((await call("GET", `http://127.0.0.1:${new URL(wide.url).port}/v1/transform/alphabet/x`, { headers: svcToken(wide.tokens.secretsRoot) })).status).toBe(404);
      expect((await call("POST", `${url}/sink/open`, { body: {} })).status).toBe(200);
    } finally {
      await wide.close();
    }
  });

  test("on loopback there is no token unless one is given", async () => {
    expect(emu.controlToken).toBeUndefined();
    const fixed = await startEmulator({ controlToken: "given-token" });
    try {
      expect((await call("GET", `${fixed.controlUrl}/faults`)).status).toBe(401);
      expect((await call("GET", `${fixed.controlUrl}/faults`, { headers: { "x-emulator-control-token": "given-token" } })).status).toBe(200);
    } finally {
      await fixed.close();
    }
  });

  test("the CLI prints the token when it listens beyond loopback", async () => {
    const out: string[] = [];
    const started = await main(["--host", "0.0.0.0"], { out: (l) => out.push(l), err: () => undefined });
    try {
      expect(out).toContain(`export SVC_EMULATOR_CONTROL_TOKEN=${started!.controlToken}`);
    } finally {
      await started!.close();
    }
  });
});
