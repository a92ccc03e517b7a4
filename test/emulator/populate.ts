import { expect } from "vitest";
import type { Emulator } from "../../src/emulator";
import { bearer, svcToken } from "./helpers";
import { controlResponse } from "../support/emulator";
import { call, type Response } from "../support/http";

/** Objects of every engine and both services, for the snapshot and web page tests. */

export const SECRETS = { nc: "nc-signing-secret-5b7e", kms: "kms-client-secret-9d1c", bind: "bind-pass-snapshot-3a", mfa: "mfa-secret-key-77f0", plaintext: "123-45-6789" };

export async function ok(res: Promise<Response>, status?: number): Promise<Response> {
  const r = await res;
  if (status === undefined) expect(r.status, r.text).toBeLessThan(300);
  else expect(r.status, r.text).toBe(status);
  return r;
}

/** Calls as each service's own client would, on cluster `i` of `emu`. */
export function clients(emu: Emulator, i = 0) {
  const c = emu.clusters[i];
  const sec = (method: string, path: string, body?: unknown) => call(method, `${c.secretsUrl}/${path}`, { headers: svcToken(c.tokens.secretsRoot), body });
  const run = (method: string, path: string, body?: unknown) => call(method, `${emu.runUrl}${path}`, { headers: bearer(emu.tokens.runAdmin), body });
  const control = (method: string, path: string, body?: unknown) => controlResponse(c, method, path, body);
  return { sec, run, control };
}

export interface Made {
  ncId: string;
  runIds: string[];
  aliasId: string;
  mfaId: string;
  token: string;
  registryToken: string;
  account: { name: string; password: string };
}

/** At least one object of every engine, both services, an extra mount, and one on cluster 1. */
export async function populate(emu: Emulator): Promise<Made> {
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

