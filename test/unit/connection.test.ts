// The connection layer of every kind (src/core/connected.ts), through the runtime entry as the
// provider host calls it. No server is needed: check and diff make no request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { UNKNOWN } from "../../src/core/unknown";
import { redact } from "../../src/http";
import { KIND_NAMES } from "../../src/kinds";

type Props = Record<string, unknown>;
type Check = { inputs: Props; failures: { property: string; reason: string }[] };
type Diff = { changes: boolean; replaces: string[]; deleteBeforeReplace: boolean };
const KIND = "secrets:TransformAlphabet";
const check = async (news: Props, kind = KIND) => (await call(kind, "check", [{}, news])) as Check;
const diff = async (olds: Props, news: Props) => (await call(KIND, "diff", ["transform/alphabet/x", olds, news])) as Diff;
const base = { name: "x", alphabet: "abc" };

const saved = { ...process.env };
beforeAll(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith("SVC_")) delete process.env[k];
  process.env.SVC_SECRETS_URL = "http://config.example:8200/v1/";
  process.env.SVC_SECRETS_TOKEN = "config-token";
  process.env.SVC_MAX_RETRIES = "0";
});
afterAll(() => {
  process.env = saved;
});

describe("check", () => {
  it("records the configured server, without a trailing slash", async () => {
    const { inputs, failures } = await check(base);
    expect(failures).toEqual([]);
    expect(inputs.serverUrl).toBe("http://config.example:8200/v1");
    expect(inputs.connection).toBeUndefined();
  });

  it("records the connection's server and keeps the connection", async () => {
    const connection = { url: "http://dr.example/v1", token: "dr-token", service: "secrets" };
    const { inputs, failures } = await check({ ...base, connection });
    expect(failures).toEqual([]);
    expect(inputs).toMatchObject({ serverUrl: "http://dr.example/v1", connection });
  });

  it("refuses a bad URL, a connection of the other service and non-string members, all at once", async () => {
    const { failures } = await check({ ...base, connection: { url: "dr.example", token: 5, service: "runs" } });
    expect(failures.map((f) => f.property).sort()).toEqual(["connection.service", "connection.token", "connection.url"]);
    expect(failures.find((f) => f.property === "connection.url")!.reason).toMatch(/must be an http\(s\) URL/);
  });

  it("refuses a member a connection does not have, naming it (did you mean), and a URL past 2048 characters, saying the limit", async () => {
    const { failures } = await check({ ...base, connection: { url: `http://dr.example/v1/${"a".repeat(100_000)}`, token: "t0ken-dr", tokn: "x", region: "eu" } });
    expect(failures).toEqual([
      { property: "connection.tokn", reason: "is not a member of a connection (it has url, token and maxConcurrentRequests): did you mean token?" },
      { property: "connection.region", reason: "is not a member of a connection (it has url, token and maxConcurrentRequests)" },
      { property: "connection.url", reason: "must be at most 2048 characters long (a base URL; routes are appended to it), got 100021" },
    ]);
    // The helper passes such a member on (secret) for check to refuse, where it used to drop it silently.
    const { connection } = await import("../../src/secrets");
    const declared = connection({ url: "http://dr.example/v1", tokn: "x" } as Parameters<typeof connection>[0]);
    expect(Object.keys(declared).sort()).toEqual(["service", "tokn", "url"]);
  });

  it("a function refuses the same, before any request", async () => {
    const transform = await import("../../src/secrets/transform");
    await expect(transform.listAlphabets({}, { connection: { url: "http://dr.example/v1", tokn: "x" } as never })).rejects.toThrow(/connection\.tokn: is not a member of a connection .*did you mean token\?/);
  });

  it("takes a connection's maxConcurrentRequests (unknown in a preview too) and refuses one below 1 or not an integer", async () => {
    for (const ok of [1, 64, UNKNOWN]) expect((await check({ ...base, connection: { maxConcurrentRequests: ok } })).failures).toEqual([]);
    for (const bad of [0, 2.5, "4"]) {
      expect((await check({ ...base, connection: { maxConcurrentRequests: bad } })).failures)
        .toEqual([{ property: "connection.maxConcurrentRequests", reason: "must be a positive integer" }]);
    }
  });

  it("fails when neither the connection, the config nor the environment gives URL and token, naming key and variable", async () => {
    delete process.env.SVC_SECRETS_URL;
    delete process.env.SVC_SECRETS_TOKEN;
    try {
      const { failures } = await check(base);
      // Without a connection the failures are the settings', not a property's (the engine would
      // print the absent connection.token as a value "{<nil>}").
      expect(failures).toEqual([
        { property: "", reason: expect.stringMatching(/svc:secretsUrl.*SVC_SECRETS_URL/) },
        { property: "", reason: expect.stringMatching(/svc:secretsToken.*SVC_SECRETS_TOKEN/) },
      ]);
      // With a connection that lacks them, they are the connection's.
      expect((await check({ ...base, connection: { maxConcurrentRequests: 2 } })).failures.map((f) => f.property)).toEqual(["connection.url", "connection.token"]);
      // A connection that gives both needs no config.
      expect((await check({ ...base, connection: { url: "http://dr.example/v1", token: "dr-token-2" } })).failures).toEqual([]);
    } finally {
      process.env.SVC_SECRETS_URL = "http://config.example:8200/v1/";
      process.env.SVC_SECRETS_TOKEN = "config-token";
    }
  });

  it("skips an unknown connection or URL (preview)", async () => {
    expect((await check({ ...base, connection: UNKNOWN })).inputs.serverUrl).toBe(UNKNOWN);
    const r = await check({ ...base, connection: { url: UNKNOWN, token: UNKNOWN } });
    expect(r.failures).toEqual([]);
    expect(r.inputs.serverUrl).toBe(UNKNOWN);
  });

  it("applies to every kind: each records its own service's server", async () => {
    process.env.SVC_RUN_URL = "http://runs.example/api/v2";
    process.env.SVC_RUN_TOKEN = "run-token";
    for (const kind of KIND_NAMES) {
      const { inputs } = await check({}, kind);
      expect(inputs.serverUrl, kind).toBe(kind.startsWith("runs:") ? "http://runs.example/api/v2" : "http://config.example:8200/v1");
    }
  });
});

describe("diff", () => {
  const olds = { ...base, mount: "transform", serverUrl: "http://a.example/v1" };

  it("replaces a resource whose server changed, creating it on the new server first", async () => {
    expect(await diff(olds, { ...base, mount: "transform", serverUrl: "http://b.example/v1" }))
      .toEqual({ changes: true, replaces: ["serverUrl"], deleteBeforeReplace: false });
    expect((await diff(olds, { ...base, mount: "transform", serverUrl: UNKNOWN })).replaces).toEqual(["serverUrl"]);
  });

  it("sees no change for the same server, a changed token, or a state written before serverUrl existed", async () => {
    expect((await diff(olds, { ...base, mount: "transform", serverUrl: "http://a.example/v1/" })).changes).toBe(false);
    expect((await diff({ ...olds, connection: { token: "old" } }, { ...base, mount: "transform", serverUrl: "http://a.example/v1", connection: { token: "new" } })).changes).toBe(false);
    const { serverUrl: _s, ...before } = olds;
    expect(await diff(before, { ...base, mount: "transform", serverUrl: "http://b.example/v1" }))
      .toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });
});

describe("tokens", () => {
  it("registers a connection's token for redaction as soon as an operation uses it", async () => {
    const token = "per-resource-token-5f1c";
    // Nothing listens on port 9: the delete fails, but the token was registered before the request.
    const err = await call(KIND, "delete", ["transform/alphabet/x", { ...base, mount: "transform", serverUrl: "http://127.0.0.1:9/v1", connection: { token } }])
      .then(() => undefined, (e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String(err)).not.toContain(token);
    expect(redact(`server said: bad token ${token}`)).toBe("server said: bad token [REDACTED]");
  });
});

describe("a provider host's settings, read once per deployment (configure)", () => {
  const host = { config: { get: (_key: string): unknown => undefined } };
  afterAll(async () => {
    const { forgetDeployment } = await import("../../src/runtime");
    await forgetDeployment();
    process.env.SVC_SECRETS_URL = "http://config.example:8200/v1/";
    process.env.SVC_SECRETS_TOKEN = "config-token";
  });

  it("takes each variable as the deployment found it; a connection is still checked on its own; the next configure reads again", async () => {
    const { configure } = await import("../../src/runtime");
    process.env.SVC_SECRETS_URL = "http://first.example/v1";
    await configure(host);
    expect((await check(base)).inputs.serverUrl).toBe("http://first.example/v1");
    // The CLI fixes a host's environment when it starts it: a change within the process is not read again.
    process.env.SVC_SECRETS_URL = "http://second.example/v1";
    expect((await check(base)).inputs.serverUrl).toBe("http://first.example/v1");
    const bad = await check({ ...base, connection: { url: "dr.example", token: "dr-token" } });
    expect(bad.failures.map((f) => f.property)).toEqual(["connection.url"]);
    const good = await check({ ...base, connection: { url: "http://dr.example/v1", token: "dr-token" } });
    expect(good).toMatchObject({ failures: [], inputs: { serverUrl: "http://dr.example/v1" } });
    await configure(host);
    expect((await check(base)).inputs.serverUrl).toBe("http://second.example/v1");
  });

  it("says a missing setting at every check, not only the first", async () => {
    const { configure } = await import("../../src/runtime");
    delete process.env.SVC_SECRETS_TOKEN;
    await configure(host);
    const first = await check(base);
    expect(first.failures).toHaveLength(1);
    expect(first.failures[0]!.reason).toMatch(/svc:secretsToken/);
    first.failures.push({ property: "mutated", reason: "by the caller" });
    expect((await check(base)).failures).toEqual(first.failures.slice(0, 1));
    expect((await check({ ...base, connection: { url: "http://dr.example/v1", token: "dr-token" } })).failures).toEqual([]);
  });

  it("finds a fixed source's client again without its settings, and a new one after forgetClients", async () => {
    const { clientFor, forgetClients } = await import("../../src/core/context");
    const env = new Map([["SVC_SECRETS_URL", "http://fixed.example/v1"], ["SVC_SECRETS_TOKEN", "fixed-token"]]);
    const fixed = Object.assign((_key: string) => undefined, { env: (name: string) => env.get(name), fixed: true as const });
    const one = clientFor("secrets", fixed);
    expect(clientFor("secrets", fixed)).toBe(one);
    expect(one.baseUrl).toBe("http://fixed.example/v1");
    forgetClients();
    expect(clientFor("secrets", fixed)).not.toBe(one);
  });
});
