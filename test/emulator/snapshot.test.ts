import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { STATE_KEY_ENV, startEmulator, type Emulator } from "../../src/emulator";
import { main } from "../../src/emulator/cli";
import { bearer, svcToken } from "./helpers";
import { call, type Response } from "../support/http";
import { clients, ok, populate, SECRETS, type Made } from "./populate";

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
      // A snapshot may be far larger than an API request: 11 MB is read (and refused for what it
      // holds), where an API route refuses it as too large.
      const big = "x".repeat(11 * 1024 * 1024);
      expect((await put(big)).json.error).toMatch(/is not an emulator state file/);
      expect((await call("POST", `${emu.secretsUrl}/transform/alphabet/big`, { headers: svcToken(emu.tokens.secretsRoot), raw: big })).status).toBe(413);
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
