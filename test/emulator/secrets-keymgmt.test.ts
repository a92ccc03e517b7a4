import { createPublicKey } from "node:crypto";
import { readStateFile } from "../../src/emulator";
import { describe, expect, test } from "vitest";
import { secretsApi, svcToken, useStateFile } from "./helpers";
import { call } from "../support/http";
import { useEmulator } from "../support/emulator";

const { emu } = useEmulator();
const { post, get, list, del } = secretsApi(emu);

const AZURE = { provider: "azurekeyvault", key_collection: "vault-one", credentials: { client_id: "id", client_secret: "shh", tenant_id: "t" } };

async function keyWith(name: string, body: Record<string, unknown> = {}) {
  expect((await post(`keymgmt/key/${name}`, body)).status).toBe(204);
}

/** A key of `type` distributed to a new azure provider `p`. */
async function distributed(key = "k", type = "rsa-2048") {
  await keyWith(key, { type });
  expect((await post("keymgmt/kms/p", AZURE)).status).toBe(204);
  expect((await post(`keymgmt/kms/p/key/${key}`, { purpose: ["encrypt", "decrypt"] })).status).toBe(204);
}

describe("keys", () => {
  test("a key without type is rsa-2048 with one version and a real SPKI public key", async () => {
    const write = await post("keymgmt/key/k");
    expect(write.status).toBe(204);
    expect(write.text).toBe("");
    const read = await get("keymgmt/key/k");
    expect(read.status).toBe(200);
    expect(read.json.data).toEqual({
      name: "k",
      type: "rsa-2048",
      deletion_allowed: false,
      min_enabled_version: 0,
      latest_version: 1,
      keys: { "1": { creation_time: expect.any(String), public_key: expect.stringMatching(/^-----BEGIN PUBLIC KEY-----\n/) } },
    });
    expect(Number.isNaN(Date.parse(read.json.data.keys["1"].creation_time))).toBe(false);
    const key = createPublicKey(read.json.data.keys["1"].public_key);
    expect(key.asymmetricKeyType).toBe("rsa");
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(read.text).not.toContain("PRIVATE KEY");
  });

  test.each([
    ["rsa-2048", "rsa", { modulusLength: 2048 }],
    ["rsa-3072", "rsa", { modulusLength: 3072 }],
    ["rsa-4096", "rsa", { modulusLength: 4096 }],
    ["ecdsa-p256", "ec", { namedCurve: "prime256v1" }],
    ["ecdsa-p384", "ec", { namedCurve: "secp384r1" }],
    ["ecdsa-p521", "ec", { namedCurve: "secp521r1" }],
  ])("%s has a %s public key with %j", async (type, keyType, details) => {
    await keyWith("a", { type });
    await keyWith("b", { type });
    const a = (await get("keymgmt/key/a")).json.data;
    const b = (await get("keymgmt/key/b")).json.data;
    expect(a.type).toBe(type);
    const key = createPublicKey(a.keys["1"].public_key);
    expect(key.asymmetricKeyType).toBe(keyType);
    expect(key.asymmetricKeyDetails).toMatchObject(details);
    expect(key.export({ type: "spki", format: "pem" })).toBe(a.keys["1"].public_key);
    // Generated, not a fixed sample.
    expect(b.keys["1"].public_key).not.toBe(a.keys["1"].public_key);
  });

  test("aes256-gcm96 has versions without a public key", async () => {
    await keyWith("sym", { type: "aes256-gcm96" });
    const read = await get("keymgmt/key/sym");
    expect(read.json.data.type).toBe("aes256-gcm96");
    expect(read.json.data.keys).toEqual({ "1": { creation_time: expect.any(String) } });
  });

  test("type is immutable: the same type is accepted, another one is 400 naming type", async () => {
    await keyWith("k", { type: "ecdsa-p256" });
    const before = (await get("keymgmt/key/k")).json.data;
    expect((await post("keymgmt/key/k", { type: "ecdsa-p256" })).status).toBe(204);
    const changed = await post("keymgmt/key/k", { type: "rsa-2048" });
    expect(changed.status).toBe(400);
    expect(changed.json.errors).toHaveLength(1);
    expect(changed.json.errors[0]).toContain("type");
    expect(changed.json.errors[0]).toContain("ecdsa-p256");
    expect((await get("keymgmt/key/k")).json.data).toEqual(before);
  });

  test("an unknown type is refused and nothing is created", async () => {
    const res = await post("keymgmt/key/k", { type: "rsa-1024" });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain("type must be one of");
    expect((await get("keymgmt/key/k")).status).toBe(404);
  });

  test("an existing key is updated: left-out fields and the material stay", async () => {
    await keyWith("k", { type: "ecdsa-p384", min_enabled_version: 1 });
    const before = (await get("keymgmt/key/k")).json.data;
    expect(before.min_enabled_version).toBe(1);
    expect((await post("keymgmt/key/k", { deletion_allowed: true })).status).toBe(204);
    const after = (await get("keymgmt/key/k")).json.data;
    expect(after).toEqual({ ...before, deletion_allowed: true });
    expect((await post("keymgmt/key/k", { deletion_allowed: "false" })).status).toBe(204);
    expect((await get("keymgmt/key/k")).json.data.deletion_allowed).toBe(false);
  });

  test.each([
    [{ deletion_allowed: "yes" }, "deletion_allowed"],
    [{ min_enabled_version: -1 }, "min_enabled_version"],
    [{ min_enabled_version: 1.5 }, "min_enabled_version"],
    [{ type: 7 }, "type"],
  ])("invalid %j → 400 naming %s", async (body, field) => {
    const res = await post("keymgmt/key/k", body);
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain(field);
    expect((await get("keymgmt/key/k")).status).toBe(404);
  });

  test("rotate adds a version and keeps the older ones", async () => {
    await keyWith("k", { type: "ecdsa-p256" });
    const first = (await get("keymgmt/key/k")).json.data.keys["1"];
    const rotate = await post("keymgmt/key/k/rotate");
    expect(rotate.status).toBe(204);
    const data = (await get("keymgmt/key/k")).json.data;
    expect(data.latest_version).toBe(2);
    expect(Object.keys(data.keys)).toEqual(["1", "2"]);
    expect(data.keys["1"]).toEqual(first);
    expect(data.keys["2"].public_key).not.toBe(first.public_key);
    expect(createPublicKey(data.keys["2"].public_key).asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    await post("keymgmt/key/k/rotate");
    expect((await get("keymgmt/key/k")).json.data.latest_version).toBe(3);
  });

  test("rotating a missing key → 404; GET of a rotate path → 405", async () => {
    const res = await post("keymgmt/key/none/rotate");
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ errors: [] });
    expect((await get("keymgmt/key/none/rotate")).status).toBe(405);
  });

  test("min_enabled_version must not exceed latest_version", async () => {
    await keyWith("k", { type: "aes256-gcm96" });
    const tooHigh = await post("keymgmt/key/k", { min_enabled_version: 2 });
    expect(tooHigh.status).toBe(400);
    expect(tooHigh.json.errors[0]).toContain("min_enabled_version 2 is greater than latest_version 1");
    await post("keymgmt/key/k/rotate");
    expect((await post("keymgmt/key/k", { min_enabled_version: 2 })).status).toBe(204);
    expect((await get("keymgmt/key/k")).json.data.min_enabled_version).toBe(2);
    expect((await post("keymgmt/key/k", { min_enabled_version: "0" })).status).toBe(204);
    expect((await get("keymgmt/key/k")).json.data.min_enabled_version).toBe(0);
  });

  test("a new key with min_enabled_version above 1 is refused and not created", async () => {
    const res = await post("keymgmt/key/k", { min_enabled_version: 2 });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain("min_enabled_version");
    expect((await get("keymgmt/key/k")).status).toBe(404);
  });

  test("LIST keys, sorted; none → 404 with no messages", async () => {
    const empty = await list("keymgmt/key");
    expect(empty.status).toBe(404);
    expect(empty.json).toEqual({ errors: [] });
    await keyWith("b", { type: "aes256-gcm96" });
    await keyWith("a", { type: "aes256-gcm96" });
    expect((await list("keymgmt/key")).json.data).toEqual({ keys: ["a", "b"] });
    expect((await get("keymgmt/key?list=true")).json.data.keys).toEqual(["a", "b"]);
  });

  test("delete needs deletion_allowed", async () => {
    await keyWith("k", { type: "aes256-gcm96" });
    const refused = await del("keymgmt/key/k");
    expect(refused.status).toBe(400);
    expect(refused.json.errors).toHaveLength(1);
    expect(refused.json.errors[0]).toContain("deletion_allowed");
    expect(refused.json.errors[0]).toContain("POST key/k");
    expect((await get("keymgmt/key/k")).status).toBe(200);
    await post("keymgmt/key/k", { deletion_allowed: true });
    expect((await del("keymgmt/key/k")).status).toBe(204);
    expect((await get("keymgmt/key/k")).status).toBe(404);
    expect((await del("keymgmt/key/k")).status).toBe(204);
  });

  test("delete needs the key out of every provider, and reports both rules when both apply", async () => {
    await distributed();
    const both = await del("keymgmt/key/k");
    expect(both.status).toBe(400);
    expect(both.json.errors).toHaveLength(2);
    await post("keymgmt/key/k", { deletion_allowed: true });
    const held = await del("keymgmt/key/k");
    expect(held.status).toBe(400);
    expect(held.json.errors).toEqual([expect.stringContaining('distributed to KMS provider "p"')]);
    expect(held.json.errors[0]).toContain("DELETE kms/p/key/k");
    expect((await get("keymgmt/key/k")).status).toBe(200);
    expect((await del("keymgmt/kms/p/key/k")).status).toBe(204);
    expect((await del("keymgmt/key/k")).status).toBe(204);
    expect((await get("keymgmt/key/k")).status).toBe(404);
  });

  test("concurrent writes of a new key: one creates, the other is classified as an update", async () => {
    const same = await Promise.all([post("keymgmt/key/same", { type: "ecdsa-p256" }), post("keymgmt/key/same", { type: "ecdsa-p256" })]);
    expect(same.map((r) => r.status)).toEqual([204, 204]);
    expect((await get("keymgmt/key/same")).json.data.latest_version).toBe(1);
    const differ = await Promise.all([post("keymgmt/key/race", { type: "rsa-2048" }), post("keymgmt/key/race", { type: "ecdsa-p256" })]);
    expect(differ.map((r) => r.status).sort()).toEqual([204, 400]);
  });

  test("concurrent rotations each add a version", async () => {
    await keyWith("k", { type: "ecdsa-p256" });
    await Promise.all([post("keymgmt/key/k/rotate"), post("keymgmt/key/k/rotate"), post("keymgmt/key/k/rotate")]);
    const data = (await get("keymgmt/key/k")).json.data;
    expect(data.latest_version).toBe(4);
    expect(new Set(Object.values(data.keys).map((v) => (v as { public_key: string }).public_key)).size).toBe(4);
  });

  test("the secrets user token may use keymgmt", async () => {
    expect((await post("keymgmt/key/u", { type: "aes256-gcm96" }, svcToken(emu.tokens.secretsUser))).status).toBe(204);
  });
});

describe("KMS providers", () => {
  test("write, read without credentials, list, delete", async () => {
    expect((await post("keymgmt/kms/p", AZURE)).status).toBe(204);
    const read = await get("keymgmt/kms/p");
    expect(read.status).toBe(200);
    expect(read.json.data).toEqual({ key_collection: "vault-one", provider: "azurekeyvault" });
    expect(read.text).not.toContain("shh");
    expect((await post("keymgmt/kms/a", { provider: "awskms", key_collection: "us-east-1" })).status).toBe(204);
    expect((await list("keymgmt/kms")).json.data.keys).toEqual(["a", "p"]);
    expect((await del("keymgmt/kms/p")).status).toBe(204);
    expect((await get("keymgmt/kms/p")).status).toBe(404);
    expect((await get("keymgmt/kms/p")).json).toEqual({ errors: [] });
    expect((await del("keymgmt/kms/p")).status).toBe(204);
  });

  test("credentials may be a list of name=value strings", async () => {
    const res = await post("keymgmt/kms/g", { provider: "gcpckms", key_collection: "projects/x/locations/global/keyRings/r", credentials: ["service_account_file=/etc/sa.json"] });
    expect(res.status).toBe(204);
    expect((await get("keymgmt/kms/g")).json.data.provider).toBe("gcpckms");
  });

  test("provider and key_collection are immutable; repeating or leaving them out is fine", async () => {
    await post("keymgmt/kms/p", AZURE);
    expect((await post("keymgmt/kms/p", { ...AZURE, credentials: { client_secret: "new" } })).status).toBe(204);
    expect((await post("keymgmt/kms/p", { credentials: { client_secret: "newer" } })).status).toBe(204);
    const provider = await post("keymgmt/kms/p", { ...AZURE, provider: "awskms" });
    expect(provider.status).toBe(400);
    expect(provider.json.errors[0]).toContain("provider is immutable");
    const collection = await post("keymgmt/kms/p", { ...AZURE, key_collection: "vault-two" });
    expect(collection.status).toBe(400);
    expect(collection.json.errors[0]).toContain("key_collection is immutable");
    expect((await get("keymgmt/kms/p")).json.data).toEqual({ key_collection: "vault-one", provider: "azurekeyvault" });
  });

  test.each([
    [{ key_collection: "v" }, "missing provider"],
    [{ provider: "azurekeyvault" }, "missing key_collection"],
    [{ provider: "azurekeyvault", key_collection: "" }, "key_collection"],
    [{ provider: "vaultkms", key_collection: "v" }, "provider must be one of azurekeyvault, awskms, gcpckms"],
    [{ provider: "azurekeyvault", key_collection: "v", credentials: { access_key: "x" } }, "credentials.access_key"],
    [{ provider: "azurekeyvault", key_collection: "v", credentials: ["client_id"] }, "credentials[0]"],
    [{ provider: "azurekeyvault", key_collection: "v", credentials: { client_id: 5 } }, "credentials.client_id"],
    [{ provider: "azurekeyvault", key_collection: "v", credentials: "client_id=x" }, "credentials"],
  ])("invalid %j → 400 naming %s", async (body, message) => {
    const res = await post("keymgmt/kms/bad", body);
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain(message);
    expect((await get("keymgmt/kms/bad")).status).toBe(404);
  });

  test("a provider holding keys cannot be deleted; the error names them", async () => {
    await distributed("k1");
    await keyWith("k2", { type: "rsa-2048" });
    await post("keymgmt/kms/p/key/k2", { purpose: ["sign"] });
    const res = await del("keymgmt/kms/p");
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain('"k1", "k2"');
    expect((await get("keymgmt/kms/p")).status).toBe(200);
    await del("keymgmt/kms/p/key/k1");
    await del("keymgmt/kms/p/key/k2");
    expect((await del("keymgmt/kms/p")).status).toBe(204);
  });
});

describe("keys in KMS providers", () => {
  test("distribute, read, list both ways, remove from the provider only", async () => {
    const before = Math.floor(Date.now() / 1000);
    await distributed();
    const read = await get("keymgmt/kms/p/key/k");
    expect(read.status).toBe(200);
    expect(read.json.data).toEqual({ name: expect.stringMatching(/^k-\d+$/), protection: "hsm", purpose: "encrypt,decrypt", versions: { "1": expect.stringMatching(/^\S+$/) } });
    const stamp = Number(read.json.data.name.slice(2));
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(stamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect((await list("keymgmt/kms/p/key")).json.data.keys).toEqual(["k"]);
    expect((await list("keymgmt/key/k/kms")).json.data.keys).toEqual(["p"]);

    expect((await del("keymgmt/kms/p/key/k")).status).toBe(204);
    expect((await get("keymgmt/kms/p/key/k")).status).toBe(404);
    expect((await list("keymgmt/kms/p/key")).status).toBe(404);
    expect((await list("keymgmt/key/k/kms")).json).toEqual({ errors: [] });
    expect((await get("keymgmt/key/k")).status).toBe(200);
  });

  test("rotation adds a version to the provider's copy; older identifiers stay", async () => {
    await distributed();
    const v1 = (await get("keymgmt/kms/p/key/k")).json.data.versions["1"];
    await post("keymgmt/key/k/rotate");
    const versions = (await get("keymgmt/kms/p/key/k")).json.data.versions;
    expect(Object.keys(versions)).toEqual(["1", "2"]);
    expect(versions["1"]).toBe(v1);
    expect(versions["2"]).not.toBe(v1);
  });

  test("parameters are immutable: the same ones (in any order) are accepted, others are 400", async () => {
    await distributed();
    const name = (await get("keymgmt/kms/p/key/k")).json.data.name;
    expect((await post("keymgmt/kms/p/key/k", { purpose: ["decrypt", "encrypt"], protection: "hsm" })).status).toBe(204);
    const purpose = await post("keymgmt/kms/p/key/k", { purpose: ["encrypt"] });
    expect(purpose.status).toBe(400);
    expect(purpose.json.errors[0]).toContain("purpose is immutable");
    const protection = await post("keymgmt/kms/p/key/k", { purpose: ["encrypt", "decrypt"], protection: "software" });
    expect(protection.status).toBe(400);
    expect(protection.json.errors[0]).toContain("protection is immutable");
    expect((await get("keymgmt/kms/p/key/k")).json.data).toMatchObject({ name, protection: "hsm", purpose: "encrypt,decrypt" });
  });

  test("a key is in one provider at a time; after removal it can go to another", async () => {
    await distributed();
    await post("keymgmt/kms/q", { provider: "awskms", key_collection: "eu-west-1" });
    const res = await post("keymgmt/kms/q/key/k", { purpose: ["sign"], protection: "software" });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain('already distributed to KMS provider "p"');
    expect((await get("keymgmt/kms/q/key/k")).status).toBe(404);
    // Removing from the wrong provider changes nothing.
    expect((await del("keymgmt/kms/q/key/k")).status).toBe(204);
    expect((await list("keymgmt/key/k/kms")).json.data.keys).toEqual(["p"]);
    await del("keymgmt/kms/p/key/k");
    expect((await post("keymgmt/kms/q/key/k", { purpose: "sign,verify", protection: "software" })).status).toBe(204);
    expect((await get("keymgmt/kms/q/key/k")).json.data).toMatchObject({ protection: "software", purpose: "sign,verify" });
  });

  test.each([
    [{}, "missing purpose"],
    [{ purpose: [] }, "missing purpose"],
    [{ purpose: ["mine"] }, 'purpose "mine"'],
    [{ purpose: [1] }, "purpose[0]"],
    [{ purpose: ["sign"], protection: "cloud" }, "protection must be one of hsm, software"],
  ])("invalid %j → 400 naming %s", async (body, message) => {
    await keyWith("k", { type: "rsa-2048" });
    await post("keymgmt/kms/p", AZURE);
    const res = await post("keymgmt/kms/p/key/k", body);
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain(message);
    expect((await get("keymgmt/kms/p/key/k")).status).toBe(404);
  });

  test("the key and the provider must exist", async () => {
    await post("keymgmt/kms/p", AZURE);
    const noKey = await post("keymgmt/kms/p/key/ghost", { purpose: ["sign"] });
    expect(noKey.status).toBe(400);
    expect(noKey.json.errors[0]).toContain('key "ghost" does not exist');
    await keyWith("k");
    const noKms = await post("keymgmt/kms/nope/key/k", { purpose: ["sign"] });
    expect(noKms.status).toBe(400);
    expect(noKms.json.errors[0]).toContain('KMS provider "nope" does not exist');
  });

  test.each([
    ["ecdsa-p256", "azurekeyvault", ["encrypt"], "not possible with a ecdsa-p256 key"],
    ["aes256-gcm96", "awskms", ["sign"], "not possible with a aes256-gcm96 key"],
    ["aes256-gcm96", "azurekeyvault", ["encrypt"], "azurekeyvault cannot hold aes256-gcm96"],
    ["ecdsa-p521", "gcpckms", ["sign"], "gcpckms cannot hold ecdsa-p521"],
  ])("a %s key to %s for %j → 400 (%s)", async (type, provider, purpose, message) => {
    await keyWith("k", { type });
    await post("keymgmt/kms/p", { provider, key_collection: "c" });
    const res = await post("keymgmt/kms/p/key/k", { purpose });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toContain(message);
  });

  test("unknown distributions read as 404", async () => {
    await distributed();
    expect((await get("keymgmt/kms/other/key/k")).status).toBe(404);
    expect((await get("keymgmt/kms/p/key/nothing")).json).toEqual({ errors: [] });
  });
});

describe("keymgmt mounted elsewhere", () => {
  test("an extra mount has its own keys and providers; reset removes it", async () => {
    const mount = await call("POST", `${emu.controlUrl}/mounts`, { body: { path: "kms-eu", type: "keymgmt" } });
    expect(mount.status).toBe(204);
    expect((await post("kms-eu/key/eu", { type: "ecdsa-p256" })).status).toBe(204);
    expect((await post("kms-eu/kms/p", AZURE)).status).toBe(204);
    expect((await post("kms-eu/kms/p/key/eu", { purpose: ["sign"] })).status).toBe(204);
    expect((await get("kms-eu/key/eu")).json.data.type).toBe("ecdsa-p256");
    expect((await get("keymgmt/key/eu")).status).toBe(404);
    expect((await get("keymgmt/kms/p")).status).toBe(404);
    expect((await list("kms-eu/kms/p/key")).json.data.keys).toEqual(["eu"]);
    await call("POST", `${emu.controlUrl}/reset`);
    expect((await get("kms-eu/key/eu")).json.errors[0]).toContain("no handler");
  });

  test("keymgmt is mounted by default", async () => {
    const mounts = await call("GET", `${emu.controlUrl}/mounts`);
    expect(mounts.json.mounts).toContainEqual({ path: "keymgmt", type: "keymgmt" });
  });
});

describe("keymgmt persistence", () => {
  const state = useStateFile("emu-keymgmt-");

  test("keys, material, providers, credentials and distributions survive a restart", async () => {
    const first = await state.start();
    const headers = svcToken(first.tokens.secretsRoot);
    await call("POST", `${first.secretsUrl}/keymgmt/key/k`, { headers, body: { type: "ecdsa-p384" } });
    await call("POST", `${first.secretsUrl}/keymgmt/kms/p`, { headers, body: { provider: "awskms", key_collection: "us-east-1", credentials: ["access_key=AK", "secret_key=SK"] } });
    await call("POST", `${first.secretsUrl}/keymgmt/kms/p/key/k`, { headers, body: { purpose: ["sign", "verify"] } });
    const key = (await call("GET", `${first.secretsUrl}/keymgmt/key/k`, { headers })).json.data;
    const inKms = (await call("GET", `${first.secretsUrl}/keymgmt/kms/p/key/k`, { headers })).json.data;
    await first.close();

    const saved = readStateFile(state.path) as any;
    expect(saved.data.secrets.mounts.keymgmt.objects.kms.p.credentials).toEqual({ access_key: "AK", secret_key: "SK" });

    const second = await state.start();
    const again = svcToken(second.tokens.secretsRoot);
    expect((await call("GET", `${second.secretsUrl}/keymgmt/key/k`, { headers: again })).json.data).toEqual(key);
    expect((await call("GET", `${second.secretsUrl}/keymgmt/kms/p/key/k`, { headers: again })).json.data).toEqual(inKms);
  });
});
