import { createPublicKey } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { startEmulator } from "../../src/emulator";
import { svcToken } from "./helpers";
import { call, type Response } from "../support/http";
import { controlResponse, useEmulator } from "../support/emulator";

// Three clusters for the whole file, all reset before each test: A (0), B (1), C (2).
const { emu } = useEmulator({ clusters: 3, env: false });

const R = "sys/replication/performance";

/** Requests to cluster i with its root token (or the headers given). */
function at(i: number) {
  const c = () => emu.clusters[i];
  const headers = () => svcToken(c().secretsToken);
  const url = (path: string) => `${c().secretsUrl}/${path}`;
  return {
    get: (path: string, h = headers()) => call("GET", url(path), { headers: h }),
    post: (path: string, body: unknown = {}, h = headers()) => call("POST", url(path), { headers: h, body }),
    del: (path: string) => call("DELETE", url(path), { headers: headers() }),
    status: async () => (await call("GET", url(`${R}/status`))).json.data,
    control: (method: string, path: string, body?: unknown) => controlResponse(c(), method, path, body),
    url: () => c().url,
  };
}
const A = at(0);
const B = at(1);
const C = at(2);

async function ok(res: Promise<Response>, status = 204): Promise<Response> {
  const r = await res;
  expect(r.status, r.text).toBe(status);
  return r;
}

async function refused(res: Promise<Response>, text: string) {
  const r = await res;
  expect(r.status).toBe(400);
  expect(r.json.errors?.join("\n")).toContain(text);
}

async function enablePrimary(p = A, body: unknown = {}) {
  await ok(p.post(`${R}/primary/enable`, body));
}

async function token(p: ReturnType<typeof at>, id: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await ok(p.post(`${R}/primary/secondary-token`, { id, ...extra }), 200);
  const json = JSON.parse(res.text);
  return json.wrap_info?.token ?? json.data.token;
}

/** A primary with `secondaries` connected to it under ids s1, s2, ... */
async function replicationSet(primary = A, secondaries = [B]) {
  await enablePrimary(primary);
  for (const [i, s] of secondaries.entries()) await ok(s.post(`${R}/secondary/enable`, { token: await token(primary, `s${i + 1}`) }));
}

const alphabet = (on: ReturnType<typeof at>, name: string, letters = "0123456789") => on.post(`transform/alphabet/${name}`, { alphabet: letters });

describe("status", () => {
  test("needs no token: answers without one and with a wrong one; disabled clusters report their mode", async () => {
    for (const c of emu.clusters) {
      const res = await call("GET", `${c.secretsUrl}/${R}/status`);
      expect(res.status).toBe(200);
      expect(res.json.data).toEqual({ mode: "disabled" });
    }
    expect((await A.get(`${R}/status`, svcToken("not-a-token"))).json.data.mode).toBe("disabled");
  });

  test("every other replication endpoint still needs a token; secondary-token needs sudo", async () => {
    await enablePrimary();
    for (const path of ["primary/demote", "primary/secondary-token", "secondary/generate-public-key"]) {
      expect((await call("POST", `${emu.clusters[0].secretsUrl}/${R}/${path}`, { body: {} })).status).toBe(403);
    }
    const user = svcToken(emu.clusters[0].tokens.secretsUser);
    expect((await A.post(`${R}/primary/secondary-token`, { id: "x" }, user)).status).toBe(403);
    expect((await A.get(`${R}/status`, user)).json.data.mode).toBe("primary");
  });

  test("each cluster has its own URL, tokens and storage; only cluster 0 serves the run service", async () => {
    const [a, b, c] = emu.clusters;
    expect(new Set([a.url, b.url, c.url]).size).toBe(3);
    expect(a.secretsUrl).toBe(emu.secretsUrl);
    expect(a.secretsToken).toBe(emu.tokens.secretsRoot);
    expect(new Set([a.secretsToken, b.secretsToken, c.secretsToken]).size).toBe(3);
    expect((await call("GET", `${b.secretsUrl}/transform/alphabet/x`, { headers: svcToken(a.secretsToken) })).status).toBe(403);
    await ok(alphabet(A, "only-a"));
    expect((await B.get("transform/alphabet/only-a")).status).toBe(404);
    expect((await call("GET", `${b.url}/api/v2/organizations`)).status).toBe(404);
  });
});

describe("primary", () => {
  test("enable reports the seed's primary fields; a second enable and a second primary are refused", async () => {
    await enablePrimary();
    const s = await A.status();
    expect(s).toMatchObject({
      mode: "primary",
      known_secondaries: [],
      last_wal: 0,
      corrupted_merkle_tree: false,
      secondaries: [],
      primary_cluster_addr: A.url(),
      state: "running",
    });
    expect(s.cluster_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.merkle_root).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof s.last_corruption_check_epoch).toBe("string");
    await refused(A.post(`${R}/primary/enable`), "already enabled as primary");
    await refused(B.post(`${R}/primary/enable`), `only one performance primary may be active in a replication set: cluster ${s.cluster_id} at ${A.url()} is already primary`);
    expect((await B.status()).mode).toBe("disabled");
  });

  test("primary_cluster_addr is given to secondaries; a malformed one is refused", async () => {
    await refused(A.post(`${R}/primary/enable`, { primary_cluster_addr: "not an address" }), "primary_cluster_addr must be an address");
    await enablePrimary(A, { primary_cluster_addr: "https://a.cluster.internal:8201" });
    expect((await A.status()).primary_cluster_addr).toBe("https://a.cluster.internal:8201");
    await ok(B.post(`${R}/secondary/enable`, { token: await token(A, "b") }));
    const b = await B.status();
    expect(b.primary_cluster_addr).toBe("https://a.cluster.internal:8201");
    expect(b.known_primary_cluster_addrs).toEqual(["https://a.cluster.internal:8201"]);
    expect(b.primaries).toEqual([{ api_address: A.url(), cluster_address: "https://a.cluster.internal:8201", connection_status: "connected", last_heartbeat: expect.any(String) }]);
  });

  test("secondary-token: a wrapped envelope with the default ttl of 30m; problems reported together", async () => {
    await refused(A.post(`${R}/primary/secondary-token`, { id: "x" }), "not enabled as primary");
    await enablePrimary();
    const res = await ok(A.post(`${R}/primary/secondary-token`, { id: "east" }), 200);
    expect(res.json).toMatchObject({ lease_id: "", lease_duration: 0, renewable: false, data: null });
    expect(res.json.request_id).toEqual(expect.any(String));
    expect(res.json.wrap_info).toMatchObject({ ttl: 1800, token: expect.any(String), wrapped_accessor: expect.any(String) });
    expect(new Date(res.json.wrap_info.creation_time).toISOString()).toBe(res.json.wrap_info.creation_time);
    expect((await ok(A.post(`${R}/primary/secondary-token`, { id: "west", ttl: "1h" }), 200)).json.wrap_info.ttl).toBe(3600);
    const bad = await A.post(`${R}/primary/secondary-token`, { ttl: "soon", secondary_public_key: "abc" });
    expect(bad.status).toBe(400);
    expect(bad.json.errors).toEqual([
      "missing id",
      'ttl must be a positive duration such as "30m" or seconds, got "soon"',
      "secondary_public_key must be the base64 X25519 public key returned by secondary/generate-public-key",
    ]);
  });

  test("a token for an id in use is refused; a new token for an unused id replaces the pending one", async () => {
    await enablePrimary();
    const first = await token(A, "east");
    const second = await token(A, "east");
    await refused(B.post(`${R}/secondary/enable`, { token: first }), "does not know this activation token");
    await ok(B.post(`${R}/secondary/enable`, { token: second }));
    await refused(A.post(`${R}/primary/secondary-token`, { id: "east" }), 'secondary id "east" is already in use');
  });

  test("demote keeps the cluster id and refuses writes to replicated mounts; promote back restores its secondaries", async () => {
    await replicationSet(A, [B]);
    const id = (await A.status()).cluster_id;
    await ok(A.post(`${R}/primary/demote`));
    const a = await A.status();
    expect(a).toMatchObject({ mode: "secondary", cluster_id: id, state: "idle", primaries: [], secondary_id: "" });
    expect((await B.status()).state).toBe("connecting");
    await refused(alphabet(A, "late"), 'cannot write to "transform/" on a performance secondary');
    await ok(A.post(`${R}/secondary/promote`));
    expect(await A.status()).toMatchObject({ mode: "primary", cluster_id: id, known_secondaries: ["s1"] });
    await ok(alphabet(A, "after"));
    expect((await B.status()).state).toBe("stream-wals");
    expect((await B.get("transform/alphabet/after")).status).toBe(200);
  });

  test("disable: secondaries disconnect; a later enable makes a new cluster id; they need a wipe to rejoin", async () => {
    await replicationSet(A, [B]);
    const before = (await A.status()).cluster_id;
    await ok(B.control("POST", "/mounts", { path: "b-local", type: "transform" }));
    await ok(A.post(`${R}/primary/disable`));
    expect(await A.status()).toEqual({ mode: "disabled" });
    expect((await B.status()).primaries[0].connection_status).toBe("disconnected");
    await enablePrimary();
    expect((await A.status()).cluster_id).not.toBe(before);
    const fresh = await token(A, "s1");
    await refused(B.post(`${R}/secondary/update-primary`, { token: fresh }), "disable this secondary and enable it with a new token, which wipes its storage");
    // The refused update-primary left the token valid: the wipe path uses it.
    await ok(B.post(`${R}/secondary/disable`));
    await ok(B.post(`${R}/secondary/enable`, { token: fresh }));
    expect((await B.status()).state).toBe("stream-wals");
    expect((await B.control("GET", "/mounts")).json.mounts.map((m: { path: string }) => m.path)).not.toContain("b-local");
  });

  test("primary operations on a cluster that is not primary are refused", async () => {
    for (const path of ["demote", "disable", "revoke-secondary"]) await refused(A.post(`${R}/primary/${path}`, { id: "x" }), "not enabled as primary on this cluster (mode: disabled)");
    await refused(A.post(`${R}/primary/paths-filter/x`, { mode: "deny" }), "not enabled as primary");
  });
});

describe("secondary enable", () => {
  test("wipes every object and mount of the secondary, then holds the primary's replicated data", async () => {
    await ok(alphabet(A, "from-primary"));
    await ok(alphabet(B, "b-own"));
    await ok(B.post("keymgmt/key/b-key", { type: "aes256-gcm96" }));
    await ok(B.control("POST", "/mounts", { path: "b-local", type: "registry" }));
    await ok(B.post("sys/plugins/catalog/secret/b-plugin", { sha256: "a".repeat(64), command: "b-plugin" }));
    const mountsBefore = (await B.control("GET", "/mounts")).json.mounts.map((m: { path: string }) => m.path);
    expect(mountsBefore).toContain("b-local");

    await replicationSet(A, [B]);

    expect((await B.get("transform/alphabet/b-own")).status).toBe(404);
    expect((await B.get("keymgmt/key/b-key")).status).toBe(404);
    expect((await B.get("sys/plugins/catalog/secret/b-plugin")).status).toBe(404);
    const after = (await B.control("GET", "/mounts")).json.mounts.map((m: { path: string }) => m.path).sort();
    const primary = (await A.control("GET", "/mounts")).json.mounts.map((m: { path: string }) => m.path).sort();
    expect(after).toEqual(primary);
    expect((await B.get("transform/alphabet/from-primary")).json.data).toEqual({ alphabet: "0123456789" });
  });

  test("status of both sides after enable: connected, stream-wals, same merkle root and WAL", async () => {
    await ok(alphabet(A, "one"));
    await replicationSet(A, [B]);
    const a = await A.status();
    const b = await B.status();
    expect(a.known_secondaries).toEqual(["s1"]);
    expect(a.secondaries).toEqual([{
      node_id: expect.stringMatching(/^node-/), api_address: B.url(), cluster_address: B.url(), connection_status: "connected",
      last_heartbeat: expect.any(String), secondary_id: "s1", cluster_id: b.cluster_id,
    }]);
    expect(b).toMatchObject({ mode: "secondary", secondary_id: "s1", state: "stream-wals", primary_cluster_addr: A.url(), last_remote_wal: a.last_wal, merkle_root: a.merkle_root });
    expect(b.cluster_id).not.toBe(a.cluster_id);
  });

  test("the token is single-use and only the primary that issued it knows it", async () => {
    await enablePrimary();
    const t = await token(A, "s1");
    await refused(B.post(`${R}/secondary/enable`, { token: t, primary_api_addr: C.url() }), `the cluster at ${C.url()} is not an active performance primary`);
    await refused(B.post(`${R}/secondary/enable`, { token: t, primary_api_addr: "http://127.0.0.1:1" }), "could not reach a primary at http://127.0.0.1:1");
    await refused(B.post(`${R}/secondary/enable`, { token: "garbage" }), "token is not an activation token");
    await refused(B.post(`${R}/secondary/enable`, {}), "missing token");
    await ok(B.post(`${R}/secondary/enable`, { token: t, primary_api_addr: `${A.url()}/v1` }));
    await refused(C.post(`${R}/secondary/enable`, { token: t }), "does not know this activation token");
    expect((await C.status()).mode).toBe("disabled");
  });

  test("ca_file and ca_path must exist; the cluster must be disabled", async () => {
    await enablePrimary();
    const t = await token(A, "s1");
    const dir = mkdtempSync(join(tmpdir(), "svc-repl-ca-"));
    try {
      writeFileSync(join(dir, "bad.pem"), "not a certificate");
      const res = await B.post(`${R}/secondary/enable`, { token: t, ca_file: join(dir, "bad.pem"), ca_path: join(dir, "missing") });
      expect(res.json.errors).toEqual([`ca_file must be a readable PEM CA certificate file: ${join(dir, "bad.pem")}`, `ca_path must be a directory of PEM files: ${join(dir, "missing")}`]);
      await ok(B.post(`${R}/secondary/enable`, { token: t, ca_path: dir }));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await refused(B.post(`${R}/secondary/enable`, { token: await token(A, "s2") }), "already a performance secondary");
    await refused(A.post(`${R}/secondary/enable`, { token: "x" }), "this cluster is a performance primary");
    await refused(B.post(`${R}/primary/enable`), "this cluster is a performance secondary");
  });

  test("with a public key the credentials come encrypted to it: only the cluster holding the private key can use them", async () => {
    await enablePrimary();
    await refused(A.post(`${R}/secondary/generate-public-key`), "this cluster is a performance primary");
    const key = (await ok(B.post(`${R}/secondary/generate-public-key`), 200)).json.data.secondary_public_key;
    expect(createPublicKey({ key: Buffer.from(key, "base64"), format: "der", type: "spki" }).asymmetricKeyType).toBe("x25519");
    expect((await B.post(`${R}/secondary/generate-public-key`)).json.data.secondary_public_key).toBe(key);
    const res = await ok(A.post(`${R}/primary/secondary-token`, { id: "s1", secondary_public_key: key }), 200);
    expect(res.json.wrap_info).toBeNull();
    const sealed = res.json.data.token;
    expect(sealed).toEqual(expect.any(String));
    await refused(C.post(`${R}/secondary/enable`, { token: sealed }), "this cluster has none");
    await ok(C.post(`${R}/secondary/generate-public-key`), 200);
    await refused(C.post(`${R}/secondary/enable`, { token: sealed }), "encrypted to another cluster's public key");
    await ok(B.post(`${R}/secondary/enable`, { token: sealed }));
    expect((await B.status()).state).toBe("stream-wals");
  });
});

describe("replicated data", () => {
  test("writes on the primary become readable on every connected secondary; the WAL counts them", async () => {
    await replicationSet(A, [B, C]);
    const wal = (await A.status()).last_wal;
    await ok(alphabet(A, "later"));
    await ok(A.post("keymgmt/key/k1", { type: "aes256-gcm96" }));
    expect((await A.status()).last_wal).toBe(wal + 2);
    for (const s of [B, C]) {
      expect((await s.get("transform/alphabet/later")).json.data).toEqual({ alphabet: "0123456789" });
      expect((await s.get("keymgmt/key/k1")).json.data.type).toBe("aes256-gcm96");
      expect((await s.status()).last_remote_wal).toBe(wal + 2);
    }
    await ok(A.del("transform/alphabet/later"));
    expect((await C.get("transform/alphabet/later")).status).toBe(404);
  });

  test("a secondary refuses writes to replicated mounts and keeps its data; reads and local mounts work", async () => {
    await ok(alphabet(A, "kept"));
    await replicationSet(A, [B]);
    await refused(alphabet(B, "mine"), `cannot write to "transform/" on a performance secondary: the mount is replicated from primary cluster ${(await A.status()).cluster_id}`);
    await refused(B.del("transform/alphabet/kept"), "performance secondary");
    expect((await B.get("transform/alphabet/kept")).status).toBe(200);
    expect((await B.get("transform/alphabet/mine")).status).toBe(404);
    await ok(B.control("POST", "/mounts", { path: "b-local", type: "transform" }));
    await ok(B.post("b-local/alphabet/x", { alphabet: "ab" }));
    expect((await A.get("b-local/alphabet/x")).status).toBe(404);
  });

  test("a read that changes storage replicates too; on a secondary it is refused like a write", async () => {
    const management = (await ok(A.control("POST", "/registry/tokens", { type: "management" }), 200)).json.token;
    await ok(A.post("registry/config/access", { address: "127.0.0.1:8500", token: management }));
    await ok(A.post("registry/roles/ops", { token_type: "management" }));
    await replicationSet(A, [B]);
    const wal = (await A.status()).last_wal;
    // GET creds mints a registry token into the engine's storage.
    expect((await A.get("registry/creds/ops")).status).toBe(200);
    expect((await A.status()).last_wal).toBe(wal + 1);
    expect((await B.status()).merkle_root).toBe((await A.status()).merkle_root);
    await refused(B.get("registry/creds/ops"), 'cannot write to "registry/" on a performance secondary');
    expect((await B.status()).merkle_root).toBe((await A.status()).merkle_root);
  });

  test("a deny filter withholds a mount from that secondary only; dynamic filters show it on both sides", async () => {
    await ok(alphabet(A, "t1"));
    await ok(A.post("keymgmt/key/k1", { type: "aes256-gcm96" }));
    await replicationSet(A, [B, C]);
    const b = (await B.status()).cluster_id;
    await ok(A.post(`${R}/primary/paths-filter/${b}`, { mode: "deny", paths: ["keymgmt", "keymgmt/"] }));
    expect((await A.get(`${R}/primary/paths-filter/${b}`)).json.data).toEqual({ mode: "deny", paths: ["keymgmt/"] });
    expect((await B.get("keymgmt/key/k1")).status).toBe(404);
    expect((await B.get("transform/alphabet/t1")).status).toBe(200);
    expect((await C.get("keymgmt/key/k1")).status).toBe(200);
    await ok(A.post("keymgmt/key/k2", { type: "aes256-gcm96" }));
    await ok(alphabet(A, "t2"));
    expect((await B.get("keymgmt/key/k2")).status).toBe(404);
    expect((await B.get("transform/alphabet/t2")).status).toBe(200);
    expect((await C.get("keymgmt/key/k2")).status).toBe(200);
    const dyn = { dynamic_filtered_mounts: ["keymgmt/"], dynamic_filtered_namespaces: [] };
    expect((await A.get(`${R}/primary/dynamic-filter/${b}`)).json.data).toEqual(dyn);
    expect((await B.get(`${R}/secondary/dynamic-filter/${b}`)).json.data).toEqual(dyn);
    expect((await A.get(`${R}/primary/dynamic-filter/${(await C.status()).cluster_id}`)).json.data.dynamic_filtered_mounts).toEqual([]);
    expect((await A.get(`${R}/primary/dynamic-filter/unknown`)).status).toBe(404);
    expect((await B.get(`${R}/secondary/dynamic-filter/unknown`)).status).toBe(404);
    expect((await B.status()).merkle_root).not.toBe((await A.status()).merkle_root);
    expect((await C.status()).merkle_root).toBe((await A.status()).merkle_root);
  });

  test("an allow filter replicates only the listed mounts; deleting the filter brings the rest back", async () => {
    await ok(alphabet(A, "t1"));
    await ok(A.post("keymgmt/key/k1", { type: "aes256-gcm96" }));
    await replicationSet(A, [B]);
    const b = (await B.status()).cluster_id;
    await ok(A.post(`${R}/primary/paths-filter/${b}`, { paths: ["/keymgmt/"] }));
    expect((await A.get(`${R}/primary/paths-filter/${b}`)).json.data).toEqual({ mode: "allow", paths: ["keymgmt/"] });
    expect((await B.get("keymgmt/key/k1")).status).toBe(200);
    expect((await B.get("transform/alphabet/t1")).status).toBe(404);
    expect((await B.get(`${R}/secondary/dynamic-filter/${b}`)).json.data.dynamic_filtered_mounts).toEqual(["directory/", "registry/", "transform/"]);
    await ok(A.del(`${R}/primary/paths-filter/${b}`));
    expect((await A.get(`${R}/primary/paths-filter/${b}`)).status).toBe(404);
    expect((await B.get("transform/alphabet/t1")).status).toBe(200);
  });

  test("paths-filter refusals: unknown secondary, bad mode, empty path", async () => {
    await replicationSet(A, [B]);
    const res = await A.post(`${R}/primary/paths-filter/nobody`, { mode: "both", paths: ["/"] });
    expect(res.json.errors).toEqual([
      'no secondary with cluster id "nobody" is registered on this primary (the id is the cluster_id in the secondary\'s status)',
      'mode must be allow or deny, got "both"',
      'paths[0] must name a mount or namespace, such as "transform/"',
    ]);
    expect((await A.get(`${R}/primary/paths-filter/nobody`)).status).toBe(404);
  });
});

describe("revoke and update-primary", () => {
  test("revoke disconnects at once; a new token through update-primary reconnects without a wipe and drops the filter", async () => {
    await replicationSet(A, [B]);
    const b = (await B.status()).cluster_id;
    await ok(A.post(`${R}/primary/paths-filter/${b}`, { mode: "deny", paths: ["keymgmt/"] }));
    await ok(A.post(`${R}/primary/revoke-secondary`, { id: "s1" }));
    expect((await A.status()).known_secondaries).toEqual([]);
    expect((await B.status())).toMatchObject({ state: "connecting", primaries: [expect.objectContaining({ connection_status: "disconnected" })] });
    expect((await A.get(`${R}/primary/paths-filter/${b}`)).status).toBe(404);
    await ok(alphabet(A, "missed"));
    expect((await B.get("transform/alphabet/missed")).status).toBe(404);
    await ok(B.control("POST", "/mounts", { path: "b-local", type: "transform" }));
    await ok(B.post("b-local/alphabet/kept", { alphabet: "ab" }));

    await ok(B.post(`${R}/secondary/update-primary`, { token: await token(A, "s1-again") }));
    expect(await B.status()).toMatchObject({ state: "stream-wals", secondary_id: "s1-again", cluster_id: b });
    expect((await B.get("transform/alphabet/missed")).status).toBe(200);
    expect((await B.get("b-local/alphabet/kept")).status).toBe(200);
    // The filter has to be recreated for the new token: the secondary now gets keymgmt too.
    expect((await A.get(`${R}/primary/paths-filter/${b}`)).status).toBe(404);
    await ok(A.post("keymgmt/key/k", { type: "aes256-gcm96" }));
    expect((await B.get("keymgmt/key/k")).status).toBe(200);
  });

  test("token and update_primary_addrs together are refused; one of them is needed", async () => {
    await replicationSet(A, [B]);
    await refused(B.post(`${R}/secondary/update-primary`, { token: "x", update_primary_addrs: [A.url()] }), "token and update_primary_addrs are mutually exclusive");
    await refused(B.post(`${R}/secondary/update-primary`, {}), "give token (blank to forget the past primary) or update_primary_addrs");
    await refused(A.post(`${R}/secondary/update-primary`, { token: "" }), "not a performance secondary (mode: primary)");
  });

  test("a blank token clears knowledge of the past primary without a wipe; update_primary_addrs finds it again", async () => {
    await ok(alphabet(A, "kept"));
    await replicationSet(A, [B]);
    await ok(B.post(`${R}/secondary/update-primary`, { token: "" }));
    expect(await B.status()).toMatchObject({ state: "idle", primaries: [], known_primary_cluster_addrs: [], primary_cluster_addr: "", secondary_id: "" });
    expect((await B.get("transform/alphabet/kept")).status).toBe(200);
    // No primary known: its old registration cannot be found by address alone.
    await refused(B.post(`${R}/secondary/update-primary`, { update_primary_addrs: ["https://nowhere:8201"] }), "none of update_primary_addrs answered");
    await ok(B.post(`${R}/secondary/update-primary`, { update_primary_addrs: ["https://nowhere:8201", A.url()] }));
    expect(await B.status()).toMatchObject({ known_primary_cluster_addrs: ["https://nowhere:8201", A.url()], primary_cluster_addr: A.url(), state: "connecting" });
    await ok(B.post(`${R}/secondary/update-primary`, { token: await token(A, "s1b") }));
    expect((await B.status()).state).toBe("stream-wals");
  });

  test("update_primary_addrs reconnects with the activation the secondary already has", async () => {
    await ok(A.post(`${R}/primary/enable`, { primary_cluster_addr: "https://a:8201" }));
    await ok(B.post(`${R}/secondary/enable`, { token: await token(A, "s1") }));
    await ok(B.post(`${R}/secondary/update-primary`, { update_primary_addrs: ["https://a:8201/"] }));
    expect(await B.status()).toMatchObject({ state: "stream-wals", secondary_id: "s1" });
  });
});

describe("promote and disable (three clusters)", () => {
  test("planned failover: demote A, promote B, C and A follow B with new tokens and no wipe", async () => {
    await ok(alphabet(A, "before"));
    await replicationSet(A, [B, C]);
    await refused(B.post(`${R}/secondary/promote`), "only one performance primary may be active");
    await ok(A.post(`${R}/primary/demote`));
    await ok(B.post(`${R}/secondary/promote`, { primary_cluster_addr: "https://b:8201" }));
    const b = await B.status();
    expect(b).toMatchObject({ mode: "primary", primary_cluster_addr: "https://b:8201", known_secondaries: [] });
    expect((await C.status()).state).toBe("connecting");
    await ok(alphabet(B, "on-b"));
    await ok(C.post(`${R}/secondary/update-primary`, { token: await token(B, "c") }));
    await ok(A.post(`${R}/secondary/update-primary`, { token: await token(B, "a") }));
    for (const s of [A, C]) {
      expect(await s.status()).toMatchObject({ state: "stream-wals", primary_cluster_addr: "https://b:8201" });
      expect((await s.get("transform/alphabet/on-b")).status).toBe(200);
      expect((await s.get("transform/alphabet/before")).status).toBe(200);
    }
    expect((await B.status()).known_secondaries).toEqual(["a", "c"]);
  });

  test("promote without force refuses a secondary that missed writes or whose primary is gone; force promotes", async () => {
    await replicationSet(A, [B, C]);
    await ok(A.post(`${R}/primary/revoke-secondary`, { id: "s1" }));
    await ok(alphabet(A, "missed-by-b"));
    await ok(A.post(`${R}/primary/demote`));
    await refused(B.post(`${R}/secondary/promote`), "this secondary is behind its primary");
    await ok(A.post(`${R}/secondary/disable`));
    await refused(C.post(`${R}/secondary/promote`), "cannot confirm that this secondary holds every write of its primary");
    await ok(B.post(`${R}/secondary/promote`, { force: true }));
    expect((await B.status()).mode).toBe("primary");
    expect((await B.get("transform/alphabet/missed-by-b")).status).toBe(404);
    await ok(alphabet(B, "b-writes-now"));
  });

  test("secondary disable keeps the data as local and writable; enabling again makes a new cluster id", async () => {
    await ok(alphabet(A, "copied"));
    await replicationSet(A, [B]);
    const first = (await B.status()).cluster_id;
    await ok(B.post(`${R}/secondary/disable`));
    expect(await B.status()).toEqual({ mode: "disabled" });
    expect((await A.status()).secondaries[0].connection_status).toBe("disconnected");
    expect((await B.get("transform/alphabet/copied")).status).toBe(200);
    await ok(alphabet(B, "local-now"));
    await ok(A.post(`${R}/primary/revoke-secondary`, { id: "s1" }));
    await ok(B.post(`${R}/secondary/enable`, { token: await token(A, "s1") }));
    expect((await B.status()).cluster_id).not.toBe(first);
    expect((await B.get("transform/alphabet/local-now")).status).toBe(404);
  });

  test("secondary operations on a cluster that is not a secondary are refused", async () => {
    for (const path of ["promote", "disable", "update-primary"]) await refused(A.post(`${R}/secondary/${path}`, { token: "" }), "not a performance secondary (mode: disabled)");
    expect((await A.get(`${R}/secondary/dynamic-filter/x`)).status).toBe(400);
  });

  test("revoking an unknown id succeeds (idempotent) and reset makes a cluster disabled", async () => {
    await replicationSet(A, [B]);
    await ok(A.post(`${R}/primary/revoke-secondary`, { id: "nobody" }));
    await refused(A.post(`${R}/primary/revoke-secondary`, {}), "missing id");
    await ok(A.control("POST", "/reset"));
    expect(await A.status()).toEqual({ mode: "disabled" });
    expect((await B.status()).state).toBe("connecting");
  });
});

describe("one cluster", () => {
  test("a single-cluster emulator answers status and can be a primary", async () => {
    const single = await startEmulator();
    try {
      expect(single.clusters).toHaveLength(1);
      expect(single.clusters[0]).toMatchObject({ secretsUrl: single.secretsUrl, secretsToken: single.tokens.secretsRoot });
      expect((await call("GET", `${single.secretsUrl}/${R}/status`)).json.data).toEqual({ mode: "disabled" });
      expect((await call("POST", `${single.secretsUrl}/${R}/primary/enable`, { headers: svcToken(single.tokens.secretsRoot), body: {} })).status).toBe(204);
    } finally {
      await single.close();
    }
  });

  test("with a state file each cluster keeps its own, and the replication link survives a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-repl-state-"));
    const statePath = join(dir, "state.json");
    try {
      const first = await startEmulator({ clusters: 2, statePath, flushMs: 0 });
      const [a, b] = first.clusters;
      const post = (c: typeof a, path: string, body: unknown = {}) => call("POST", `${c.secretsUrl}/${path}`, { headers: svcToken(c.secretsToken), body });
      expect((await post(a, `${R}/primary/enable`)).status).toBe(204);
      const t = (await post(a, `${R}/primary/secondary-token`, { id: "b" })).json.wrap_info.token;
      expect((await post(b, `${R}/secondary/enable`, { token: t })).status).toBe(204);
      await first.close();
      // Same ports are not guaranteed: the link is by cluster id, not by address.
      const again = await startEmulator({ clusters: 2, statePath, flushMs: 0 });
      try {
        const [a2, b2] = again.clusters;
        expect(a2.secretsToken).toBe(a.secretsToken);
        expect(b2.secretsToken).toBe(b.secretsToken);
        expect((await call("POST", `${a2.secretsUrl}/transform/alphabet/after-restart`, { headers: svcToken(a2.secretsToken), body: { alphabet: "ab" } })).status).toBe(204);
        expect((await call("GET", `${b2.secretsUrl}/transform/alphabet/after-restart`, { headers: svcToken(b2.secretsToken) })).status).toBe(200);
        expect((await call("GET", `${b2.secretsUrl}/${R}/status`)).json.data.state).toBe("stream-wals");
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("clusters out of range are refused", async () => {
    await expect(startEmulator({ clusters: 0 })).rejects.toThrow("clusters must be an integer from 1 to 16");
  });
});
