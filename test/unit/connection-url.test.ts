// Issue 17, item 13: base URLs of connections and settings. Dot segments, queries, fragments and
// user names or passwords are refused at check, naming the property and never quoting the
// password, and serverUrl (an output that is not secret) never holds a credential.
import { createServer, type Server } from "http";
import type { AddressInfo } from "net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrlProblem, ConfigError, resolveServiceConfig, withoutCredentials } from "../../src/core/config";
import { call } from "../../src/runtime";
import { InvalidInputError } from "../../src/http";
import * as keymgmt from "../../src/secrets/keymgmt";

type Props = Record<string, unknown>;
type Check = { inputs: Props; failures: { property: string; reason: string }[] };
const KIND = "secrets:TransformAlphabet";
const check = async (news: Props) => (await call(KIND, "check", [{}, news])) as Check;
const base = { name: "x", alphabet: "abc" };
const PASSWORD = "hunter2-pw";

const saved = { ...process.env };
beforeAll(() => {
  for (const k of Object.keys(process.env)) if (k.startsWith("SVC_")) delete process.env[k];
  process.env.SVC_SECRETS_URL = "http://config.example:8200/v1";
  process.env.SVC_SECRETS_TOKEN = "config-token";
  process.env.SVC_MAX_RETRIES = "0";
});
afterAll(() => {
  process.env = saved;
});

describe("baseUrlProblem", () => {
  it.each([
    "http://127.0.0.1:8200/v1", "https://secrets.example.com/v1/", "http://[::1]:8200/v1", "https://runs.example.com/api/v2",
    "http://h/v1/.../x", "http://h/.well-known/v1", "http://h", "http://h:80/a%2Fb/v1",
  ])("accepts %s", (url) => {
    expect(baseUrlProblem(url)).toBeUndefined();
  });

  it.each([
    [`http://user:${PASSWORD}@h/v1`, /user name or password/],
    [`https://admin@h/v1`, /user name or password/],
    [`http://@h/v1`, /user name or password/],
    [`http://u:${PASSWORD}@h/v1?x=1#f`, /user name or password/],
    ["http://h/v1/../x", /"\." or "\.\." path segments/],
    ["http://h/v1/..", /"\." or "\.\." path segments/],
    ["http://h/./v1", /"\." or "\.\." path segments/],
    ["http://h/v1/%2e%2e/x", /"\." or "\.\." path segments/],
    ["http://h/v1/%2E/x", /"\." or "\.\." path segments/],
    ["http://h/v1/.%2e/x", /"\." or "\.\." path segments/],
    ["http://h/v1?token=abc", /must not contain a query/],
    ["http://h/v1?", /must not contain a query/],
    ["http://h/v1#top", /must not contain a fragment/],
    ["http://h/v1\\..\\x", /backslash/],
    ["http://h/v1\n", /whitespace or control characters/],
    ["http://h/v\t1", /whitespace or control characters/],
    ["http://h:99999/v1", /valid URL/],
  ])("refuses %j", (url, message) => {
    const problem = baseUrlProblem(url);
    expect(problem).toMatch(message);
    expect(problem).not.toContain(PASSWORD);
  });

  it("withoutCredentials drops user name and password only", () => {
    expect(withoutCredentials(`http://u:${PASSWORD}@h:8200/v1`)).toBe("http://h:8200/v1");
    expect(withoutCredentials("https://a@b@h/v1")).toBe("https://h/v1");
    expect(withoutCredentials("http://h/v1/x@y")).toBe("http://h/v1/x@y");
  });
});

describe("check: connection.url", () => {
  it.each([
    [`http://ops:${PASSWORD}@dr.example/v1`, /user name or password/],
    ["http://dr.example/v1/../x", /path segments/],
    ["http://dr.example/v1/%2e%2e/x", /path segments/],
    ["http://dr.example/v1?tenant=a", /query/],
    ["http://dr.example/v1#x", /fragment/],
  ])("refuses %j at connection.url, records no serverUrl, and never quotes a password", async (url, message) => {
    const { inputs, failures } = await check({ ...base, connection: { url, token: "dr-token" } });
    expect(failures).toEqual([{ property: "connection.url", reason: expect.stringMatching(message) }]);
    expect(JSON.stringify(failures)).not.toContain(PASSWORD);
    expect(inputs.serverUrl).toBeUndefined();
  });

  it("the configured setting follows the same rules, naming the key and the variable", async () => {
    process.env.SVC_SECRETS_URL = `http://ops:${PASSWORD}@config.example/v1`;
    try {
      const { inputs, failures } = await check(base);
      expect(failures).toEqual([{ property: "connection.url", reason: expect.stringMatching(/^svc:secretsUrl \/ SVC_SECRETS_URL must not contain a user name or password/) }]);
      expect(JSON.stringify({ inputs, failures })).not.toContain(PASSWORD);
      expect(() => resolveServiceConfig("secrets")).toThrow(ConfigError);
      expect(() => resolveServiceConfig("secrets")).toThrow(/SVC_SECRETS_URL must not contain a user name or password/);
      expect(() => resolveServiceConfig("secrets")).not.toThrow(new RegExp(PASSWORD));
      process.env.SVC_SECRETS_URL = "http://config.example/v1/../x";
      expect((await check(base)).failures).toEqual([{ property: "connection.url", reason: expect.stringMatching(/SVC_SECRETS_URL must not contain "\." or "\.\."/) }]);
      process.env.SVC_RUN_URL = "https://runs.example/api/v2?x=1";
      process.env.SVC_RUN_TOKEN = "run-token";
      expect(() => resolveServiceConfig("runs")).toThrow(/^svc:runUrl \/ SVC_RUN_URL must not contain a query/);
    } finally {
      process.env.SVC_SECRETS_URL = "http://config.example:8200/v1";
      delete process.env.SVC_RUN_URL;
      delete process.env.SVC_RUN_TOKEN;
    }
  });
});

describe("serverUrl never holds a credential", () => {
  let server: Server;
  let url: string;
  const seen: { path: string; auth?: string }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? "", auth: req.headers.authorization });
      res.writeHead(200, { "content-type": "application/json" }).end('{"data":{"alphabet":"abc"}}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("a state recorded with one (before they were refused) is refreshed against the same server, and recorded without it", async () => {
    const recorded = url.replace("http://", `http://ops:${PASSWORD}@`);
    const r = (await call(KIND, "read", ["transform/alphabet/x", { ...base, mount: "transform", serverUrl: recorded }])) as { id: string; props: Props };
    expect(r.id).toBe("transform/alphabet/x");
    expect(r.props.serverUrl).toBe(url);
    expect(seen.at(-1)).toMatchObject({ path: "/v1/transform/alphabet/x", auth: undefined });
  });

  it("and its next check, given the URL without the credential, is no move to another server", async () => {
    const recorded = url.replace("http://", `http://ops:${PASSWORD}@`);
    const news = (await check({ ...base, connection: { url, token: "dr-token" } })).inputs;
    const d = (await call(KIND, "diff", ["transform/alphabet/x", { ...news, serverUrl: recorded }, news])) as { changes: boolean; replaces: string[] };
    expect(d).toMatchObject({ changes: false, replaces: [] });
  });
});

describe("functions: the connection option", () => {
  it("refuses a URL with a password as connection.url, naming the function, before any request", async () => {
    const e = await keymgmt.listKeys({}, { connection: { url: `http://ops:${PASSWORD}@127.0.0.1:9/v1`, token: "t" } }).then(() => undefined, (x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidInputError);
    expect((e as InvalidInputError).problems).toEqual([{ path: "connection.url", message: expect.stringMatching(/user name or password/) }]);
    expect((e as Error).message).toMatch(/^listKeys: /);
    expect((e as Error).message).not.toContain(PASSWORD);
  });
});
