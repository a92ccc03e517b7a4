import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import * as keymgmt from "../../src/secrets/keymgmt";
import { checked, created, type Props, type Res } from "../support/calls";
import { control, requests, secretsApi, useEmulator } from "../support/emulator";
import { rejectionOf } from "../support/errors";

const { emu } = useEmulator();
const KEY = "secrets:KeymgmtKey";
const KMS = "secrets:KeymgmtKmsProvider";
const DIST = "secrets:KeymgmtKeyDistribution";
const AWS_KEY = "AKIAEXAMPLEKEY00001";
const AWS_SECRET = "aws-secret-access-key-example-9f8e7d";

/** What the engine does for a replacement: check, diff, then delete-first or create-first. */
async function replaced(kind: string, old: Res, news: Props): Promise<{ res: Res; deleteBeforeReplace: boolean; replaces: string[] }> {
  const inputs = await checked(kind, news, old.outs);
  const d = (await call(kind, "diff", [old.id, old.outs, inputs])) as { replaces: string[]; deleteBeforeReplace: boolean };
  expect(d.replaces.length).toBeGreaterThan(0);
  let res: Res;
  if (d.deleteBeforeReplace) {
    await call(kind, "delete", [old.id, old.outs]);
    res = (await call(kind, "create", [inputs])) as Res;
  } else {
    res = (await call(kind, "create", [inputs])) as Res;
    await call(kind, "delete", [old.id, old.outs]);
  }
  return { res, deleteBeforeReplace: d.deleteBeforeReplace, replaces: d.replaces };
}

const raw = (method: string, path: string, body?: unknown) => secretsApi(emu, method, path, body);

const writes = async () => (await requests(emu)).filter((r) => r.method !== "GET" && r.method !== "LIST").map((r) => `${r.method} ${r.path}`);

async function aProvider(name = "aws"): Promise<Res> {
  return created(KMS, { name, provider: "awskms", keyCollection: "eu-west-1", credentials: { access_key: AWS_KEY, secret_key: AWS_SECRET } });
}

describe("keymgmt Key", () => {
  it("creates with defaults in one write, reads, updates in place and deletes once allowed", async () => {
    await control(emu, "DELETE", "/requests");
    const { id, outs } = await created(KEY, { name: "signing" });
    expect(id).toBe("keymgmt/key/signing");
    expect(outs).toMatchObject({ name: "signing", mount: "keymgmt", type: "rsa-2048", deletionAllowed: false, minEnabledVersion: 0, latestVersion: 1 });
    expect((outs.keys as Record<string, { publicKey?: string }>)["1"].publicKey).toMatch(/BEGIN PUBLIC KEY/);
    expect(await writes()).toEqual(["POST /v1/keymgmt/key/signing"]);

    expect(await call(KEY, "read", [id, outs])).toEqual({ id, props: outs, inputs: expect.any(Object) });
    const inputs = await checked(KEY, { name: "signing" }, outs);
    expect(await call(KEY, "diff", [id, outs, inputs])).toMatchObject({ changes: false });

    const news = await checked(KEY, { name: "signing", deletionAllowed: true }, outs);
    expect(await call(KEY, "diff", [id, outs, news])).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs: after } = (await call(KEY, "update", [id, outs, news])) as { outs: Props };
    expect(after.deletionAllowed).toBe(true);
    expect((await raw("GET", "/keymgmt/key/signing")).body.data.deletion_allowed).toBe(true);

    await call(KEY, "delete", [id, after]);
    expect((await raw("GET", "/keymgmt/key/signing")).status).toBe(404);
  });

  it("sends deletionAllowed and minEnabledVersion at create when they differ from the defaults", async () => {
    const { outs } = await created(KEY, { name: "sym", type: "aes256-gcm96", deletionAllowed: true });
    expect(outs).toMatchObject({ type: "aes256-gcm96", deletionAllowed: true });
    expect((outs.keys as Record<string, { publicKey?: string }>)["1"]).not.toHaveProperty("publicKey");
    expect((await raw("GET", "/keymgmt/key/sym")).body.data).toMatchObject({ type: "aes256-gcm96", deletion_allowed: true });
  });

  it("rotates when rotationTrigger changes (an update, not a replace), and only then", async () => {
    const { id, outs } = await created(KEY, { name: "rot", type: "ecdsa-p256", rotationTrigger: "2025-q1" });
    expect(outs).toMatchObject({ latestVersion: 1, rotationTrigger: "2025-q1" });
    await control(emu, "DELETE", "/requests");

    // The trigger survives a refresh read: the service never returns it.
    const read = (await call(KEY, "read", [id, outs])) as { props: Props };
    expect(read.props.rotationTrigger).toBe("2025-q1");

    const news = await checked(KEY, { name: "rot", type: "ecdsa-p256", rotationTrigger: "2025-q2", minEnabledVersion: 2 }, read.props);
    expect(await call(KEY, "diff", [id, read.props, news])).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs: after } = (await call(KEY, "update", [id, read.props, news])) as { outs: Props };
    expect(after).toMatchObject({ latestVersion: 2, minEnabledVersion: 2, rotationTrigger: "2025-q2" });
    expect(Object.keys(after.keys as object).sort()).toEqual(["1", "2"]);
    // Rotated first, so min_enabled_version 2 is valid when it is written.
    expect(await writes()).toEqual(["POST /v1/keymgmt/key/rot/rotate", "POST /v1/keymgmt/key/rot"]);

    await control(emu, "DELETE", "/requests");
    const same = await checked(KEY, { name: "rot", type: "ecdsa-p256", rotationTrigger: "2025-q2", minEnabledVersion: 2, deletionAllowed: true }, after);
    const { outs: last } = (await call(KEY, "update", [id, after, same])) as { outs: Props };
    expect(last.latestVersion).toBe(2);
    expect(await writes()).toEqual(["POST /v1/keymgmt/key/rot"]);
  });

  it("records a rotation that happened when the rest of the update fails, so it is not repeated", async () => {
    const { id, outs } = await created(KEY, { name: "half", type: "ecdsa-p256", rotationTrigger: 1 });
    const news = await checked(KEY, { name: "half", type: "ecdsa-p256", rotationTrigger: 2, minEnabledVersion: 5 }, outs);
    const err = await rejectionOf(call(KEY, "update", [id, outs, news]));
    expect(err.id).toBe(id);
    expect(err.message).toMatch(/min_enabled_version.*was rotated/);
    expect(err.properties).toMatchObject({ rotationTrigger: 2, minEnabledVersion: 0 });
    expect((await raw("GET", "/keymgmt/key/half")).body.data.latest_version).toBe(2);
  });

  it("refuses to delete a key whose deletionAllowed is false, saying how to fix it, before any DELETE", async () => {
    const { id, outs } = await created(KEY, { name: "kept", type: "ecdsa-p256" });
    await control(emu, "DELETE", "/requests");
    const err = await rejectionOf(call(KEY, "delete", [id, outs]));
    expect(err.code).toBe("conflict");
    // Deployed to the key alone: after a partial destroy, a plain up would create again what the destroy deleted.
    expect(err.message).toBe("DELETE /keymgmt/key/kept: conflict: key kept has deletion_allowed false: set deletionAllowed: true on the Key and deploy it alone, " +
      "with the key's other inputs as they were: pulumi up --target <the Key's URN> (pulumi stack --show-urns lists it) (after a partial pulumi destroy, " +
      "a plain pulumi up would create again everything the destroy deleted); then run the destroy, or the change that replaces the key, again");
    expect(await writes()).toEqual([]);
    expect((await raw("GET", "/keymgmt/key/kept")).status).toBe(200);
  });

  it("refuses to delete a distributed key, naming the provider, and reports both problems at once", async () => {
    await aProvider("aws");
    const k = await created(KEY, { name: "shared", type: "ecdsa-p256" });
    await created(DIST, { keyName: "shared", kmsName: "aws", purpose: ["sign"] });
    const err = await rejectionOf(call(KEY, "delete", [k.id, k.outs]));
    expect(err.messages).toEqual([
      expect.stringMatching(/deletion_allowed false/),
      "key shared is still distributed to KMS provider aws: remove its KeyDistribution first (the distribution must be deleted before the key)",
    ]);
    await raw("POST", "/keymgmt/key/shared", { deletion_allowed: true });
    const again = await rejectionOf(call(KEY, "delete", [k.id, k.outs]));
    expect(again.messages).toEqual([expect.stringMatching(/still distributed to KMS provider aws/)]);
    expect((await raw("GET", "/keymgmt/key/shared")).status).toBe(200);
  });

  it("replaces a type change by deleting first when deletion is allowed; the new key survives", async () => {
    const old = await created(KEY, { name: "retype", type: "ecdsa-p256", deletionAllowed: true });
    const { res, deleteBeforeReplace, replaces } = await replaced(KEY, old, { name: "retype", type: "ecdsa-p384", deletionAllowed: true });
    expect({ deleteBeforeReplace, replaces }).toEqual({ deleteBeforeReplace: true, replaces: ["type"] });
    expect(res.id).toBe(old.id);
    expect((await raw("GET", "/keymgmt/key/retype")).body.data).toMatchObject({ type: "ecdsa-p384", latest_version: 1 });
  });

  it("fails a type change of an undeletable key with the fix, and leaves the key alone", async () => {
    const old = await created(KEY, { name: "stuck", type: "ecdsa-p256" });
    const err = await rejectionOf(replaced(KEY, old, { name: "stuck", type: "ecdsa-p384", deletionAllowed: true }));
    expect(err.message).toMatch(/deletion_allowed false: set deletionAllowed: true on the Key and deploy it alone, with the key's other inputs as they were: pulumi up --target .*; then run the destroy, or the change that replaces the key, again/);
    expect((await raw("GET", "/keymgmt/key/stuck")).body.data.type).toBe("ecdsa-p256");
  });

  it("creates a renamed key before deleting the old one", async () => {
    const old = await created(KEY, { name: "old-name", type: "ecdsa-p256", deletionAllowed: true });
    const { res, deleteBeforeReplace } = await replaced(KEY, old, { name: "new-name", type: "ecdsa-p256", deletionAllowed: true });
    expect(deleteBeforeReplace).toBe(false);
    expect(res.id).toBe("keymgmt/key/new-name");
    expect((await raw("GET", "/keymgmt/key/new-name")).status).toBe(200);
    expect((await raw("GET", "/keymgmt/key/old-name")).status).toBe(404);
  });

  it("drops a key deleted out of band on refresh; delete of a gone key succeeds", async () => {
    const { id, outs } = await created(KEY, { name: "gone", type: "ecdsa-p256", deletionAllowed: true });
    await raw("DELETE", "/keymgmt/key/gone");
    expect(await call(KEY, "read", [id, outs])).toEqual({ id: "", props: {} });
    await expect(call(KEY, "delete", [id, outs])).resolves.toBeUndefined();
  });

  it("rejects bad inputs in check, naming the property, without a request", async () => {
    await control(emu, "DELETE", "/requests");
    const r = (await call(KEY, "check", [{}, { name: "k", type: "rsa-1024", minEnabledVersion: -2 }])) as { failures: { property: string }[] };
    expect(r.failures.map((f) => f.property).sort()).toEqual(["minEnabledVersion", "type"]);
    expect(await requests(emu)).toEqual([]);
  });

  it("refuses to take over an existing key unless adopt is set, and then only with the same type", async () => {
    await raw("POST", "/keymgmt/key/theirs", { type: "ecdsa-p256" });
    const err = await rejectionOf(created(KEY, { name: "theirs", type: "ecdsa-p256" }));
    expect(err.message).toMatch(/keymgmt\/key\/theirs already exists\. If a pulumi up that was stopped .*npx pulumi-svc-recover.*--cleared.*If you renamed this resource in your program, give it aliases: .*deleteBeforeReplace: false.*to manage the existing .* set adopt: true/);
    const wrong = await rejectionOf(created(KEY, { name: "theirs", type: "rsa-2048", adopt: true }));
    expect(wrong.message).toMatch(/exists with type ecdsa-p256, not rsa-2048/);
    const { outs } = await created(KEY, { name: "theirs", type: "ecdsa-p256", deletionAllowed: true, adopt: true });
    expect(outs).toMatchObject({ deletionAllowed: true, adopt: true });
  });

  it("surfaces the server's refusal of a minEnabledVersion above the latest version", async () => {
    const err = await rejectionOf(created(KEY, { name: "early", type: "ecdsa-p256", minEnabledVersion: 3 }));
    expect(err.message).toMatch(/min_enabled_version/);
    // The key was created by the first write: a partial failure keeps it in state.
    expect(err.id).toBe("keymgmt/key/early");
  });

  it("honours another mount", async () => {
    await control(emu, "POST", "/mounts", { path: "keymgmt-eu", type: "keymgmt" });
    const { id } = await created(KEY, { name: "eu", mount: "keymgmt-eu", type: "ecdsa-p256" });
    expect(id).toBe("keymgmt-eu/key/eu");
    expect((await raw("GET", "/keymgmt-eu/key/eu")).status).toBe(200);
    expect((await raw("GET", "/keymgmt/key/eu")).status).toBe(404);
  });
});

describe("keymgmt KmsProvider", () => {
  it("creates with write-only credentials, reads, updates credentials and deletes", async () => {
    const { id, outs } = await aProvider("aws");
    expect(id).toBe("keymgmt/kms/aws");
    expect(outs).toEqual({ name: "aws", mount: "keymgmt", provider: "awskms", keyCollection: "eu-west-1", credentials: { access_key: AWS_KEY, secret_key: AWS_SECRET }, serverUrl: emu.secretsUrl, credentialsVersion: 1 });
    expect(JSON.stringify((await raw("GET", "/keymgmt/kms/aws")).body)).not.toContain(AWS_SECRET);

    const read = (await call(KMS, "read", [id, outs])) as { props: Props };
    expect(read.props.credentials).toEqual(outs.credentials);
    const same = await checked(KMS, { name: "aws", provider: "awskms", keyCollection: "eu-west-1", credentials: { access_key: AWS_KEY, secret_key: AWS_SECRET } }, read.props);
    expect(await call(KMS, "diff", [id, read.props, same])).toMatchObject({ changes: false });

    await control(emu, "DELETE", "/requests");
    const news = { ...same, credentials: { access_key: AWS_KEY, secret_key: "rotated-secret-0001" } };
    expect(await call(KMS, "diff", [id, read.props, news])).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    const { outs: after } = (await call(KMS, "update", [id, read.props, news])) as { outs: Props };
    expect(after.credentials).toEqual(news.credentials);
    expect(await writes()).toEqual(["POST /v1/keymgmt/kms/aws"]);

    await call(KMS, "delete", [id, after]);
    expect((await raw("GET", "/keymgmt/kms/aws")).status).toBe(404);
  });

  it("replaces a collection change by deleting first; the new provider survives", async () => {
    const old = await aProvider("aws");
    const { res, deleteBeforeReplace } = await replaced(KMS, old, { name: "aws", provider: "awskms", keyCollection: "us-east-1", credentials: old.outs.credentials as Props });
    expect(deleteBeforeReplace).toBe(true);
    expect(res.outs.keyCollection).toBe("us-east-1");
    expect((await raw("GET", "/keymgmt/kms/aws")).body.data).toEqual({ provider: "awskms", key_collection: "us-east-1" });
  });

  it("refuses to delete a provider that holds keys, listing them", async () => {
    const p = await aProvider("aws");
    for (const name of ["k1", "k2"]) {
      await created(KEY, { name, type: "ecdsa-p256" });
      await created(DIST, { keyName: name, kmsName: "aws", purpose: ["sign"] });
    }
    await control(emu, "DELETE", "/requests");
    const err = await rejectionOf(call(KMS, "delete", [p.id, p.outs]));
    expect(err.code).toBe("conflict");
    expect(err.message).toBe("DELETE /keymgmt/kms/aws: conflict: KMS provider aws still holds keys k1, k2: remove their KeyDistribution resources (the distributions must be deleted before the provider)");
    expect(await writes()).toEqual([]);
  });

  it("checks credential names before any request, and drops a provider deleted out of band", async () => {
    await control(emu, "DELETE", "/requests");
    const r = (await call(KMS, "check", [{}, { name: "a", provider: "awskms", keyCollection: "x", credentials: { client_id: "c" } }])) as { failures: { property: string }[] };
    expect(r.failures.map((f) => f.property)).toEqual(["credentials.client_id"]);
    expect(await requests(emu)).toEqual([]);

    const { id, outs } = await aProvider("oob");
    await raw("DELETE", "/keymgmt/kms/oob");
    expect(await call(KMS, "read", [id, outs])).toEqual({ id: "", props: {} });
    await expect(call(KMS, "delete", [id, outs])).resolves.toBeUndefined();
  });

  it("never prints credentials in errors", async () => {
    const err = await rejectionOf(created(KMS, { name: "bad", provider: "awskms", keyCollection: "x", credentials: { access_key: AWS_KEY, secret_key: AWS_SECRET } })
      .then(() => created(KMS, { name: "bad", provider: "awskms", keyCollection: "x", credentials: { access_key: AWS_KEY, secret_key: AWS_SECRET } })));
    expect(err.code).toBe("conflict");
    expect(err.message).not.toContain(AWS_SECRET);
  });
});

describe("keymgmt KeyDistribution", () => {
  async function setup(): Promise<void> {
    await aProvider("aws");
    await created(KMS, { name: "azure", provider: "azurekeyvault", keyCollection: "vault-1" });
    await created(KEY, { name: "k", type: "rsa-2048", deletionAllowed: true });
  }

  it("distributes, reads the provider-side name and versions, and removes it from the provider only", async () => {
    await setup();
    const { id, outs } = await created(DIST, { keyName: "k", kmsName: "aws", purpose: ["verify", "sign"] });
    expect(id).toBe("keymgmt/kms/aws/key/k");
    expect(outs).toMatchObject({ keyName: "k", kmsName: "aws", mount: "keymgmt", purpose: ["sign", "verify"], protection: "hsm" });
    expect(outs.providerKeyName).toMatch(/^k-\d{9,}$/);
    expect(Object.keys(outs.versions as object)).toEqual(["1"]);
    // The service joins purposes with commas; read back as the same set, so no diff.
    expect((await raw("GET", "/keymgmt/kms/aws/key/k")).body.data.purpose).toMatch(/,/);
    const inputs = await checked(DIST, { keyName: "k", kmsName: "aws", purpose: ["sign", "verify", "sign"] }, outs);
    expect(await call(DIST, "diff", [id, outs, inputs])).toMatchObject({ changes: false });
    expect(await call(DIST, "read", [id, outs])).toEqual({ id, props: outs, inputs: expect.any(Object) });

    await call(DIST, "delete", [id, outs]);
    expect((await raw("GET", "/keymgmt/kms/aws/key/k")).status).toBe(404);
    expect((await raw("GET", "/keymgmt/key/k")).status).toBe(200);
  });

  it("refuses a second provider for the same key with a clear error, before the POST", async () => {
    await setup();
    await created(DIST, { keyName: "k", kmsName: "aws", purpose: ["sign"] });
    await control(emu, "DELETE", "/requests");
    const err = await rejectionOf(created(DIST, { keyName: "k", kmsName: "azure", purpose: ["sign"] }));
    expect(err.code).toBe("conflict");
    expect(err.message).toBe("POST /keymgmt/kms/azure/key/k: conflict: key k is already distributed to KMS provider aws; a key can be distributed to one KMS provider at a time: remove that distribution first");
    expect(await writes()).toEqual([]);
  });

  it("replaces a purpose change by deleting first; the new distribution survives", async () => {
    await setup();
    const old = await created(DIST, { keyName: "k", kmsName: "aws", purpose: ["sign"] });
    const { res, deleteBeforeReplace } = await replaced(DIST, old, { keyName: "k", kmsName: "aws", purpose: ["encrypt", "decrypt"], protection: "software" });
    expect(deleteBeforeReplace).toBe(true);
    expect(res.outs).toMatchObject({ purpose: ["decrypt", "encrypt"], protection: "software" });
    expect((await raw("GET", "/keymgmt/kms/aws/key/k")).body.data).toMatchObject({ protection: "software" });
  });

  it("moves a key to another provider by deleting the old distribution first", async () => {
    await setup();
    const old = await created(DIST, { keyName: "k", kmsName: "aws", purpose: ["sign"] });
    const { res, deleteBeforeReplace } = await replaced(DIST, old, { keyName: "k", kmsName: "azure", purpose: ["sign"] });
    expect(deleteBeforeReplace).toBe(true);
    expect(res.id).toBe("keymgmt/kms/azure/key/k");
    expect((await raw("LIST", "/keymgmt/key/k/kms")).body.data.keys).toEqual(["azure"]);
  });

  it("drops a distribution removed out of band on refresh, and rejects bad purposes without a request", async () => {
    await setup();
    const { id, outs } = await created(DIST, { keyName: "k", kmsName: "aws", purpose: ["sign"] });
    await raw("DELETE", "/keymgmt/kms/aws/key/k");
    expect(await call(DIST, "read", [id, outs])).toEqual({ id: "", props: {} });
    await expect(call(DIST, "delete", [id, outs])).resolves.toBeUndefined();

    await control(emu, "DELETE", "/requests");
    const r = (await call(DIST, "check", [{}, { keyName: "k", kmsName: "aws", purpose: [] }])) as { failures: { property: string }[] };
    expect(r.failures.map((f) => f.property)).toEqual(["purpose"]);
    expect(await requests(emu)).toEqual([]);
  });

  it("surfaces the server's refusal of a purpose the key type cannot do", async () => {
    await aProvider("aws");
    await created(KEY, { name: "ec", type: "ecdsa-p256" });
    const err = await rejectionOf(created(DIST, { keyName: "ec", kmsName: "aws", purpose: ["encrypt"] }));
    expect(err.code).toBe("invalid_input");
    expect(err.message).toMatch(/^POST \/keymgmt\/kms\/aws\/key\/ec: 400 Bad Request: .*encrypt/);
  });
});

describe("keymgmt functions", () => {
  const mocks: pulumi.runtime.Mocks = { newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs };

  it("list (404 is an empty list), get, and rotate with the Promise forms", async () => {
    expect(await keymgmt.listKeys()).toEqual({ keys: [] });
    expect(await keymgmt.listKmsProviders()).toEqual({ keys: [] });
    await aProvider("aws");
    await created(KEY, { name: "b", type: "ecdsa-p256" });
    await created(KEY, { name: "a", type: "ecdsa-p256" });
    expect(await keymgmt.listKeyDistributions({ kmsName: "aws" })).toEqual({ keys: [] });
    await created(DIST, { keyName: "a", kmsName: "aws", purpose: ["sign"] });
    expect((await keymgmt.listKeys()).keys.sort()).toEqual(["a", "b"]);
    expect(await keymgmt.listKmsProviders()).toEqual({ keys: ["aws"] });
    expect(await keymgmt.listKeyDistributions({ kmsName: "aws" })).toEqual({ keys: ["a"] });
    expect(await keymgmt.getKmsProvider({ name: "aws" })).toEqual({ name: "aws", mount: "keymgmt", provider: "awskms", keyCollection: "eu-west-1" });
    expect(await keymgmt.getKeyDistribution({ kmsName: "aws", keyName: "a" })).toMatchObject({ purpose: ["sign"], providerKeyName: expect.stringMatching(/^a-\d+$/) });
    expect(await keymgmt.getKey({ name: "a" })).toMatchObject({ name: "a", type: "ecdsa-p256", latestVersion: 1 });

    await pulumi.runtime.setMocks(mocks, "proj", "stack", false);
    const rotated = await keymgmt.rotateKey({ name: "a" });
    expect(rotated.latestVersion).toBe(2);
    expect(Object.keys(rotated.keys).sort()).toEqual(["1", "2"]);
  });

  it("rotateKey makes no request during preview; the read functions still run", async () => {
    await created(KEY, { name: "p", type: "ecdsa-p256" });
    await pulumi.runtime.setMocks(mocks, "proj", "stack", true);
    await control(emu, "DELETE", "/requests");
    const out = keymgmt.rotateKeyOutput({ name: pulumi.output("p") });
    expect(await (out as unknown as { isKnown: Promise<boolean> }).isKnown).toBe(false);
    expect(await keymgmt.rotateKey({ name: "p" })).toBeUndefined();
    expect(await writes()).toEqual([]);

    const listed = await new Promise((resolve) => keymgmt.listKeysOutput().apply(resolve));
    expect(listed).toEqual({ keys: ["p"] });
    const got = await new Promise<keymgmt.KeyInfo>((resolve) => keymgmt.getKeyOutput({ name: pulumi.output("p") }).apply(resolve));
    expect(got.latestVersion).toBe(1);
  });

  it("rotates with the Output form during an update, with Input arguments", async () => {
    await created(KEY, { name: "o", type: "ecdsa-p256" });
    await pulumi.runtime.setMocks(mocks, "proj", "stack", false);
    const out = keymgmt.rotateKeyOutput({ name: pulumi.output(Promise.resolve("o")) });
    const value = await new Promise<keymgmt.KeyInfo>((resolve) => out.apply(resolve));
    expect(value.latestVersion).toBe(2);
  });

  it("validates function arguments before any request, naming the property", async () => {
    await control(emu, "DELETE", "/requests");
    await expect(keymgmt.getKey({ name: "a/b" })).rejects.toThrow(/name: must not contain \//);
    await expect(keymgmt.listKeyDistributions({ kmsName: "" })).rejects.toThrow(/kmsName: must not be empty/);
    expect(await requests(emu)).toEqual([]);
  });
});
