import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { missingMessage, resolveServiceConfig, SETTINGS, unknownSettings, type ConfigSource } from "../../src/core/config";

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

  it("names both the config key and the variable when a value is missing; a token is set with --secret", () => {
    expect(() => resolveServiceConfig("secrets", from({ "svc:secretsUrl": "http://x/v1" })))
      .toThrow('missing secrets service token: set stack config "svc:secretsToken" (pulumi config set --secret svc:secretsToken <token>) or environment variable SVC_SECRETS_TOKEN');
    expect(() => resolveServiceConfig("runs", from({ "svc:runUrl": "http://x/api/v2" })))
      .toThrow('missing run service API token: set stack config "svc:runToken" (pulumi config set --secret svc:runToken <token>) or environment variable SVC_RUN_TOKEN');
    expect(() => resolveServiceConfig("runs", from({})))
      .toThrow('missing run service base URL ending in /api/v2: set stack config "svc:runUrl" (pulumi config set svc:runUrl https://<host>/api/v2) or environment variable SVC_RUN_URL');
    expect(missingMessage("secretsUrl")).toContain('(pulumi config set --plaintext svc:secretsUrl https://<host>/v1)');
  });

  it("every message that suggests setting a token says --secret", () => {
    for (const name of Object.keys(SETTINGS) as (keyof typeof SETTINGS)[]) {
      const message = missingMessage(name);
      expect(message.includes("--secret"), name).toBe(/Token$/.test(name));
    }
  });

  it("a value set but empty (an unset shell variable) is said to be empty, not missing", () => {
    expect(() => resolveServiceConfig("runs", from({ "svc:runUrl": "http://x/api/v2", "svc:runToken": "" })))
      .toThrow('run service API token is empty: stack config svc:runToken is set to an empty string (an unset shell variable?); set stack config "svc:runToken" (pulumi config set --secret svc:runToken <token>) or environment variable SVC_RUN_TOKEN');
    process.env.SVC_RUN_TOKEN = "";
    expect(() => resolveServiceConfig("runs", from({ "svc:runUrl": "http://x/api/v2" }))).toThrow(/^run service API token is empty: environment variable SVC_RUN_TOKEN is set to an empty string/);
  });

  it("a misspelt svc: key is named with the setting it is near; far ones get the list", () => {
    const keyed = (values: Record<string, string>): ConfigSource => Object.assign(from(values), { keys: () => Object.keys(values) });
    const source = keyed({ "svc:runUrl": "http://x/api/v2", "svc:runTokn": "t0ken-value", "svc:secretToken": "s", "svc:colour": "blue", "other:key": "x" });
    expect(unknownSettings(source)).toEqual([
      `unknown setting svc:colour: the settings are ${Object.values(SETTINGS).map((s) => s.key).join(", ")}`,
      "unknown setting svc:runTokn: did you mean svc:runToken?",
      "unknown setting svc:secretToken: did you mean svc:secretsToken?",
    ]);
    expect(() => resolveServiceConfig("runs", source)).toThrow(/^missing run service API token: .* \(svc:runTokn is set: did you mean svc:runToken\?\)$/);
    expect(unknownSettings(keyed({ "svc:runUrl": "u", "svc:maxRetries": "1" }))).toEqual([]);
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
