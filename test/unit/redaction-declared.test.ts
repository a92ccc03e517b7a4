// Issue 17, redaction proof: every secret input the objects declare and every secret function
// argument goes to a server that echoes the request body back in its 400, whole, cut at several
// lengths, JSON-escaped, URL-encoded and as a form; no occurrence may reach an error, a log line or
// the properties a failure leaves in state. The secret inputs come from the declarations, so a secret
// field added later without a case here fails the first test.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { call } from "../../src/runtime";
import { KIND_NAMES, kindDefinition } from "../../src/kinds";
import * as transform from "../../src/secrets/transform";
import { updatePrimary } from "../../src/secrets/replication";

// Random-looking secrets: any 6-character run of a secret is masked, so a wordy one would mask words.
const S = {
  nc: "Nq7xT2vLp9Wm4Rk8", store: "Sr3Zq8Vt2Lm6Pw9K", schema: "Sc4Tq8Zr1Xw7Vk3P", aws: "Aw5Hn2Jd8Fs3Lq7Z", env: "Ev6Kx9Tq2Zm5Wr8L",
  mfaSecret: "Mf7Qz2Wx9Lp4Ty6R", mfaInt: "Mi8Rq3Zt1Wm6Kx2N", bind: "Bd9Tq4Zm7Wr2Lv5N", registry: "Rg2Xq7Vk4Zt9Lm3P",
  secondary: "Sd3Wq8Zr5Tx1Lk7M", value: "Vl4Zq9Wt2Rm7Kx3N", batch: "Bt5Lq2Zx8Wr4Tm9K", restore: "UmVzdG9yZVZhbHVlOTk4", update: "Up6Tz1Wq9Lm4Rx8K",
};
const CLIENT_KEY = `-----BEGIN PRIVATE KEY-----\nCk7Zq2Wx9Lp4Tv8RmQ3\n-----END PRIVATE KEY-----`;
const CLIENT_CERT = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----";

/** Inputs of each kind that declares a secret input, with every such input set; secrets listed per kind. */
const KINDS: Record<string, { inputs: Record<string, unknown>; secrets: string[] }> = {
  "runs:NotificationConfiguration": {
    inputs: { workspaceId: "ws-1", name: "n", destinationType: "generic", url: "https://hooks.example.com/x", token: S.nc }, secrets: [S.nc],
  },
  "secrets:TransformStore": {
    inputs: { name: "st", driver: "postgres", connectionString: "postgresql://{{username}}:{{password}}@db:5432/t", username: "u", password: S.store },
    secrets: [S.store],
  },
  "secrets:TransformStoreSchema": { inputs: { store: "st", username: "admin", password: S.schema }, secrets: [S.schema] },
  "secrets:KeymgmtKmsProvider": {
    inputs: { name: "aws", provider: "awskms", keyCollection: "eu-west-1", credentials: { access_key: "AKIAEXAMPLE", secret_key: S.aws } }, secrets: [S.aws],
  },
  "secrets:PluginCatalogEntry": {
    inputs: { type: "database", name: "db", sha256: "ab".repeat(32), command: "db-plugin", env: [`API_KEY=${S.env}`] }, secrets: [S.env],
  },
  "secrets:MfaDualFactorMethod": {
    inputs: { secretKey: S.mfaSecret, integrationKey: S.mfaInt, apiHostname: "api.example.com" }, secrets: [S.mfaSecret, S.mfaInt],
  },
  "secrets:DirectoryConfig": { inputs: { binddn: "cn=admin,dc=example,dc=org", bindpass: S.bind, url: "ldap://127.0.0.1:1" }, secrets: [S.bind] },
  "secrets:RegistryAccessConfig": {
    inputs: { address: "127.0.0.1:8500", token: S.registry, clientCert: CLIENT_CERT, clientKey: CLIENT_KEY }, secrets: [S.registry, "Ck7Zq2Wx9Lp4Tv8RmQ3"],
  },
  "secrets:ReplicationPerformanceSecondary": { inputs: { token: S.secondary, acknowledgeDataWipe: true }, secrets: [S.secondary] },
};

type Mode = (body: string) => string;
const cutStrings = (body: string, cut: (s: string) => string): string => {
  try {
    return JSON.stringify(JSON.parse(body), (_k, v) => (typeof v === "string" && v.length >= 8 ? cut(v) : v));
  } catch {
    return body;
  }
};
/** How the server echoes what it was sent. */
const MODES: Record<string, Mode> = {
  whole: (b) => b,
  "cut to all but 3": (b) => cutStrings(b, (s) => s.slice(0, -3)),
  "first 6": (b) => cutStrings(b, (s) => s.slice(0, 6)),
  "middle 6": (b) => cutStrings(b, (s) => s.slice(4, 10)),
  "last 6": (b) => cutStrings(b, (s) => s.slice(-6)),
  "JSON-escaped": (b) => JSON.stringify(b),
  "URL-encoded": (b) => encodeURIComponent(b),
  form: (b) => {
    try {
      return Object.entries(JSON.parse(b) as Record<string, unknown>).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`).join("&");
    } catch {
      return b;
    }
  },
};
/** The pieces of a secret each mode leaves in the echo: none of them may be printed. */
const pieces = (secret: string): string[] => [secret, secret.slice(0, -3), secret.slice(0, 6), secret.slice(4, 10), secret.slice(-6), encodeURIComponent(secret)];

let server: Server;
let mode: Mode = MODES.whole!;
let posts = 0;
const printed: string[] = [];
const saved: Record<string, string | undefined> = {};
const ENV = ["SVC_RUN_URL", "SVC_RUN_TOKEN", "SVC_SECRETS_URL", "SVC_SECRETS_TOKEN", "SVC_MAX_RETRIES"];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const reads = req.method === "GET" || req.method === "LIST";
      if (reads && req.url!.startsWith("/api/v2/")) return void res.writeHead(200, { "content-type": "application/vnd.api+json" }).end('{"data":[],"meta":{"pagination":{"next-page":null}}}');
      if (reads) return void res.writeHead(404, { "content-type": "application/json" }).end('{"errors":[]}');
      posts++;
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ errors: [`refused: ${mode(body)}`] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const k of ENV) saved[k] = process.env[k];
  Object.assign(process.env, { SVC_RUN_URL: `${base}/api/v2`, SVC_RUN_TOKEN: "Rt7Kq2Zx9Wm4Lp8N", SVC_SECRETS_URL: `${base}/v1`, SVC_SECRETS_TOKEN: "St8Lq3Zw1Xm6Kp9R", SVC_MAX_RETRIES: "0" });
  // Every line printed while the calls run: console and the process's own streams.
  for (const m of ["log", "info", "warn", "error", "debug"] as const) vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void printed.push(a.map(String).join(" ")));
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => (printed.push(String(chunk)), true));
});
afterAll(async () => {
  vi.restoreAllMocks();
  for (const k of ENV) if (saved[k] === undefined) delete process.env[k]; else process.env[k] = saved[k];
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  mode = MODES.whole!;
});

function expectNone(secrets: string[], texts: string[], label: string): void {
  const found: string[] = [];
  for (const s of secrets) for (const p of pieces(s)) for (const t of texts) if (t.includes(p)) found.push(`${p} in ${t.slice(0, 120)}`);
  expect(found, label).toEqual([]);
}

describe("every declared secret input", () => {
  it("has a case here (the kinds that declare one are found from their fields)", async () => {
    const declaring: string[] = [];
    for (const kind of KIND_NAMES) {
      const def = (await kindDefinition(kind))!;
      expect(def.fields, `${kind} has a field record`).toBeDefined();
      if (Object.values(def.fields!).some((f) => f.flags.secret && !f.flags.output)) declaring.push(kind);
    }
    expect(declaring.sort()).toEqual(Object.keys(KINDS).sort());
  });

  const cases = Object.keys(KINDS).flatMap((kind) => Object.keys(MODES).map((m) => [kind, m] as const));
  it.each(cases)("%s, echoed %s: not in the error, the log or the failure's properties", async (kind, m) => {
    mode = MODES[m]!;
    const { inputs, secrets } = KINDS[kind]!;
    const { inputs: checked, failures } = (await call(kind, "check", [{}, inputs])) as { inputs: Record<string, unknown>; failures: unknown[] };
    expect(failures).toEqual([]);
    printed.length = 0;
    const before = posts;
    const e = (await call(kind, "create", [checked]).then(() => undefined, (x: unknown) => x)) as Error & { properties?: Record<string, unknown> };
    expect(e, "the create failed on the echo").toBeInstanceOf(Error);
    expect(posts - before, "the create reached the echoing write").toBeGreaterThan(0);
    expect(e.message).toContain("refused");
    const stateText = e.properties ? JSON.stringify(Object.fromEntries(Object.entries(e.properties).filter(([k]) => !(kind in KINDS && (KINDS[kind]!.inputs as object).hasOwnProperty(k))))) : "";
    expectNone(secrets, [e.message, String(e.stack ?? ""), ...printed, stateText], `${kind} (${m})`);
  });

  it.each(["runs:NotificationConfiguration", "secrets:DirectoryConfig", "secrets:ReplicationPerformanceSecondary", "secrets:TransformStore"])(
    "%s: a 7-character secret, shorter than the value minimum, is masked by its field", async (kind) => {
      const short = "Q7x2Lm9";
      const key = { "runs:NotificationConfiguration": "token", "secrets:DirectoryConfig": "bindpass", "secrets:ReplicationPerformanceSecondary": "token", "secrets:TransformStore": "password" }[kind]!;
      for (const m of ["whole", "JSON-escaped", "form"]) {
        mode = MODES[m]!;
        const { inputs } = (await call(kind, "check", [{}, { ...KINDS[kind]!.inputs, [key]: short }])) as { inputs: Record<string, unknown> };
        const e = (await call(kind, "create", [inputs]).then(() => undefined, (x: unknown) => x)) as Error;
        expect(e.message, `${kind} ${m}`).toContain("refused");
        expect(e.message, `${kind} ${m}`).not.toContain(short);
      }
    });
});

describe("every secret function argument", () => {
  const OPS = ["encode", "decode", "validate", "tokenized", "metadata"] as const;
  const calls: [string, () => Promise<unknown>, string[]][] = [
    ...OPS.map((op): [string, () => Promise<unknown>, string[]] => [`${op} (value)`, () => transform[op]({ role: "pay", transformation: "tok", value: S.value }), [S.value]]),
    ...OPS.map((op): [string, () => Promise<unknown>, string[]] => [`${op} (batch)`, () => transform[op]({ role: "pay", batchInput: [{ value: S.batch, transformation: "tok" }] }), [S.batch]]),
    ["restoreTokenization (values)", () => transform.restoreTokenization({ transformation: "tok", values: [S.restore] }), [S.restore]],
    ["updatePrimary (token)", () => updatePrimary({ token: S.update }), [S.update]],
  ];
  const cases = calls.flatMap(([name, fn, secrets]) => Object.keys(MODES).map((m) => [name, m, fn, secrets] as const));
  it.each(cases)("%s, echoed %s: not in the error or the log", async (_name, m, fn, secrets) => {
    mode = MODES[m]!;
    printed.length = 0;
    const e = (await fn().then(() => undefined, (x: unknown) => x)) as Error;
    expect(e).toBeInstanceOf(Error);
    expect(e.message).toContain("refused");
    expectNone(secrets, [e.message, String(e.stack ?? ""), ...printed], `${_name} (${m})`);
  });
});
