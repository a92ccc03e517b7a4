import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { STATE_KEY_ENV, startEmulator, type Emulator } from "../../src/emulator";
import { main } from "../../src/emulator/cli";
import { bearer, call, svcToken, type Response } from "./helpers";

// One state key for the file, as two emulators that exchange snapshots must share.
const previousKey = process.env[STATE_KEY_ENV];
let dir = "";
beforeAll(() => {
  process.env[STATE_KEY_ENV] = randomBytes(32).toString("hex");
  dir = mkdtempSync(join(tmpdir(), "emu-snapshot-"));
});
afterAll(() => {
  if (previousKey === undefined) delete process.env[STATE_KEY_ENV];
  else process.env[STATE_KEY_ENV] = previousKey;
  rmSync(dir, { recursive: true, force: true });
});

const SECRETS = { nc: "nc-signing-secret-5b7e", kms: "kms-client-secret-9d1c", bind: "bind-pass-snapshot-3a", mfa: "mfa-secret-key-77f0", plaintext: "123-45-6789" };

async function ok(res: Promise<Response>, status?: number): Promise<Response> {
  const r = await res;
  if (status === undefined) expect(r.status, r.text).toBeLessThan(300);
  else expect(r.status, r.text).toBe(status);
  return r;
}

/** Calls as each service's own client would, on cluster `i` of `emu`. */
function clients(emu: Emulator, i = 0) {
  const c = emu.clusters[i];
  const sec = (method: string, path: string, body?: unknown) => call(method, `${c.secretsUrl}/${path}`, { headers: svcToken(c.tokens.secretsRoot), body });
  const run = (method: string, path: string, body?: unknown) => call(method, `${emu.runUrl}${path}`, { headers: bearer(emu.tokens.runAdmin), body });
  const control = (method: string, path: string, body?: unknown) => call(method, `${c.controlUrl}${path}`, { body });
  return { sec, run, control };
}

interface Made {
  ncId: string;
  runIds: string[];
  aliasId: string;
  mfaId: string;
  token: string;
  registryToken: string;
  account: { name: string; password: string };
}

/** At least one object of every engine, both services, an extra mount, and one on cluster 1. */
async function populate(emu: Emulator): Promise<Made> {
  const { sec, run, control } = clients(emu);
  const nc = await ok(run("POST", `/workspaces/${emu.workspaceId}/notification-configurations`, {
    data: { type: "notification-configurations", attributes: { name: "snap", "destination-type": "generic", url: "https://h.example.com/", token: SECRETS.nc } },
  }), 201);
  const runs = await ok(control("POST", "/runs", { workspaceId: emu.workspaceId, count: 2, status: "applied", message: "before the snapshot" }), 201);
  // transform: alphabet, template, fpe and tokenization transformations, a role, a token.
  await ok(sec("POST", "transform/alphabet/digits", { alphabet: "0123456789" }));
  await ok(sec("POST", "transform/template/ssn", { type: "regex", pattern: "(\\d{3})-(\\d{2})-(\\d{4})", alphabet: "digits" }));
  await ok(sec("POST", "transform/transformations/fpe/card", { template: "builtin/creditcardnumber", tweak_source: "internal", allowed_roles: ["app"] }));
  await ok(sec("POST", "transform/transformations/tokenization/tok", { allowed_roles: ["app"] }));
  await ok(sec("POST", "transform/role/app", { transformations: ["tok", "card"] }));
  const token = (await ok(sec("POST", "transform/encode/app", { value: SECRETS.plaintext, transformation: "tok" }), 200)).json.data.encoded_value as string;
  // keymgmt: a rotated key distributed to a KMS provider.
  await ok(sec("POST", "keymgmt/key/k", { type: "rsa-2048" }));
  await ok(sec("POST", "keymgmt/key/k/rotate"));
  await ok(sec("POST", "keymgmt/kms/p", { provider: "azurekeyvault", key_collection: "vault-one", credentials: { client_id: "id", client_secret: SECRETS.kms, tenant_id: "t" } }));
  await ok(sec("POST", "keymgmt/kms/p/key/k", { purpose: ["encrypt", "decrypt"] }));
  // directory: config, a library set, an account checked out.
  await ok(control("POST", "/directory/accounts", { accounts: ["svc-a", "svc-b"] }), 200);
  await ok(sec("POST", "directory/config", { binddn: "cn=admin,dc=example,dc=org", bindpass: SECRETS.bind, url: "ldap://127.0.0.1:1" }));
  await ok(sec("POST", "directory/library/lib", { service_account_names: ["svc-a", "svc-b"], ttl: "1h" }));
  const out = (await ok(sec("POST", "directory/library/lib/check-out", {}), 200)).json.data;
  // registry: access, a role, a token minted by it.
  const management = (await ok(control("POST", "/registry/tokens", { type: "management" }), 200)).json.token;
  await ok(sec("POST", "registry/config/access", { address: "registry:8500", token: management }));
  await ok(sec("POST", "registry/roles/m", { token_type: "management", ttl: "30m" }));
  const registryToken = (await ok(sec("GET", "registry/creds/m"), 200)).json.data.token as string;
  // identity, MFA, plugin catalog, an extra mount, replication, cluster 1.
  const alias = await ok(sec("POST", "identity/entity-alias", { name: "alice", canonical_id: "ent-alice0000000001", mount_accessor: "auth_userpass_1234abcd" }), 200);
  const mfa = await ok(sec("POST", "identity/mfa/method/dualfactor", { secret_key: SECRETS.mfa, integration_key: "ik-1", api_hostname: "api-1.example.com" }), 200);
  await ok(sec("PUT", "sys/plugins/catalog/secret/my-secrets", { sha256: "a".repeat(64), command: "my-secrets-plugin" }));
  await ok(control("POST", "/mounts", { path: "transform-eu", type: "transform" }));
  await ok(sec("POST", "transform-eu/alphabet/eu", { alphabet: "ab" }));
  await ok(sec("POST", "sys/replication/performance/primary/enable", {}));
  await ok(clients(emu, 1).sec("POST", "transform/alphabet/on-cluster-1", { alphabet: "xyz" }));
  return { ncId: nc.json.data.id, runIds: runs.json.ids, aliasId: alias.json.data.id, mfaId: mfa.json.data.id, token, registryToken, account: { name: out.service_account_name, password: out.password } };
}

/** Every object read back through the services' APIs, without what differs per answer. */
async function readAll(emu: Emulator, made: Made): Promise<unknown[]> {
  const { sec, run } = clients(emu);
  const reads: Response[] = [
    await run("GET", `/workspaces/${emu.workspaceId}/notification-configurations`),
    await run("GET", `/workspaces/${emu.workspaceId}/runs`),
    ...(await Promise.all(made.runIds.map((id) => run("GET", `/runs/${id}`)))),
    await sec("GET", "transform/alphabet/digits"),
    await sec("GET", "transform/template/ssn"),
    await sec("GET", "transform/transformation/card"),
    await sec("GET", "transform/transformation/tok"),
    await sec("GET", "transform/role/app"),
    await sec("POST", "transform/decode/app", { value: made.token, transformation: "tok" }),
    await sec("POST", "transform/encode/app", { value: "4111-1111-1111-1111", transformation: "card" }),
    await sec("GET", "keymgmt/key/k"),
    await sec("GET", "keymgmt/kms/p"),
    await sec("GET", "keymgmt/kms/p/key/k"),
    await sec("GET", "directory/config"),
    await sec("GET", "directory/library/lib"),
    await sec("GET", "directory/library/lib/status"),
    await sec("GET", "registry/config/access"),
    await sec("GET", "registry/roles/m"),
    await sec("GET", `identity/entity-alias/id/${made.aliasId}`),
    await sec("GET", `identity/mfa/method/dualfactor/${made.mfaId}`),
    await sec("GET", "sys/plugins/catalog/secret/my-secrets"),
    await sec("GET", "transform-eu/alphabet/eu"),
    await sec("GET", "sys/replication/performance/status"),
    await clients(emu, 1).sec("GET", "transform/alphabet/on-cluster-1"),
  ];
  for (const r of reads) expect(r.status, r.text).toBe(200);
  return reads.map((r) => {
    const { request_id: _id, ...rest } = r.json as Record<string, unknown>;
    return rest;
  });
}

/** The tokens of `from` work on `on`: both services, both clusters, the minted ones too. */
async function tokensWork(from: Emulator, on: Emulator, made: Made) {
  expect((await call("GET", `${on.runUrl}/runs/${made.runIds[0]}`, { headers: bearer(from.tokens.runMember) })).status).toBe(200);
  expect((await call("GET", `${on.secretsUrl}/auth/token/lookup-self`, { headers: svcToken(from.tokens.secretsUser) })).json.data.policies).toEqual(["default"]);
  expect((await call("GET", `${on.clusters[1].secretsUrl}/transform/alphabet/on-cluster-1`, { headers: svcToken(from.clusters[1].tokens.secretsRoot) })).status).toBe(200);
  expect((await clients(on).sec("POST", "registry/config/access", { address: "registry:8501", token: made.registryToken })).status).toBe(204);
  expect((await clients(on).control("POST", "/directory/bind", made.account)).json.ok).toBe(true);
}

describe("snapshot and restore", () => {
  test("every engine and cluster round-trips into another emulator; its tokens work there; no secret in the document", async () => {
    const a = await startEmulator({ clusters: 2 });
    const b = await startEmulator({ clusters: 2 });
    try {
      const made = await populate(a);
      const before = await readAll(a, made);
      const snap = await ok(call("GET", `${a.controlUrl}/snapshot`), 200);
      for (const secret of [...Object.values(SECRETS), made.account.password, made.registryToken, ...Object.values(a.tokens), a.clusters[1].secretsToken]) {
        expect(snap.text).not.toContain(secret);
      }
      expect(snap.json).toMatchObject({ version: 2, cipher: "aes-256-gcm" });

      await ok(call("PUT", `${b.controlUrl}/snapshot`, { raw: snap.text }), 204);
      expect(b.tokens).toEqual(a.tokens);
      expect(b.clusters[1].tokens).toEqual(a.clusters[1].tokens);
      expect(await readAll(b, made)).toEqual(before);
      await tokensWork(a, b, made);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test("within one emulator: snapshot, reset, restore brings every object back", async () => {
    const emu = await startEmulator({ clusters: 2 });
    try {
      const made = await populate(emu);
      const before = await readAll(emu, made);
      const snap = await ok(call("GET", `${emu.controlUrl}/snapshot`), 200);
      await ok(call("POST", `${emu.controlUrl}/reset`), 204);
      expect((await clients(emu).sec("GET", "keymgmt/key/k")).status).toBe(404);
      // Any cluster's control endpoint restores the whole emulator.
      await ok(call("PUT", `${emu.clusters[1].controlUrl}/snapshot`, { raw: snap.text }), 204);
      expect(await readAll(emu, made)).toEqual(before);
    } finally {
      await emu.close();
    }
  });

  test("the command starts from a snapshot with --load and prints the snapshot's tokens", async () => {
    const a = await startEmulator({ clusters: 2 });
    let loaded: Emulator | undefined;
    try {
      const made = await populate(a);
      const before = await readAll(a, made);
      const file = join(dir, "snap.json");
      writeFileSync(file, (await ok(call("GET", `${a.controlUrl}/snapshot`), 200)).text);
      const lines: string[] = [];
      loaded = await main(["--load", file, "--clusters", "2", "--auto-advance-ms", "0"], { out: (l) => lines.push(l), err: (l) => lines.push(l) });
      expect(lines).toContain(`export SVC_SECRETS_TOKEN=${a.tokens.secretsRoot}`);
      expect(lines).toContain(`export SVC_RUN_TOKEN=${a.tokens.runAdmin}`);
      expect(await readAll(loaded!, made)).toEqual(before);
      await tokensWork(a, loaded!, made);
      // A snapshot of two clusters does not load into one.
      await expect(startEmulator({ loadPath: file })).rejects.toThrow(/holds 2 cluster\(s\) but this emulator runs 1: start it with --clusters 2/);
    } finally {
      await Promise.all([a.close(), loaded?.close()]);
    }
  });

  test("a bad snapshot is refused with the reason and changes nothing", async () => {
    const emu = await startEmulator();
    try {
      const put = (raw: string) => call("PUT", `${emu.controlUrl}/snapshot`, { raw });
      await ok(clients(emu).sec("POST", "transform/alphabet/kept", { alphabet: "01" }));
      const good = (await ok(call("GET", `${emu.controlUrl}/snapshot`), 200)).text;
      expect((await put("not json")).json.error).toMatch(/is not an emulator state file/);
      const sealed = JSON.parse(good);
      const payload = Buffer.from(sealed.payload, "base64");
      payload[3] ^= 1;
      expect((await put(JSON.stringify({ ...sealed, payload: payload.toString("base64") }))).json.error).toMatch(/could not be decrypted/);
      expect((await put(JSON.stringify({ ...sealed, keyId: "0".repeat(16) }))).json.error).toMatch(new RegExp(`sealed with another key.*same ${STATE_KEY_ENV}`));
      // A plaintext document (as a version 1 state file) is read, and checked before anything changes.
      const plain = { version: 1, tokens: {}, data: { secrets: { mounts: { x: { type: "nope", objects: {} } } } } };
      expect((await put(JSON.stringify(plain))).json.error).toMatch(/mount "x" must be \{type: transform/);
      expect((await put(JSON.stringify({ version: 1, data: { run: { runs: [] } } }))).json.error).toMatch(/data\.run\.runs must be an object/);
      expect((await put(JSON.stringify({ version: 1, data: {}, clusters: [{ version: 1, data: {} }] }))).json.error).toMatch(/holds 2 cluster/);
      expect((await clients(emu).sec("GET", "transform/alphabet/kept")).status).toBe(200);
    } finally {
      await emu.close();
    }
  });

  test("an emulator with a key of its own refuses another's snapshot, naming the variable", async () => {
    const a = await startEmulator();
    const saved = process.env[STATE_KEY_ENV];
    delete process.env[STATE_KEY_ENV];
    const b = await startEmulator();
    process.env[STATE_KEY_ENV] = saved;
    try {
      const snap = (await ok(call("GET", `${a.controlUrl}/snapshot`), 200)).text;
      const refused = await call("PUT", `${b.controlUrl}/snapshot`, { raw: snap });
      expect(refused.status).toBe(400);
      expect(refused.json.error).toMatch(new RegExp(`sealed with another key .*${STATE_KEY_ENV}`));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
