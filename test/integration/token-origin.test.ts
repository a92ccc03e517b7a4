// A refused token (401/403) is most often the wrong one: the error names the setting it came from,
// whether the stack config, the environment or a connection, for resources and functions alike.
import { afterEach, describe, expect, it } from "vitest";
import { call, configure } from "../../src/runtime";
import * as transform from "../../src/secrets/transform";
import { created } from "../support/calls";
import { useEmulator, withEnvSecretsToken } from "../support/emulator";
import { rejectionOf } from "../support/errors";

const { emu } = useEmulator();
const ALPHABET = "secrets:TransformAlphabet";
// Random-looking, so redaction does not mask words of the messages around it.
const WRONG = "Qv7-tR2m-Xp9z-Lw4k";

function configured(entries: Record<string, string>): void {
  void configure({ config: { get: (key: string) => entries[key] } });
}

afterEach(() => {
  configured({});
});

describe("a refused token names its setting", () => {
  it("from the environment, for a resource's read", async () => {
    const { id, outs } = await created(ALPHABET, { name: "origin-env", alphabet: "0123" });
    const e = await withEnvSecretsToken(WRONG, () => rejectionOf(call(ALPHABET, "read", [id, outs])));
    expect(e.message).toBe("GET /transform/alphabet/origin-env: 403 Forbidden: permission denied; check the token (from environment variable SVC_SECRETS_TOKEN)");
  });

  it("from the stack config the engine handed the provider", async () => {
    const { id, outs } = await created(ALPHABET, { name: "origin-config", alphabet: "0123" });
    configured({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": WRONG });
    const e = await rejectionOf(call(ALPHABET, "read", [id, outs]));
    expect(e.message).toContain("403 Forbidden: permission denied; check the token (from stack config svc:secretsToken)");
    expect(e.message).not.toContain(WRONG);
  });

  it("from a resource's connection, and from a function's connection option", async () => {
    const { id, outs } = await created(ALPHABET, { name: "origin-conn", alphabet: "0123" });
    const withConnection = { ...outs, connection: { url: emu.secretsUrl, token: WRONG } };
    expect((await rejectionOf(call(ALPHABET, "read", [id, withConnection]))).message).toContain("check the token (from connection.token)");
    const e = await rejectionOf(transform.listAlphabets({}, { connection: { url: emu.secretsUrl, token: WRONG } }));
    expect(e.message).toBe("listAlphabets: GET /transform/alphabet?list=true: 403 Forbidden: permission denied; check the token (from connection.token)");
  });

  it("a token holding words of the message (first-secrets-token-0001) leaves the setting's name whole, and is masked where echoed", async () => {
    const { id, outs } = await created(ALPHABET, { name: "origin-words", alphabet: "0123" });
    const worded = "first-secrets-token-0001";
    configured({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": worded });
    const e = await rejectionOf(call(ALPHABET, "read", [id, outs]));
    expect(e.message).toMatch(/^GET \/transform\/alphabet\/origin-words: 403 Forbidden: permission denied; check the token \(from stack config svc:secretsToken\); .* if svc:secretsToken changed since, run it with --run-program$/);
    // Real echoes of it, whole or cut short, are still masked.
    const { redact } = await import("../../src/http/redact");
    expect(redact(`bad token ${worded}`)).toBe("bad token [REDACTED]");
    expect(redact(`bad token "${worded.slice(0, 14)}…"`)).toBe('bad token "[REDACTED]…"');
    expect(redact(`missing secrets service token: set SVC_SECRETS_TOKEN`)).toBe("missing secrets service token: set SVC_SECRETS_TOKEN");
  });

  it("a function without a connection names the variable it read", async () => {
    const e = await withEnvSecretsToken(WRONG, () => rejectionOf(transform.listAlphabets({})));
    expect(e.message).toContain("check the token (from environment variable SVC_SECRETS_TOKEN)");
  });
});
