import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startEmulator, type Emulator } from "../../src/emulator";
import { main } from "../../src/emulator/cli";
import { stateKey, unseal } from "../../src/emulator/persistence/stateFile";
import { bearer, svcToken } from "./helpers";
import { call } from "../support/http";
import { controlResponse, useEmulator } from "../support/emulator";
import { runsApi } from "./runs-helpers";

const { emu } = useEmulator();

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

async function createEnabledNc(url: string, on: Emulator = emu, triggers?: string[]) {
  return call("POST", `${on.runUrl}/workspaces/${on.workspaceId}/notification-configurations`, {
    headers: bearer(on.tokens.runOrganization),
    body: { data: { type: "notification-configurations", attributes: { name: "attack", "destination-type": "generic", url, enabled: true, ...(triggers ? { triggers } : {}) } } },
  });
}

/** An object that a reset would remove. */
async function canary(on: Emulator = emu): Promise<() => Promise<number>> {
  const url = `${on.secretsUrl}/transform/alphabet/canary`;
  expect((await call("POST", url, { headers: svcToken(on.tokens.secretsRoot), body: { alphabet: "ab" } })).status).toBe(204);
  return async () => (await call("GET", url, { headers: svcToken(on.tokens.secretsRoot) })).status;
}

/** The run-event entries of the deliveries log, once the log holds `total` entries (verifications included). */
async function runDeliveries(on: Emulator, total: number): Promise<{ trigger: string; url: string; response: { code: string } | null; error?: string }[]> {
  const res = await call("GET", `${on.controlUrl}/deliveries?wait=${total}&timeoutMs=5000`);
  expect(res.status).toBe(200);
  return res.json.deliveries.filter((d: { trigger: string }) => d.trigger !== "verification");
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
    const deliveries = (await controlResponse(emu, "GET", "/deliveries")).json.deliveries;
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
    const sink = await controlResponse(emu, "GET", "/sinks/ci");
    expect(sink.json.requests).toHaveLength(1);
  });

  // A delivery is sent long after the configuration was verified, to whatever its url names then:
  // a configuration loaded from a state file (no verification ran in this process) or a receiver
  // that answered the verification and redirects what follows.
  test("a run notification to the emulator's own control URL is refused and nothing is reset", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-isolation-"));
    const statePath = join(dir, "state.json");
    let first: Emulator | undefined;
    let second: Emulator | undefined;
    try {
      first = await startEmulator({ statePath });
      const port = Number(new URL(first.url).port);
      const made = await createEnabledNc(`${first.controlUrl}/sink/ok`, first, ["run:created"]);
      expect(made.status).toBe(201);
      await first.close();
      first = undefined;
      // Point the saved configuration at the control plane of the emulator that will load it (the same
      // port), written as a version 1 (plaintext) file, which still loads.
      const doc = unseal(statePath, readFileSync(statePath, "utf8"), () => stateKey(statePath)) as { data: { run: { notificationConfigurations: Record<string, { url: string }> } } };
      const reset = `http://127.0.0.1:${port}/_emulator/reset`;
      doc.data.run.notificationConfigurations[made.json.data.id].url = reset;
      writeFileSync(statePath, JSON.stringify(doc));
      second = await startEmulator({ statePath, port });
      const alive = await canary(second);
      const run = await runsApi(second).createId();
      const [delivery] = await runDeliveries(second, 1);
      expect(delivery).toMatchObject({ trigger: "run:created", url: reset, response: { code: "403" } });
      expect(await alive()).toBe(200);
      expect((await runsApi(second).get(run)).status, "the run survived: nothing was reset").toBe(200);
      const nc = await call("GET", `${second.runUrl}/notification-configurations/${made.json.data.id}`, { headers: bearer(second.tokens.runAdmin) });
      expect(nc.json.data.attributes["delivery-responses"][0]).toMatchObject({ code: "403", successful: false });
    } finally {
      await first?.close();
      await second?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a run notification redirected to the control plane after a good verification is not followed", async () => {
    // Answers the verification with 200, then redirects every notification to the control plane.
    let hits = 0;
    const turncoat = http.createServer((req, res) => {
      hits++;
      req.resume();
      if (hits === 1) res.writeHead(200, { "content-length": 0 }).end();
      else res.writeHead(307, { location: `${emu.controlUrl}/reset`, "content-length": 0 }).end();
    });
    await new Promise<void>((resolve) => turncoat.listen(0, "127.0.0.1", resolve));
    try {
      const alive = await canary();
      const made = await createEnabledNc(`http://127.0.0.1:${(turncoat.address() as AddressInfo).port}/hook`, emu, ["run:created"]);
      expect(made.status).toBe(201);
      await runsApi(emu).createId();
      const [delivery] = await runDeliveries(emu, 2);
      expect(delivery).toMatchObject({ trigger: "run:created", response: { code: "307" } });
      expect(hits).toBe(2);
      expect(await alive()).toBe(200);
    } finally {
      await new Promise<void>((resolve) => turncoat.close(() => resolve()));
    }
  });

  test("direct control requests from a client still work", async () => {
    expect((await controlResponse(emu, "GET", "/faults")).status).toBe(200);
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

describe("pages of other sites (the attacker's requests, as a browser sends them)", () => {
  const port = () => new URL(emu.url).port;
  const rebound = () => ({ host: `evil.example:${port()}` });
  const foreign = { origin: "https://evil.example" };

  test.each(["/ui/state.json", "/snapshot", "/ui/", "/requests"])("a rebound name reads nothing: GET %s is 403 and names --allowed-host", async (path) => {
    const res = await call("GET", `${emu.controlUrl}${path}`, { headers: rebound() });
    expect(res.status).toBe(403);
    expect(res.json.error).toContain("--allowed-host evil.example");
    expect(res.text).not.toContain(emu.tokens.secretsRoot);
  });

  test("a rebound name changes nothing either, and the service APIs still answer by token whatever the Host", async () => {
    const alive = await canary();
    expect((await call("POST", `${emu.controlUrl}/reset`, { headers: rebound() })).status).toBe(403);
    expect(await alive()).toBe(200);
    const read = await call("GET", `${emu.secretsUrl}/transform/alphabet/canary`, { headers: { ...rebound(), ...svcToken(emu.tokens.secretsRoot) } });
    expect(read.status).toBe(200);
    const runs = await call("GET", `${emu.runUrl}/workspaces/${emu.workspaceId}/runs`, { headers: { ...rebound(), ...bearer(emu.tokens.runAdmin) } });
    expect(runs.status).toBe(200);
    // Without its token a service still refuses: the Host never stands in for one.
    expect((await call("GET", `${emu.secretsUrl}/transform/alphabet/canary`, { headers: { host: "127.0.0.1" } })).status).toBe(403);
  });

  test("a foreign Origin changes nothing: reset with and without a body, a fault, the clock, a snapshot", async () => {
    const alive = await canary();
    const snapshot = (await controlResponse(emu, "GET", "/snapshot")).text;
    const tries: [string, string, string | undefined][] = [
      ["POST", "/reset", undefined],
      ["POST", "/reset", "{}"],
      ["POST", "/faults", JSON.stringify({ method: "GET", path: "/v1/*", status: 500 })],
      ["PUT", "/clock", JSON.stringify({ autoAdvanceMs: 5 })],
      ["PUT", "/snapshot", snapshot],
    ];
    for (const [method, path, raw] of tries) {
      const res = await call(method, `${emu.controlUrl}${path}`, { headers: foreign, raw });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.json.error).toContain("origin https://evil.example may not change the emulator");
    }
    expect(await alive()).toBe(200);
    expect((await controlResponse(emu, "GET", "/faults")).json.faults).toEqual([]);
  });

  test("a body a page can send without asking (text/plain, a form) changes nothing and gets 415", async () => {
    const alive = await canary();
    for (const type of ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=b"]) {
      const fault = await call("POST", `${emu.controlUrl}/faults`, { headers: { "content-type": type }, raw: JSON.stringify({ method: "GET", path: "/v1/*", status: 500 }) });
      expect(fault.status, type).toBe(415);
      const reset = await call("POST", `${emu.controlUrl}/reset`, { headers: { "content-type": type }, raw: "{}" });
      expect(reset.status, type).toBe(415);
    }
    expect(await alive()).toBe(200);
    expect((await controlResponse(emu, "GET", "/faults")).json.faults).toEqual([]);
  });

  test("the emulator's own origin, and a tool that sends JSON without an Origin, still change it", async () => {
    const own = { origin: `http://127.0.0.1:${port()}` };
    expect((await call("POST", `${emu.controlUrl}/faults`, { headers: own, body: { method: "GET", path: "/v1/nowhere", status: 500 } })).status).toBe(201);
    expect((await call("DELETE", `${emu.controlUrl}/faults`, { headers: own })).status).toBe(204);
    expect((await call("POST", `${emu.controlUrl}/reset`, { headers: { ...own, host: `localhost:${port()}`, origin: `http://localhost:${port()}` } })).status).toBe(204);
  });

  test("a name the user allows is answered, other names are not; the webhook sinks take deliveries from any name", async () => {
    const named = await startEmulator({ allowedHosts: ["emu.internal"] });
    try {
      const url = `${named.controlUrl}/ui/state.json`;
      expect((await call("GET", url, { headers: { host: `emu.internal:${new URL(named.url).port}` } })).status).toBe(200);
      expect((await call("GET", url, { headers: { host: "other.internal" } })).status).toBe(403);
      expect((await call("POST", `${named.controlUrl}/sink/hook`, { headers: { host: "hooks.example" }, body: {} })).status).toBe(200);
    } finally {
      await named.close();
    }
    await expect(startEmulator({ allowedHosts: ["http://emu.internal"] })).rejects.toThrow('allowed host "http://emu.internal" must be a host name');
  });
});
