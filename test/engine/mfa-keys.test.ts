// A dual-factor method's secret and integration keys, which the service returns on every read
// (seed 001: "Secret and integration keys are returned in the read response"): secret wherever the
// package holds them. Through one method's life: the stack's state and outputs after up, after a
// refresh that reads keys changed on the server, after a create whose read back failed (the keys
// among the properties the engine keeps), the failure's line, the function that reads the method,
// what pulumi-svc-import writes (program, config script, seed, its lines), and the emulator's
// state file.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, describe, expect, it } from "vitest";
import type * as emulatorTypes from "../../src/emulator";
import type * as importTypes from "../../src/import/cli";
import { fromDist } from "../support/dist";
import { openStacks, svc, testStack, type testingTypes } from "../support/testing";

const { startEmulator, readStateFile } = fromDist<typeof emulatorTypes>("src/emulator/index.js");
const { main } = fromDist<typeof importTypes>("src/import/cli.js");

const open = openStacks();
const folder = fs.mkdtempSync(path.join(os.tmpdir(), "mfa-keys-"));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

const KEYS = { secretKey: "mfa-secret-key-2f8c1d", integrationKey: "MFAINTEGRATIONKEY7A41" };
const CHANGED = { secret_key: "mfa-secret-key-changed-9e0b", integration_key: "MFAINTEGRATIONCHANGED3" };
const EVERY_KEY = [...Object.values(KEYS), ...Object.values(CHANGED)];

/** The method with keys from secret config, its keys and what the read function returns as outputs. */
const program = () => {
  const config = new pulumi.Config();
  const method = new svc.secrets.mfa.DualFactorMethod("duo", {
    apiHostname: "api-keys.example.com", secretKey: config.requireSecret("secretKey"), integrationKey: config.requireSecret("integrationKey"),
  });
  const read = svc.secrets.mfa.getDualFactorMethodOutput({ id: method.id });
  return { id: method.id, secretKey: method.secretKey, integrationKey: method.integrationKey, read };
};

/** Where a key must not be in plain text: none of `texts` holds any of the keys. */
function expectNoKey(where: string, ...texts: string[]): void {
  for (const text of texts) for (const key of EVERY_KEY) expect(text, `${where} holds ${key}`).not.toContain(key);
}

describe("a dual-factor method's keys", { timeout: 180_000 }, () => {
  it("are secret in state, outputs, refresh, a partial failure, the import's files and the emulator's state file", async () => {
    const statePath = path.join(folder, "emulator-state.json");
    const emulator = await startEmulator({ statePath, flushMs: 10 });
    const stack = await testStack({
      program, emulator,
      config: { secretKey: { secret: KEYS.secretKey }, integrationKey: { secret: KEYS.integrationKey }, "svc:maxRetries": "0" },
    });
    open.push(stack);
    const state = () => fs.readFileSync(path.join(stack.dir, "stack.json"), "utf8");

    const up = await stack.up();
    expect(up.changes).toEqual({ create: 1 });
    // The outputs hold the keys, as secrets; the function's result is secret as a whole.
    expect(up.outputs.secretKey).toEqual({ value: KEYS.secretKey, secret: true });
    expect(up.outputs.integrationKey).toEqual({ value: KEYS.integrationKey, secret: true });
    expect(up.outputs.read).toMatchObject({ value: { ...KEYS, apiHostname: "api-keys.example.com" }, secret: true });
    const id = String(up.outputs.id!.value);
    expect((await stack.request("secrets", "GET", `/identity/mfa/method/dualfactor/${id}`)).body.data).toMatchObject({ secret_key: KEYS.secretKey });
    expectNoKey("the state after up", state());

    // Keys changed on the server: refresh reads them, and keeps them secret.
    const changed = await stack.request("secrets", "POST", `/identity/mfa/method/dualfactor/${id}`, { ...CHANGED, api_hostname: "api-keys.example.com" });
    expect(changed.status).toBe(200);
    const refresh = await stack.refresh();
    expect(refresh.steps.find((s) => s.name === "duo")?.changed).toEqual(expect.arrayContaining(["integrationKey", "secretKey"]));
    expectNoKey("the state after refresh", state(), JSON.stringify(refresh));
    // The next up writes the program's keys back.
    expect((await stack.up()).changes).toMatchObject({ update: 1 });

    // A create whose read back fails: the engine keeps the new method with the properties the
    // failure carries, the keys among them; neither they nor the line of the failure show a key.
    stack.setProgram(() => {
      const config = new pulumi.Config();
      new svc.secrets.mfa.DualFactorMethod("second", {
        apiHostname: "api-second.example.com", secretKey: config.requireSecret("secretKey"), integrationKey: config.requireSecret("integrationKey"),
      });
    });
    await stack.destroy();
    await stack.control("POST", "/faults", { method: "GET", path: "/v1/identity/mfa/method/dualfactor/*", status: 500, count: 1 });
    const failed = (await stack.up().catch((e: Error) => e)) as testingTypes.StackError;
    await stack.control("DELETE", "/faults");
    expect(failed.message).toMatch(/^create second: GET \/identity\/mfa\/method\/dualfactor\/\S+: 500 .*was created and is kept in state/);
    expectNoKey("the partial failure", failed.message, JSON.stringify(failed.result), state());
    expect(state()).toContain("api-second.example.com");

    // What the import writes from a server whose reads return the keys.
    const out = path.join(folder, "imported");
    const lines: string[] = [];
    const imported = await main(["--out", out, "--seed", path.join(out, "seed.json")], (l) => lines.push(l),
      { SVC_SECRETS_URL: emulator.secretsUrl, SVC_SECRETS_TOKEN: emulator.tokens.secretsRoot });
    expect(imported.out).toContain("1 object to take over");
    const written = ["index.ts", "pulumi-config.sh", "seed.json"].map((f) => fs.readFileSync(path.join(out, f), "utf8"));
    expect(written[0]).toContain('secretKey: config.requireSecret("dualFactorMethodSecretKey")');
    expect(written[1]).toContain("pulumi config set --secret dualFactorMethodSecretKey '<VALUE>'");
    // The script says why a value the server returns is not in the files.
    expect(written[1]).toMatch(/^# secretKey of secrets\.mfa\.DualFactorMethod dual-factor-method \(\S+\); a secret the server returns, kept out of the files$/m);
    expect(written[1]).not.toContain("None of these values can\n# be read back");
    expectNoKey("the import's files and lines", ...written, imported.out, lines.join("\n"));

    // The emulator's state file holds them sealed.
    await stack.close();
    await emulator.close();
    expect(JSON.stringify(readStateFile(statePath))).toContain(KEYS.secretKey);
    expectNoKey("the emulator's state file", fs.readFileSync(statePath, "utf8"));
  });
});
