import { expect } from "vitest";
import type { Emulator } from "../../src/emulator";
import { bearer, svcToken } from "./helpers";
import { controlResponse } from "../support/emulator";
import { call, type Response } from "../support/http";
import { makeObject, onCluster, type RawValues } from "../support/kindCases";

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

/**
 * At least one object of every engine, both services, an extra mount, and one on cluster 1: each
 * object by the kinds' raw-request factory (test/support/kindCases.ts), with this file's values.
 */
export async function populate(emu: Emulator): Promise<Made> {
  const { sec, control } = clients(emu);
  const make = (kind: string, values: RawValues, at = emu) => makeObject(at, kind, values);
  const nc = await make("runs:NotificationConfiguration", { name: "snap", url: "https://h.example.com/", token: SECRETS.nc, enabled: undefined, triggers: undefined });
  const runs = await ok(control("POST", "/runs", { workspaceId: emu.workspaceId, count: 2, status: "applied", message: "before the snapshot" }), 201);
  // transform: alphabet, template, fpe and tokenization transformations, a role, a token.
  await make("secrets:TransformAlphabet", { name: "digits", alphabet: "0123456789" });
  await make("secrets:TransformTemplate", { name: "ssn", pattern: "(\\d{3})-(\\d{2})-(\\d{4})", alphabet: "digits" });
  await make("secrets:TransformFpeTransformation", { name: "card", template: "builtin/creditcardnumber", allowedRoles: ["app"] });
  await make("secrets:TransformTokenizationTransformation", { name: "tok", allowedRoles: ["app"], maxTtl: undefined });
  await make("secrets:TransformRole", { name: "app", transformations: ["tok", "card"] });
  const token = (await ok(sec("POST", "transform/encode/app", { value: SECRETS.plaintext, transformation: "tok" }), 200)).json.data.encoded_value as string;
  // keymgmt: a rotated key distributed to a KMS provider.
  await make("secrets:KeymgmtKey", { name: "k", type: "rsa-2048", deletionAllowed: undefined, latestVersion: 2 });
  await make("secrets:KeymgmtKmsProvider", { name: "p", provider: "azurekeyvault", keyCollection: "vault-one", credentials: { client_id: "id", client_secret: SECRETS.kms, tenant_id: "t" } });
  await make("secrets:KeymgmtKeyDistribution", { kmsName: "p", keyName: "k", purpose: ["encrypt", "decrypt"], protection: undefined });
  // directory: config, a library set, an account checked out.
  await make("secrets:DirectoryConfig", { bindpass: SECRETS.bind, ttl: undefined, maxTtl: undefined });
  await make("secrets:DirectoryLibrarySet", { name: "lib", serviceAccountNames: ["svc-a", "svc-b"], ttl: "1h", maxTtl: undefined });
  const { account } = await make("secrets:DirectoryCheckOut", { setName: "lib" });
  // registry: access, a role, a token minted by it.
  await make("secrets:RegistryAccessConfig", { address: "registry:8500" });
  await make("secrets:RegistryRole", { name: "m", tokenType: "management", ttl: "30m", policies: undefined });
  const registryToken = (await ok(sec("GET", "registry/creds/m"), 200)).json.data.token as string;
  // identity, MFA, plugin catalog, an extra mount, replication, cluster 1.
  const alias = await make("secrets:IdentityEntityAlias", { name: "alice", customMetadata: undefined });
  const mfa = await make("secrets:MfaDualFactorMethod", { secretKey: SECRETS.mfa, integrationKey: "ik-1", apiHostname: "api-1.example.com", pushInfo: undefined });
  await make("secrets:PluginCatalogEntry", { type: "secret", name: "my-secrets", sha256: "a".repeat(64), command: "my-secrets-plugin", args: undefined, env: undefined });
  await ok(control("POST", "/mounts", { path: "transform-eu", type: "transform" }));
  await make("secrets:TransformAlphabet", { mount: "transform-eu", name: "eu", alphabet: "ab" });
  await make("secrets:ReplicationPerformancePrimary", {});
  await make("secrets:TransformAlphabet", { name: "on-cluster-1", alphabet: "xyz" }, onCluster(emu, 1));
  return { ncId: nc.id, runIds: runs.json.ids, aliasId: alias.id, mfaId: mfa.id, token, registryToken, account: account! };
}
