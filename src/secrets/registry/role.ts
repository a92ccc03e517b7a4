/**
 * A service-registry role: `/{mount}/roles/{name}`, the template of the registry tokens that
 * {@link getRegistryCredentials} generates. Takes the fields of registry 1.4 and above (`tokenType`,
 * `policy`, `policies`, `local`, `ttl`, `maxTtl`) or the older variant (`lease`, `policies`).
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import type { ResourceDefinition } from "../../core/definition";
import { field, fieldSet, output, pick, registerSecrets, type ArgsOf, type InfoOf, type OutputsOf, type PlainArgsOf, type StateOf } from "../../core/fields";
import { type FunctionDefinition } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { isUnknown } from "../../core/unknown";
import { duration, keepForm, seconds } from "../duration";
import { dataOf, present } from "../envelope";
import { adopt, mount, name } from "../fields";
import { namesFunction, pathObject } from "../pathObject";
import { DEFAULT_REGISTRY_MOUNT, REGISTRY_ROUTES as R } from "./routes";
import type { ConnectionArgs } from "../../core/connection";

export const CLIENT_NEEDS_POLICY = "a client token needs policy or policies (or use tokenType management)";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const decodes = (v: string) => BASE64.test(v) && Buffer.from(v, "base64").toString("utf8").trim() !== "";

export const registryRoleFields = {
  /** Role name; part of its path, so changing it replaces the role. */
  name: field(name, { identity: true }),
  /** Mount path of the service-registry engine. Default `registry`. */
  mount: field(mount, { identity: true, default: DEFAULT_REGISTRY_MOUNT, refers: "secrets:RegistryAccessConfig" }),
  /** `client` (default) or `management`. A client token needs `policy` or `policies`. */
  tokenType: field(() => z.enum(["client", "management"], { error: "must be client or management" }), { default: "client" }),
  /** Base64-encoded ACL policy of a client token (checked to decode). */
  policy: field(() => z.string({ error: "must be a string" }).refine((v) => isUnknown(v) || v === "" || decodes(v), "must be a base64-encoded ACL policy (it does not decode)"),
    // Sent blank when unset, so removing it from the program clears it on the server.
    { optional: true, absent: "" }),
  /** Policy names given to generated tokens (compared as a set, kept sorted). */
  policies: field(() => z.array(z.string({ error: "must be a string" }).min(1, "must not be empty"), { error: "must be a list of policy names" }),
    { optional: true, set: true, absent: [] }),
  /** Whether generated tokens are local to the datacenter, not replicated globally (registry 1.4+). Default false. */
  local: field(() => z.boolean({ error: "must be a boolean" }), { default: false }),
  /** Token lifetime: seconds or duration text (registry 1.4+); state keeps your form while the service holds the same seconds. */
  ttl: field(duration, { optional: true }),
  /** Longest token lifetime: seconds or duration text (registry 1.4+); kept in your form like `ttl`. */
  maxTtl: field(duration, { optional: true }),
  /**
   * Older registries: token lease, seconds or duration text; excludes ttl and maxTtl, and is sent
   * with `policies` comma-joined. The service reads it back as text (`"1h0m0s"`): no diff with
   * `"1h"` or `3600`.
   */
  lease: field(duration, { optional: true }),
  /** Take over a role that already exists at the path instead of failing. */
  adopt: field(adopt, { local: true }),
};

const registryRoleSet = fieldSet(registryRoleFields, {
  refine(v, ctx) {
    if (v.lease !== undefined && (v.ttl !== undefined || v.maxTtl !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["lease"], message: "is for registries older than 1.4: give ttl/maxTtl or lease, not both" });
    }
    const unknownPolicy = isUnknown(v.policy) || isUnknown(v.policies) || isUnknown(v.tokenType);
    const hasPolicy = (typeof v.policy === "string" && v.policy !== "") || (Array.isArray(v.policies) && v.policies.length > 0);
    if (!unknownPolicy && v.tokenType === "client" && !hasPolicy) ctx.addIssue({ code: "custom", path: ["policies"], message: CLIENT_NEEDS_POLICY });
  },
});

export type RegistryRoleState = StateOf<typeof registryRoleFields>;

/** A role as the service reports it; durations in seconds. */
export interface RegistryRoleInfo extends Pick<InfoOf<typeof registryRoleFields>, "name" | "mount" | "tokenType" | "local"> {
  /** Base64 policy document of a client token, empty when unset. */
  policy: string;
  /** Policy names attached to generated tokens, sorted. */
  policies: string[];
  /** Token ttl in seconds (0 = the registry's default). */
  ttl: number;
  /** Maximum token ttl in seconds (0 = the registry's default). */
  maxTtl: number;
  /** Duration text of the older registries' lease, as the service reports it. */
  lease: string;
}

const params = (p: { mount?: string; name: string }) => ({ mount: p.mount ?? DEFAULT_REGISTRY_MOUNT, name: p.name });

function body(p: RegistryRoleState): Record<string, unknown> {
  // The older variant: lease and a comma-joined policies string.
  if (p.lease !== undefined) return { lease: p.lease, policies: (p.policies ?? []).join(","), token_type: p.tokenType, policy: p.policy ?? "", local: p.local };
  return registryRoleSet.body(p, ["name", "mount"]);
}

/** Policy names as a list: registries older than 1.4 hold them comma-joined. */
function policyList(v: unknown): string[] {
  const list = Array.isArray(v) ? v.map(String) : typeof v === "string" ? v.split(",") : [];
  return list.map((x) => x.trim()).filter((x) => x !== "").sort();
}

/** The role's ttl: `ttl` where the read has it, else `lease` (the seed's read holds only policy, lease and token_type). */
const ttlOf = (d: Record<string, unknown>) => (present(d, "ttl") ? seconds(d.ttl) : seconds(d.lease));

export function roleInfo(d: Record<string, unknown>, p: { name: string; mount?: string }): RegistryRoleInfo {
  return {
    name: p.name,
    mount: p.mount ?? DEFAULT_REGISTRY_MOUNT,
    tokenType: String(d.token_type ?? "client") as RegistryRoleInfo["tokenType"],
    policy: String(d.policy ?? ""),
    policies: policyList(d.policies),
    local: d.local === true,
    ttl: ttlOf(d) ?? 0,
    maxTtl: seconds(d.max_ttl) ?? 0,
    lease: String(d.lease ?? ""),
  };
}

/**
 * Server data → state: only the fields the program set, durations in its own form when equal. A
 * field the read leaves out keeps the value recorded in state: the seed's read holds only policy,
 * lease and token_type, so `policies`, `local` and `max_ttl` cannot be compared, and `ttl` is taken
 * from `lease`. Reading them as [], false and 0 would show an update on every up.
 */
function fromData(d: Record<string, unknown>, p: RegistryRoleState): RegistryRoleState {
  const info = roleInfo(d, p);
  const has = (key: string) => present(d, key);
  const out: RegistryRoleState = {
    name: p.name, mount: info.mount,
    tokenType: has("token_type") ? info.tokenType : p.tokenType ?? "client",
    local: has("local") ? info.local : p.local ?? false,
  };
  if (!has("policy")) {
    if (p.policy !== undefined) out.policy = p.policy;
  } else if (p.policy !== undefined || info.policy !== "") out.policy = info.policy;
  if (!has("policies")) {
    if (p.policies !== undefined) out.policies = p.policies;
  } else if (p.policies !== undefined || info.policies.length > 0) out.policies = info.policies;
  if (p.lease !== undefined) out.lease = has("lease") ? keepForm(p.lease, info.lease) : p.lease;
  else {
    const ttl = ttlOf(d);
    if (ttl === undefined) {
      if (p.ttl !== undefined) out.ttl = p.ttl;
    } else if (p.ttl !== undefined || ttl > 0) out.ttl = keepForm(p.ttl, ttl);
    const maxTtl = seconds(d.max_ttl);
    if (maxTtl === undefined) {
      if (p.maxTtl !== undefined) out.maxTtl = p.maxTtl;
    } else if (p.maxTtl !== undefined || maxTtl > 0) out.maxTtl = keepForm(p.maxTtl, maxTtl);
  }
  return out;
}

export const registryRoleDefinition: ResourceDefinition<RegistryRoleState, RegistryRoleState> = pathObject<RegistryRoleState, RegistryRoleState>({
  kind: "secrets:RegistryRole",
  fields: registryRoleSet,
  routes: { write: R.role.write, read: R.role.read, delete: R.role.delete, list: R.role.list },
  params,
  body,
  fromData,
});

export type RegistryRoleArgs = ArgsOf<typeof registryRoleFields> & ConnectionArgs<"secrets">;

/**
 * A role of the service-registry engine: `/{mount}/roles/{name}`, the template of generated
 * registry tokens.
 *
 * @remarks
 * A write replaces the whole role, so removing an argument resets it. Deleting a role that is
 * already gone succeeds. The seed's read holds only `policy`, `lease` and `token_type`: `ttl` is
 * then taken from `lease`, and `policies`, `local` and `maxTtl`, when the read leaves them out, keep
 * the values recorded in state (no diff for an unchanged program; a change made elsewhere to them is
 * not seen).
 *
 * @example
 * ```ts
 * const reader = new svc.secrets.registry.Role("reader", { name: "reader", policies: ["read-only"], ttl: "1h" }, { dependsOn: [access] });
 * export const token = svc.secrets.registry.getRegistryCredentialsOutput({ role: reader.name }).token; // secret
 * ```
 */
export interface Role extends OutputsOf<typeof registryRoleFields> {}
export class Role extends SvcResource(registryRoleDefinition) { constructor(name: string, args: RegistryRoleArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

const roleRefFieldsOwn = {
  /** Name of the role. */
  role: field(name),
};

const roleRefFields: Pick<typeof registryRoleFields, "mount"> & typeof roleRefFieldsOwn = { ...pick(registryRoleFields, "mount"), ...roleRefFieldsOwn };
const mountFields = pick(registryRoleFields, "mount");

/** Which role: its name and mount. */
export type RegistryRoleRefArgs = PlainArgsOf<typeof roleRefFields>;

/** Arguments of {@link listRegistryRoles}. */
export type RegistryMountArgs = PlainArgsOf<typeof mountFields>;

const credentialFields = {
  /** The generated registry token: a secret, new on every call. */
  token: output<string>({ secret: true }),
  /** The token's accessor, to look it up or revoke it without the token. */
  accessor: output<string>(),
  /** The lease of the token. */
  leaseId: output<string>(),
  /** How long the lease lasts, in seconds. */
  leaseDuration: output<number>(),
};

/** A generated registry token. */
export type RegistryCredentials = InfoOf<typeof credentialFields>;

const credsFn: FunctionDefinition<RegistryRoleRefArgs, RegistryCredentials> = {
  name: "getRegistryCredentials",
  fields: roleRefFields,
  // Every call makes a new token: nothing is generated during preview.
  sideEffects: true,
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: R.role.creds, params: params({ ...args, name: args.role }) });
    const b = res.body as { lease_id?: unknown; lease_duration?: unknown };
    const d = dataOf(res.body);
    const creds: RegistryCredentials = { token: String(d.token ?? ""), accessor: String(d.accessor ?? ""), leaseId: String(b.lease_id ?? ""), leaseDuration: Number(b.lease_duration ?? 0) };
    // Generated by the server, so no input registered it: redacted from here on.
    registerSecrets(credentialFields, creds);
    return creds;
  },
};

/** A new registry token from the role (a new one on every call). No request during preview. Prefer the Output form (secret). */
export const getRegistryCredentials = forms(credsFn).promise;

/** Output form of {@link getRegistryCredentials}: secret, unknown during preview. */
export const getRegistryCredentialsOutput = forms(credsFn, { secret: true }).output;

const getFn: FunctionDefinition<RegistryRoleRefArgs, RegistryRoleInfo> = { name: "getRegistryRole", fields: roleRefFields, sideEffects: false,
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: R.role.read, params: params({ ...args, name: args.role }) });
    return roleInfo(dataOf(res.body), { name: args.role, mount: args.mount });
  },
};

/** Reads a registry role. */
export const getRegistryRole = forms(getFn).promise;

/** Output form of {@link getRegistryRole}. */
export const getRegistryRoleOutput = forms(getFn).output;

const listFn = namesFunction<RegistryMountArgs>({ name: "listRegistryRoles", fields: mountFields }, R.role.list);

/** Names of the registry roles (empty when there are none). */
export const listRegistryRoles = forms(listFn, { argsOptional: true }).promise;

/** Output form of {@link listRegistryRoles}. */
export const listRegistryRolesOutput = forms(listFn, { argsOptional: true }).output;
