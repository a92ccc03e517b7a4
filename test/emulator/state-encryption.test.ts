import { randomBytes } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { readStateFile, STATE_KEY_ENV, startEmulator } from "../../src/emulator";
import { bearer, svcToken, useStateFile } from "./helpers";
import { call } from "../support/http";

const state = useStateFile("emu-seal-");
const NC_TOKEN = "nc-signing-secret-4f1d9c";
const KMS_SECRET = "kms-secret-key-8e2a71";

async function writeSecrets(emu: Awaited<ReturnType<typeof startEmulator>>) {
  const nc = await call("POST", `${emu.runUrl}/workspaces/${emu.workspaceId}/notification-configurations`, {
    headers: bearer(emu.tokens.runAdmin),
    body: { data: { type: "notification-configurations", attributes: { name: "s", "destination-type": "generic", url: "https://h.example.com/", token: NC_TOKEN } } },
  });
  expect(nc.status).toBe(201);
  const kms = await call("POST", `${emu.secretsUrl}/keymgmt/kms/p`, {
    headers: svcToken(emu.tokens.secretsRoot),
    body: { provider: "awskms", key_collection: "c", credentials: { access_key: "AK", secret_key: KMS_SECRET } },
  });
  expect(kms.status).toBe(204);
}

describe("state file sealed at rest", () => {
  test("no token or secret appears in the file; key file 0600 beside it; both files 0600", async () => {
    const emu = await state.start();
    await writeSecrets(emu);
    await emu.close();
    const text = readFileSync(state.path, "utf8");
    for (const secret of [NC_TOKEN, KMS_SECRET, ...Object.values(emu.tokens)]) expect(text).not.toContain(secret);
    const file = JSON.parse(text);
    expect(file).toMatchObject({ version: 2, cipher: "aes-256-gcm" });
    expect(statSync(state.path).mode & 0o777).toBe(0o600);
    expect(statSync(`${state.path}.key`).mode & 0o777).toBe(0o600);
    const opened = readStateFile(state.path) as { tokens: Record<string, string> };
    expect(opened.tokens).toEqual(emu.tokens);

    const again = await state.start();
    expect(again.tokens).toEqual(emu.tokens);
    expect((await call("GET", `${again.secretsUrl}/keymgmt/kms/p`, { headers: svcToken(again.tokens.secretsRoot) })).status).toBe(200);
  });

  test("a key from SVC_EMULATOR_STATE_KEY: no key file, and another key is refused with a clear message", async () => {
    const key = randomBytes(32).toString("hex");
    process.env[STATE_KEY_ENV] = key;
    try {
      const emu = await state.start();
      await writeSecrets(emu);
      await emu.close();
      expect(() => statSync(`${state.path}.key`)).toThrow();
      expect((await state.start()).tokens).toEqual(emu.tokens);
      process.env[STATE_KEY_ENV] = randomBytes(32).toString("base64");
      await expect(startEmulator({ statePath: state.path })).rejects.toThrow(/sealed with another key/);
      process.env[STATE_KEY_ENV] = "short";
      await expect(startEmulator({ statePath: state.path })).rejects.toThrow(new RegExp(`${STATE_KEY_ENV} must hold a 256-bit key`));
    } finally {
      delete process.env[STATE_KEY_ENV];
    }
  });

  test("an altered file is refused, not half loaded", async () => {
    const emu = await state.start();
    await emu.close();
    const file = JSON.parse(readFileSync(state.path, "utf8"));
    const payload = Buffer.from(file.payload, "base64");
    payload[0] ^= 1;
    writeFileSync(state.path, JSON.stringify({ ...file, payload: payload.toString("base64") }));
    await expect(startEmulator({ statePath: state.path })).rejects.toThrow(/could not be decrypted/);
  });

  test("an old plaintext file (version 1) loads and is sealed on start", async () => {
    const emu = await state.start();
    await writeSecrets(emu);
    await emu.close();
    const plain = readStateFile(state.path);
    writeFileSync(state.path, JSON.stringify(plain, null, 2), { mode: 0o600 });
    expect(readFileSync(state.path, "utf8")).toContain(KMS_SECRET);

    const again = await state.start();
    expect(again.tokens).toEqual(emu.tokens);
    expect(readFileSync(state.path, "utf8")).not.toContain(KMS_SECRET);
    const shown = await call("GET", `${again.secretsUrl}/keymgmt/kms/p`, { headers: svcToken(again.tokens.secretsRoot) });
    expect(shown.status).toBe(200);
  });
});
