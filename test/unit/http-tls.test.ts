import * as https from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient, TransportError, agentFor, closeAgents, isSvcError, type RetryInfo } from "../../src/http";

// Test-only self-signed certificate for IP 127.0.0.1, valid 2000-2100, generated for this file.
// It protects nothing: the key is here so the test needs no openssl at run time.
const CERT = `-----BEGIN CERTIFICATE-----
MIIBXTCCAQKgAwIBAgIBATAKBggqhkjOPQQDAjAUMRIwEAYDVQQDDAkxMjcuMC4w
LjEwIBcNMDAwMTAxMDAwMDAwWhgPMjEwMDAxMDEwMDAwMDBaMBQxEjAQBgNVBAMM
CTEyNy4wLjAuMTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABKX19vHZyp96zzkL
yaEEHexJr+kZSgKINqalfH/Nw4oWQN/7kdx8+UkSyQv7Qixv0LaY+RgTVXbm5yWF
/eZsGg2jQzBBMA8GA1UdEQQIMAaHBH8AAAEwDwYDVR0TAQH/BAUwAwEB/zAdBgNV
HQ4EFgQUnK95GtlbgV4FYA7m9KgilYwwXGQwCgYIKoZIzj0EAwIDSQAwRgIhANFt
FRRcAlu+vvAz2i4NUi79SqaocKnHussEscwChXL9AiEA6fxgKOMcMzU66ttf5mMP
f5RDXdgUQ3yCtBEeW5tCEzs=
-----END CERTIFICATE-----`;
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJt7YLe8akWG9UGR8
cDA6dfQRCv/L/0+z0t1EnbIkyn+hRANCAASl9fbx2cqfes85C8mhBB3sSa/pGUoC
iDampXx/zcOKFkDf+5HcfPlJEskL+0Isb9C2mPkYE1V25uclhf3mbBoN
-----END PRIVATE KEY-----`;
const OTHER_CA = CERT.replace("MIIB", "MIIC"); // distinct text, enough for agent keying

describe("agentFor", () => {
  it("memoises one agent per distinct TLS configuration", () => {
    const system = agentFor({});
    expect(agentFor({})).toBe(system);
    expect(agentFor({ caCert: "  " })).toBe(system);
    expect(agentFor({ insecureTls: false })).toBe(system);
    const insecure = agentFor({ insecureTls: true });
    const withCa = agentFor({ caCert: CERT });
    const withCaInsecure = agentFor({ caCert: CERT, insecureTls: true });
    const otherCa = agentFor({ caCert: OTHER_CA });
    const all = [system, insecure, withCa, withCaInsecure, otherCa];
    expect(new Set(all).size).toBe(all.length);
    expect(agentFor({ caCert: CERT })).toBe(withCa);
  });
});

describe("TLS against a local https server", () => {
  const server = https.createServer({ cert: CERT, key: KEY }, (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"ok":true}');
  });
  let baseUrl = "";

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    await closeAgents();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("refuses an untrusted certificate without retrying", async () => {
    const calls: RetryInfo[] = [];
    const c = new HttpClient({ service: "secrets", baseUrl, token: "tls-tok-1", retryBaseMs: 1, onRetry: (i) => calls.push(i) });
    const err = await c.request({ route: "GET /sys/health" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isSvcError(err, "transport")).toBe(true);
    expect((err as TransportError).causeCode).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY/);
    expect(calls).toHaveLength(0);
  });

  it("trusts the server when given its CA", async () => {
    const c = new HttpClient({ service: "secrets", baseUrl, token: "tls-tok-1", caCert: CERT });
    expect((await c.request({ route: "GET /sys/health" })).body).toEqual({ ok: true });
  });

  it("connects with insecureTls", async () => {
    const c = new HttpClient({ service: "runs", baseUrl, token: "tls-tok-1", insecureTls: true });
    expect((await c.request({ route: "GET /x" })).status).toBe(200);
  });
});
