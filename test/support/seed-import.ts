// Objects made outside Pulumi, by raw requests (no provider code), of every kind the import can
// take over without a database or a directory server: what pulumi-svc-import must find, write and
// take over (test/program/import.test.ts and, under the real CLI, test/package/install.test.ts).
import type { Emulator } from "../../src/emulator";
import { control, runApi, secretsApi } from "./emulator";

/** Values the servers never return: the generated files must not hold them, and the user gives them. */
export const WRITE_ONLY = {
  hookToken: "seeded-hook-token-7c1d2e",
  kmsSecretKey: "seeded-kms-secret-key-4b9a",
  pluginEnv: "PLUGIN_PASSWORD=seeded-plugin-env-8d3c",
  duoSecret: "seeded-duo-secret-key-1a5b",
  duoIkey: "SEEDEDDUOINTEGRATION1",
};

export interface Seeded {
  hookId: string;
  aliasId: string;
  methodId: string;
  /** The registry's management token, which the emulator's registry makes (write-only like the rest). */
  registryToken: string;
}

async function ok(r: Promise<{ status: number; body: any }>, what: string): Promise<any> {
  const res = await r;
  if (res.status >= 300) throw new Error(`seeding ${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** One or more objects of each importable kind, the references between them set. */
export async function seedEveryKind(emu: Emulator): Promise<Seeded> {
  const s = (method: string, path: string, body?: unknown) => ok(secretsApi(emu, method, path, body), `${method} ${path}`);
  await s("POST", "/transform/alphabet/hexits", { alphabet: "0123456789abcdef" });
  await s("POST", "/transform/template/account", { type: "regex", pattern: "(\\d{4})-(\\d{4})", alphabet: "hexits" });
  await s("POST", "/transform/template/ssn", { type: "regex", pattern: "(\\d{3})-(\\d{2})-(\\d{4})", alphabet: "builtin/numeric" });
  await s("POST", "/transform/transformations/fpe/account-fpe", { template: "account", tweak_source: "internal", allowed_roles: ["payments"] });
  await s("POST", "/transform/transformations/masking/ssn-mask", { template: "ssn", masking_character: "#", allowed_roles: ["payments"] });
  await s("POST", "/transform/transformations/tokenization/card-token", { allowed_roles: ["payments"], max_ttl: "24h" });
  await s("POST", "/transform/role/payments", { transformations: ["account-fpe", "ssn-mask", "card-token"] });
  await s("POST", "/keymgmt/key/signing", { type: "ecdsa-p256", deletion_allowed: true });
  await s("POST", "/keymgmt/key/signing/rotate");
  await s("POST", "/keymgmt/kms/aws-east", { provider: "awskms", key_collection: "us-east-1", credentials: { access_key: "AKIASEEDED", secret_key: WRITE_ONLY.kmsSecretKey } });
  await s("POST", "/keymgmt/kms/aws-east/key/signing", { purpose: ["sign", "verify"], protection: "hsm" });
  await s("PUT", "/sys/plugins/catalog/database/acme-db", { sha256: "ab".repeat(32), command: "acme-db", args: ["--tls"], env: [WRITE_ONLY.pluginEnv] });
  const registryToken = (await control<{ token: string }>(emu, "POST", "/registry/tokens", { type: "management" })).token;
  await s("POST", "/registry/config/access", { address: "127.0.0.1:8500", token: registryToken });
  await s("POST", "/registry/roles/deployer", { policies: ["deploy", "read-only"], ttl: "1h" });
  const alias = await s("POST", "/identity/entity-alias", { name: "carol", canonical_id: "ent-alice0000000001", mount_accessor: "auth_userpass_1234abcd", custom_metadata: { team: "payments" } });
  const method = await s("POST", "/identity/mfa/method/dualfactor", { secret_key: WRITE_ONLY.duoSecret, integration_key: WRITE_ONLY.duoIkey, api_hostname: "api-1234abcd.example.com", push_info: "from=import" });
  const nc = await ok(runApi(emu, "POST", `/workspaces/${emu.workspaceId}/notification-configurations`, {
    data: { type: "notification-configurations", attributes: { name: "ci-hook", "destination-type": "generic", enabled: false, url: "https://hooks.example/ci", token: WRITE_ONLY.hookToken, triggers: ["run:completed", "run:errored"] } },
  }), "a notification configuration");
  return { hookId: nc.data.id, aliasId: alias.data.id, methodId: method.data.id, registryToken };
}
