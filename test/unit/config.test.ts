import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveServiceConfig, type ConfigSource } from "../../src/config";

const saved = { ...process.env };
beforeEach(() => { for (const k of Object.keys(process.env)) if (k.startsWith("SVC_")) delete process.env[k]; });
afterEach(() => { process.env = { ...saved }; });

const from = (values: Record<string, string>): ConfigSource => (k) => values[k];

describe("resolveServiceConfig", () => {
  it("prefers stack config over the environment", () => {
    process.env.SVC_RUN_URL = "http://env/api/v2";
    process.env.SVC_RUN_TOKEN = "env-token";
    const cfg = resolveServiceConfig("runs", from({ "svc:runUrl": "http://config/api/v2" }));
    expect(cfg).toMatchObject({ service: "runs", baseUrl: "http://config/api/v2", token: "env-token" });
  });

  it("names both the config key and the variable when a value is missing", () => {
    expect(() => resolveServiceConfig("secrets", from({ "svc:secretsUrl": "http://x/v1" })))
      .toThrow('missing secrets service token: set stack config "svc:secretsToken" (pulumi config set svc:secretsToken ...) or environment variable SVC_SECRETS_TOKEN');
  });

  it("rejects malformed tuning values with the key named, and parses good ones", () => {
    const base = { "svc:runUrl": "https://x/api/v2", "svc:runToken": "t" };
    expect(() => resolveServiceConfig("runs", from({ ...base, "svc:maxRetries": "-1" }))).toThrow(/svc:maxRetries \/ SVC_MAX_RETRIES must be a non-negative integer/);
    expect(() => resolveServiceConfig("runs", from({ ...base, "svc:insecureTls": "maybe" }))).toThrow(/svc:insecureTls \/ SVC_INSECURE_TLS must be true or false/);
    expect(() => resolveServiceConfig("runs", from({ ...base, "svc:runUrl": "runs.example.com" }))).toThrow(/must be an http\(s\) URL/);
    process.env.SVC_REQUEST_TIMEOUT_MS = "1500";
    expect(resolveServiceConfig("runs", from({ ...base, "svc:insecureTls": "true", "svc:maxRetries": "0" })))
      .toMatchObject({ insecureTls: true, maxRetries: 0, requestTimeoutMs: 1500 });
  });

  it("reads a CA certificate given as PEM text or as a file path", () => {
    const pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ca-")), "ca.pem");
    fs.writeFileSync(file, pem);
    const base = { "svc:secretsUrl": "https://x/v1", "svc:secretsToken": "t" };
    expect(resolveServiceConfig("secrets", from({ ...base, "svc:caCert": pem })).caCert).toBe(pem);
    expect(resolveServiceConfig("secrets", from({ ...base, "svc:caCert": file })).caCert).toBe(pem);
  });
});
