import { describe, expect, it } from "vitest";
import { PartialFailureError } from "../../src/engine/host";
import { control, secretsApi } from "../support/emulator";
import { hostChecked, serializedProvider, urn, useHosts } from "../support/protocol";

const KEY = "secrets:KeymgmtKey";
const KMS = "secrets:KeymgmtKmsProvider";
const DIST = "secrets:KeymgmtKeyDistribution";
const AWS_SECRET = "protocol-aws-secret-1f2e3d4c";

const { emu, host } = useHosts({ host: (emu) => ({ "svc:secretsUrl": emu.secretsUrl, "svc:secretsToken": emu.tokens.secretsUser }) });

const get = (path: string) => secretsApi(emu, "GET", path);

describe("key management through the real dynamic-provider host", () => {
  it("serializes each kind to a small text without tokens", async () => {
    for (const kind of [KEY, KMS, DIST]) {
      const text = await serializedProvider(kind);
      expect(text).toContain(`"${kind}"`);
      expect(text).toContain('require("pulumi-svc/runtime")');
      expect(Buffer.byteLength(text)).toBeLessThan(6000);
      for (const t of Object.values(emu.tokens)) expect(text).not.toContain(t);
    }
  });

  it("rejects bad inputs in check, naming the property, before any request", async () => {
    await control(emu, "DELETE", "/requests");
    const r = await host.check(urn(DIST, "bad"), {}, { __provider: await serializedProvider(DIST), keyName: "k", kmsName: "aws", purpose: ["sign", "mint"], protection: "cloud" });
    // A failure inside a list goes to the engine as the resource's, its path first (src/core/validate.ts forEngine).
    expect(r.failures.map((f) => f.property).sort()).toEqual(["", "protection"]);
    expect(r.failures.find((f) => f.property === "")?.reason).toMatch(/^purpose\[1\]: /);
    expect((await control<{ requests: unknown[] }>(emu, "GET", "/requests")).requests).toEqual([]);
  });

  it("runs a provider, a key and a distribution through check, create, read, diff, update and delete", async () => {
    const kmsIn = await hostChecked(host, KMS, "aws", { name: "aws", provider: "awskms", keyCollection: "eu-west-1", credentials: { access_key: "AKIA1", secret_key: AWS_SECRET } });
    const kms = await host.create(urn(KMS, "aws"), kmsIn);
    expect(kms.outs.credentials).toEqual({ access_key: "AKIA1", secret_key: AWS_SECRET }); // kept from the input; the engine marks it secret
    const kmsRead = await host.read(urn(KMS, "aws"), kms.id, kms.outs);
    expect(kmsRead.props.credentials).toEqual(kms.outs.credentials);
    expect(await host.diff(urn(KMS, "aws"), kms.id, kmsRead.props, kmsIn)).toMatchObject({ changes: false });

    const keyIn = await hostChecked(host, KEY, "k", { name: "k", type: "ecdsa-p256", rotationTrigger: "a" });
    const key = await host.create(urn(KEY, "k"), keyIn);
    expect(key.outs).toMatchObject({ latestVersion: 1, rotationTrigger: "a", __provider: keyIn.__provider });
    expect(await host.diff(urn(KEY, "k"), key.id, key.outs, { ...keyIn, __provider: `${keyIn.__provider}\n// other version` })).toMatchObject({ changes: false });
    expect(await host.diff(urn(KEY, "k"), key.id, key.outs, { ...keyIn, type: "ecdsa-p384" })).toEqual({ changes: true, replaces: ["type"], deleteBeforeReplace: true });

    const distIn = await hostChecked(host, DIST, "d", { keyName: "k", kmsName: "aws", purpose: ["verify", "sign"] });
    const dist = await host.create(urn(DIST, "d"), distIn);
    expect(dist.outs).toMatchObject({ purpose: ["sign", "verify"], protection: "hsm", providerKeyName: expect.stringMatching(/^k-\d+$/) });
    expect(await host.diff(urn(DIST, "d"), dist.id, dist.outs, { ...distIn, purpose: ["sign", "verify"] })).toMatchObject({ changes: false });

    // Deletion guards surface through the host with their fix.
    const keyErr = await host.delete(urn(KEY, "k"), key.id, key.outs).catch((e) => e);
    expect(String(keyErr.message)).toMatch(/deletion_allowed false: set deletionAllowed: true/);
    expect(String(keyErr.message)).toMatch(/still distributed to KMS provider aws/);
    const kmsErr = await host.delete(urn(KMS, "aws"), kms.id, kms.outs).catch((e) => e);
    expect(String(kmsErr.message)).toMatch(/KMS provider aws still holds keys k: remove their KeyDistribution/);

    const rotated = await host.update(urn(KEY, "k"), key.id, key.outs, { ...keyIn, rotationTrigger: "b", deletionAllowed: true });
    expect(rotated.outs).toMatchObject({ latestVersion: 2, rotationTrigger: "b", deletionAllowed: true });

    await host.delete(urn(DIST, "d"), dist.id, dist.outs);
    await host.delete(urn(KEY, "k"), key.id, rotated.outs);
    await host.delete(urn(KMS, "aws"), kms.id, kms.outs);
    expect((await get("/keymgmt/key/k")).status).toBe(404);
    expect((await get("/keymgmt/kms/aws")).status).toBe(404);
    expect(await host.read(urn(KEY, "k"), key.id, rotated.outs)).toMatchObject({ id: "" });
    for (const t of [AWS_SECRET, ...Object.values(emu.tokens)]) expect(host.stderr()).not.toContain(t);
  });

  it("reports an update that rotated and then failed as a partial failure that records the rotation", async () => {
    const keyIn = await hostChecked(host, KEY, "half", { name: "half", type: "ecdsa-p256", rotationTrigger: 1 });
    const key = await host.create(urn(KEY, "half"), keyIn);
    const err = await host.update(urn(KEY, "half"), key.id, key.outs, { ...keyIn, rotationTrigger: 2, minEnabledVersion: 9 }).catch((e) => e);
    expect(err).toBeInstanceOf(PartialFailureError);
    expect(err.id).toBe("keymgmt/key/half");
    // The rotation is recorded, and __provider is kept so later operations can load the provider.
    expect(err.properties).toMatchObject({ rotationTrigger: 2, minEnabledVersion: 0, __provider: keyIn.__provider });
    expect((await get("/keymgmt/key/half")).body.data.latest_version).toBe(2);
  });
});
