import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { call } from "../../src/runtime";
import { checked, type Props } from "../support/calls";

/**
 * A server whose reads hold only what the seed (002) lists: GET directory/config without the
 * timeouts, the rotation tolerance, password_policy and formatter; a registry role read with only
 * policy, lease (duration text) and token_type; and config/access with only its POST (GET and
 * DELETE answer 405, or 404 as a router that knows no such path would). Against it, an unchanged
 * program must show no diff.
 */
const CONFIG = "secrets:DirectoryConfig";
const ROLE = "secrets:RegistryRole";
const ACCESS = "secrets:RegistryAccessConfig";
const POLICY = Buffer.from('service "" { policy = "read" }').toString("base64");

let server: http.Server;
let stored: Map<string, Record<string, unknown>>;
let accessAnswer = 405;
const seen: string[] = [];

const UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };
/** The seconds of the test's own duration values ("24h", "90s", 3600). */
function secs(v: unknown): number {
  if (typeof v === "number") return v;
  const m = /^(\d+)([smhd])$/.exec(String(v ?? "0"));
  return m ? Number(m[1]) * UNIT[m[2]] : Number(v ?? 0);
}
/** Duration text as the service prints it (1h0m0s). */
const text = (s: number) => `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m${s % 60}s`;

function seedRead(path: string, b: Record<string, unknown>): Record<string, unknown> {
  if (path === "directory/config") {
    return {
      binddn: b.binddn, certificate: b.certificate ?? "", insecure_tls: b.insecure_tls ?? false, length: Number(b.length ?? 64),
      max_ttl: secs(b.max_ttl), starttls: b.starttls ?? false, tls_max_version: b.tls_max_version ?? "tls13",
      tls_min_version: b.tls_min_version ?? "tls12", ttl: secs(b.ttl), upndomain: b.upndomain ?? "", url: b.url, userdn: b.userdn ?? "",
    };
  }
  return { policy: b.policy ?? "", lease: text(secs(b.ttl ?? b.lease)), token_type: b.token_type ?? "client" };
}

function reply(res: http.ServerResponse, status: number, body?: unknown): void {
  res.writeHead(status, body === undefined ? {} : { "content-type": "application/json" });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const path = (req.url ?? "").replace(/^\/v1\//, "");
      seen.push(`${req.method} ${path}`);
      if (path === "registry/config/access") {
        if (req.method === "POST") return reply(res, 204);
        return reply(res, accessAnswer, { errors: [accessAnswer === 405 ? "unsupported operation" : "unsupported path"] });
      }
      if (req.method === "POST") {
        stored.set(path, JSON.parse(raw || "{}"));
        return reply(res, 204);
      }
      if (req.method === "DELETE") {
        stored.delete(path);
        return reply(res, 204);
      }
      const b = stored.get(path);
      return b ? reply(res, 200, { data: seedRead(path, b) }) : reply(res, 404, { errors: [] });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.env.SVC_SECRETS_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  process.env.SVC_SECRETS_TOKEN = "seed-only-token";
  process.env.SVC_MAX_RETRIES = "0";
});

beforeEach(() => {
  stored = new Map();
  seen.length = 0;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function lifecycle(kind: string, program: Props): Promise<{ id: string; outs: Props; read: { id: string; props: Props } }> {
  const inputs = await checked(kind, program);
  const { id, outs } = (await call(kind, "create", [inputs])) as { id: string; outs: Props };
  const read = (await call(kind, "read", [id, outs])) as { id: string; props: Props };
  expect(read.id).toBe(id);
  // The next preview: the refreshed state against the same program.
  expect(await call(kind, "diff", [id, read.props, await checked(kind, program, read.props)])).toMatchObject({ changes: false });
  return { id, outs, read };
}

describe("directory Config against seed-only reads", () => {
  const program = {
    binddn: "cn=admin,dc=example,dc=org", bindpass: "seed-only-bind-password", url: "ldap://127.0.0.1:1", ttl: "24h", maxTtl: 172800,
    connectionTimeout: "1m", requestTimeout: 120, lastRotationTolerance: "10s", formatter: "pre-{{PASSWORD}}", length: 20,
  };

  it("fields the read leaves out keep the recorded value: no diff on the next up", async () => {
    const { read } = await lifecycle(CONFIG, program);
    expect(read.props).toMatchObject({ connectionTimeout: "1m", requestTimeout: 120, lastRotationTolerance: "10s", formatter: "pre-{{PASSWORD}}", passwordPolicy: "", length: 20, ttl: "24h", maxTtl: 172800 });
  });

  it("defaults left out of the read are no diff either, and a password policy is kept", async () => {
    await lifecycle(CONFIG, { binddn: "cn=admin,dc=example,dc=org", bindpass: "seed-only-bind-password", url: "ldap://127.0.0.1:1" });
    stored.clear();
    const { read } = await lifecycle(CONFIG, { binddn: "cn=admin,dc=example,dc=org", bindpass: "seed-only-bind-password", url: "ldap://127.0.0.1:1", passwordPolicy: "corp" });
    expect(read.props).toMatchObject({ passwordPolicy: "corp", connectionTimeout: 30, requestTimeout: 90, lastRotationTolerance: 5 });
  });

  it("a field the read does hold still shows a change made elsewhere", async () => {
    const { id, outs } = await lifecycle(CONFIG, program);
    stored.set("directory/config", { ...stored.get("directory/config"), ttl: 3600 });
    const read = (await call(CONFIG, "read", [id, outs])) as { props: Props };
    expect(read.props.ttl).toBe(3600);
    expect(await call(CONFIG, "diff", [id, read.props, await checked(CONFIG, program, read.props)])).toMatchObject({ changes: true });
  });
});

describe("registry Role against seed-only reads (policy, lease, token_type)", () => {
  it("1.4+ fields: policies, local and maxTtl keep the recorded values, ttl comes from lease", async () => {
    const { read } = await lifecycle(ROLE, { name: "reader", policy: POLICY, policies: ["b", "a"], local: true, ttl: "1h", maxTtl: 7200 });
    expect(read.props).toMatchObject({ policy: POLICY, policies: ["a", "b"], local: true, ttl: "1h", maxTtl: 7200, tokenType: "client" });
  });

  it("the older variant (lease, policies) shows no diff", async () => {
    const { read } = await lifecycle(ROLE, { name: "old", lease: 90, policies: ["p"] });
    expect(read.props).toMatchObject({ lease: 90, policies: ["p"] });
  });

  it("a changed lease on the server shows as a ttl change", async () => {
    const program = { name: "reader", policies: ["a"], ttl: "1h" };
    const { id, outs } = await lifecycle(ROLE, program);
    stored.set("registry/roles/reader", { ...stored.get("registry/roles/reader"), ttl: 60 });
    const read = (await call(ROLE, "read", [id, outs])) as { props: Props };
    expect(read.props.ttl).toBe(60);
    expect(await call(ROLE, "diff", [id, read.props, await checked(ROLE, program, read.props)])).toMatchObject({ changes: true });
  });
});

/** What a step warned (the in-process runtime writes warnings to console.warn). */
async function warnings<T>(fn: () => Promise<T>): Promise<{ result: T; warned: string[] }> {
  const spy = vi.spyOn(console, "warn").mockImplementation(() => {});
  try {
    const result = await fn();
    return { result, warned: spy.mock.calls.map((c) => String(c[0])) };
  } finally {
    spy.mockRestore();
  }
}

describe("registry AccessConfig where config/access has only POST", () => {
  const blind = "so whether the config is still there cannot be known: a refresh keeps it as this stack wrote it and sees no change or delete made elsewhere, another stack's destroy included";

  for (const status of [405, 404]) {
    it(`GET and DELETE answering ${status}: create writes and records the program's values, refresh keeps them, delete is done; each write says a refresh cannot see it`, async () => {
      accessAnswer = status;
      const { result: { id, outs, read }, warned } = await warnings(() => lifecycle(ACCESS, { address: "registry.internal:8500", scheme: "https", token: "seed-only-management-token" }));
      expect(id).toBe("registry/config/access");
      expect(outs).toMatchObject({ address: "registry.internal:8500", scheme: "https", token: "seed-only-management-token", __readable: false });
      expect(read.props).toEqual(outs);
      expect(warned).toEqual([expect.stringContaining(`registry/config/access: written, but the service does not report registry/config/access (its GET answers 404 or 405), ${blind}`)]);
      // A change is written (POST), and what the program says is recorded.
      const news = await checked(ACCESS, { address: "registry.internal:8501", token: "seed-only-management-token" }, outs);
      const { result: { outs: after }, warned: again } = await warnings(async () => (await call(ACCESS, "update", [id, outs, news])) as { outs: Props });
      expect(after).toMatchObject({ address: "registry.internal:8501", scheme: "http", __readable: false });
      expect(again).toEqual([expect.stringContaining(blind)]);
      await call(ACCESS, "delete", [id, after]);
      // The create's check reads first, recording what the create could be confused with (src/core/leftovers.ts).
      expect(seen).toEqual([
        "GET registry/config/access", "GET registry/config/access", "POST registry/config/access", "GET registry/config/access", "GET registry/config/access",
        "POST registry/config/access", "GET registry/config/access", "DELETE registry/config/access",
      ]);
    });
  }

  it("a state whose config the service reported before: a 404 is gone, a 405 is not known (the values kept)", async () => {
    const state = { mount: "registry", address: "registry.internal:8500", scheme: "http", token: "seed-only-management-token", __readable: true };
    accessAnswer = 404;
    expect(await call(ACCESS, "read", ["registry/config/access", state])).toEqual({ id: "", props: {} });
    accessAnswer = 405;
    const kept = (await call(ACCESS, "read", ["registry/config/access", state])) as { id: string; props: Props };
    expect(kept).toMatchObject({ id: "registry/config/access", props: { address: "registry.internal:8500", __readable: false } });
  });

  it("adopt: true writes over whatever may be there, and says a refresh cannot see it", async () => {
    accessAnswer = 404;
    const { warned } = await warnings(async () => call(ACCESS, "create", [await checked(ACCESS, { address: "registry.internal:8500", token: "seed-only-management-token", adopt: true })]));
    // The take-over's warning (src/core/provider.ts) says a refresh cannot show it gone, and why, where it says so of others.
    expect(warned).toEqual([expect.stringContaining(`${blind}; pulumi up --replace on this resource writes it again`),
      expect.stringContaining(`registry/config/access: taken over from outside this stack. The service records no owner: if another stack takes it over too (the same import deployed to two stacks), either one's destroy deletes it for both, and the other's plain preview still says unchanged; and a refresh cannot show it gone: the service does not report registry/config/access`)]);
    expect(warned[1]).not.toContain("pulumi preview --refresh shows it gone");
  });
});
