/**
 * A service-registry role: `/{mount}/roles/{name}`, the template of the registry tokens that
 * {@link getRegistryCredentials} generates. Takes the fields of registry 1.4 and above (`tokenType`,
 * `policy`, `policies`, `local`, `ttl`, `maxTtl`) or the older variant (`lease`, `policies`).
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { CROSS_FIELD, crossField } from "../../core/crossField";
import type { ResourceDefinition } from "../../core/definition";
import { invoke, invokeOutput, type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions, type InputsOf } from "../../core/fn";
import { SvcResource } from "../../core/resource";
import { isUnknown } from "../../core/unknown";
import { registerSecret } from "../../http";
import { duration, keepForm, seconds, type Duration } from "../duration";
import { dataOf, present } from "../envelope";
import { adopt, mount, name } from "../fields";
import { listNames, pathObject } from "../pathObject";
import { DEFAULT_REGISTRY_MOUNT, REGISTRY_ROUTES as R } from "./routes";
import type { ConnectionArgs } from "../../core/connection";

export const CLIENT_NEEDS_POLICY = "a client token needs policy or policies (or use tokenType management)";

export interface RegistryRoleState {
  name: string;
  mount: string;
  tokenType: "client" | "management";
  policy?: string;
  policies?: string[];
  local: boolean;
  ttl?: Duration;
  maxTtl?: Duration;
  lease?: Duration;
  adopt?: boolean;
  [key: string]: unknown;
}

/** A role as the service reports it; durations in seconds. */
export interface RegistryRoleInfo {
  /** Role name. */
  name: string;
  /** Mount path of the service-registry engine. */
  mount: string;
  /** `client` or `management`. */
  tokenType: string;
  /** Base64 policy document of a client token, empty when unset. */
  policy: string;
  /** Policy names attached to generated tokens. */
  policies: string[];
  /** Whether generated tokens are local to the datacenter. */
  local: boolean;
  /** Token ttl in seconds (0 = the registry's default). */
  ttl: number;
  /** Maximum token ttl in seconds (0 = the registry's default). */
  maxTtl: number;
  /** Duration text, as the service reports it. */
  lease: string;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const decodes = (v: string) => BASE64.test(v) && Buffer.from(v, "base64").toString("utf8").trim() !== "";

let schema: z.ZodType | undefined;
function buildSchema(): z.ZodType {
  return z.object({
    name: name(),
    mount: mount(),
    tokenType: z.enum(["client", "management"], { error: "must be client or management" }),
    policy: z.string({ error: "must be a string" }).refine((v) => isUnknown(v) || v === "" || decodes(v), "must be a base64-encoded ACL policy (it does not decode)").optional(),
    policies: z.array(z.string({ error: "must be a string" }).min(1, "must not be empty"), { error: "must be a list of policy names" }).optional(),
    local: z.boolean({ error: "must be a boolean" }),
    ttl: duration().optional(),
    maxTtl: duration().optional(),
    lease: duration().optional(),
    adopt: adopt(),
  }).superRefine(crossField((v, ctx) => {
    if (v.lease !== undefined && (v.ttl !== undefined || v.maxTtl !== undefined)) {
      ctx.addIssue({ code: "custom", path: ["lease"], message: "is for registries older than 1.4: give ttl/maxTtl or lease, not both" });
    }
    const unknownPolicy = isUnknown(v.policy) || isUnknown(v.policies) || isUnknown(v.tokenType);
    const hasPolicy = (typeof v.policy === "string" && v.policy !== "") || (Array.isArray(v.policies) && v.policies.length > 0);
    if (!unknownPolicy && v.tokenType === "client" && !hasPolicy) ctx.addIssue({ code: "custom", path: ["policies"], message: CLIENT_NEEDS_POLICY });
  // Runs even when a field failed, so every problem is reported at once.
  }), CROSS_FIELD);
}

const params = (p: { mount?: string; name: string }) => ({ mount: p.mount ?? DEFAULT_REGISTRY_MOUNT, name: p.name });

function body(p: RegistryRoleState): Record<string, unknown> {
  // The older variant: lease and a comma-joined policies string.
  if (p.lease !== undefined) return { lease: p.lease, policies: (p.policies ?? []).join(","), token_type: p.tokenType, policy: p.policy ?? "", local: p.local };
  const b: Record<string, unknown> = { token_type: p.tokenType, policy: p.policy ?? "", policies: p.policies ?? [], local: p.local };
  if (p.ttl !== undefined) b.ttl = p.ttl;
  if (p.maxTtl !== undefined) b.max_ttl = p.maxTtl;
  return b;
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
    tokenType: String(d.token_type ?? "client"),
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
    tokenType: (has("token_type") ? info.tokenType : p.tokenType ?? "client") as "client",
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
  schema: () => (schema ??= buildSchema()),
  defaults: { mount: DEFAULT_REGISTRY_MOUNT, tokenType: "client", local: false },
  sets: ["policies"],
  immutable: ["name", "mount"],
  identity: ["name", "mount"],
  local: ["adopt"],
  outputs: [],
  routes: { write: R.roleWrite, read: R.roleRead, delete: R.roleDelete, list: R.roleList },
  params,
  body,
  fromData,
});

export interface RegistryRoleArgs extends ConnectionArgs<"secrets"> {
  /** Role name; part of its path, so changing it replaces the role. */
  name: pulumi.Input<string>;
  /** Mount path of the service-registry engine. Default `registry`. */
  mount?: pulumi.Input<string>;
  /** `client` (default) or `management`. A client token needs `policy` or `policies`. */
  tokenType?: pulumi.Input<"client" | "management">;
  /** Base64-encoded ACL policy (checked to decode). */
  policy?: pulumi.Input<string>;
  /** Policies given to the token (compared as a set). */
  policies?: pulumi.Input<pulumi.Input<string>[]>;
  /** Token not replicated globally (registry 1.4+). Default false. */
  local?: pulumi.Input<boolean>;
  /** Token lifetime: seconds or duration text (registry 1.4+). */
  ttl?: pulumi.Input<number | string>;
  /** Longest token lifetime: seconds or duration text (registry 1.4+). */
  maxTtl?: pulumi.Input<number | string>;
  /** Older registries: token lease, seconds or duration text; excludes ttl and maxTtl. */
  lease?: pulumi.Input<number | string>;
  /** Take over a role that already exists at the path instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

/**
 * A role of the service-registry engine: `/{mount}/roles/{name}`.
 *
 * @example
 * ```ts
 * const reader = new svc.secrets.registry.Role("reader", { name: "reader", policies: ["read-only"], ttl: "1h" }, { dependsOn: [access] });
 * export const token = svc.secrets.registry.getRegistryCredentialsOutput({ role: reader.name }).token; // secret
 * ```
 */
export class Role extends SvcResource {
  /** Role name. */
  declare readonly name: pulumi.Output<string>;
  /** Mount path. */
  declare readonly mount: pulumi.Output<string>;
  /** client or management. */
  declare readonly tokenType: pulumi.Output<string>;
  /** Base64 ACL policy, when set. */
  declare readonly policy: pulumi.Output<string | undefined>;
  /** Policies, sorted. */
  declare readonly policies: pulumi.Output<string[] | undefined>;
  /** Whether tokens are local. */
  declare readonly local: pulumi.Output<boolean>;
  /** Token lifetime, in your form when unchanged. */
  declare readonly ttl: pulumi.Output<number | string | undefined>;
  /** Longest token lifetime. */
  declare readonly maxTtl: pulumi.Output<number | string | undefined>;
  /** Older registries' lease, when set. */
  declare readonly lease: pulumi.Output<number | string | undefined>;

  constructor(name: string, args: RegistryRoleArgs, opts?: pulumi.CustomResourceOptions) {
    super(registryRoleDefinition, name, args, opts);
  }
}

// ---- functions ----

/** Names listed by the service, in its order; empty when there are none. */
export interface NameList {
  /** The names. */
  keys: string[];
}

export interface RegistryRoleRefArgs {
  /** Role name. */
  role: string;
  /** Mount path of the service-registry engine. Default `registry`. */
  mount?: string;
}
type RefInputs = InputsOf<RegistryRoleRefArgs>;

/** Arguments of {@link listRegistryRoles}. */
export interface RegistryMountArgs {
  /** Mount path of the service-registry engine. Default `registry`. */
  mount?: string;
}

/** A generated registry token. */
export interface RegistryCredentials {
  /** The generated registry token (secret). */
  token: string;
  /** The token's accessor, to look it up or revoke it without the token. */
  accessor: string;
  /** The lease of the token. */
  leaseId: string;
  /** Seconds. */
  leaseDuration: number;
}

let refSchema: z.ZodType | undefined;
let mountSchema: z.ZodType | undefined;
const ref = () => (refSchema ??= z.object({ role: name(), mount: mount().optional() }));

const credsFn: FunctionDefinition<RegistryRoleRefArgs, RegistryCredentials> = {
  name: "getRegistryCredentials",
  schema: ref,
  // Every call makes a new token: nothing is generated during preview.
  sideEffects: true,
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: R.creds, params: params({ ...args, name: args.role }) });
    const b = res.body as { lease_id?: unknown; lease_duration?: unknown };
    const d = dataOf(res.body);
    const token = String(d.token ?? "");
    registerSecret(token);
    return { token, accessor: String(d.accessor ?? ""), leaseId: String(b.lease_id ?? ""), leaseDuration: Number(b.lease_duration ?? 0) };
  },
};

/** A new registry token from the role (a new one on every call). No request during preview. Prefer the Output form (secret). */
export function getRegistryCredentials(args: RegistryRoleRefArgs, opts?: SvcInvokeOptions<"secrets">): Promise<RegistryCredentials> {
  return invoke(credsFn, args, opts);
}

/** Output form of {@link getRegistryCredentials}: secret, unknown during preview. */
export function getRegistryCredentialsOutput(args: RefInputs, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<RegistryCredentials> {
  return pulumi.secret(invokeOutput(credsFn, args, opts));
}

const getFn: FunctionDefinition<RegistryRoleRefArgs, RegistryRoleInfo> = {
  name: "getRegistryRole",
  schema: ref,
  sideEffects: false,
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: R.roleRead, params: params({ ...args, name: args.role }) });
    return roleInfo(dataOf(res.body), { name: args.role, mount: args.mount });
  },
};

/** Reads a registry role. */
export function getRegistryRole(args: RegistryRoleRefArgs, opts?: SvcInvokeOptions<"secrets">): Promise<RegistryRoleInfo> {
  return invoke(getFn, args, opts);
}

/** Output form of {@link getRegistryRole}. */
export function getRegistryRoleOutput(args: RefInputs, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<RegistryRoleInfo> {
  return invokeOutput(getFn, args, opts);
}

const listFn: FunctionDefinition<{ mount?: string }, NameList> = {
  name: "listRegistryRoles",
  schema: () => (mountSchema ??= z.object({ mount: mount().optional() })),
  sideEffects: false,
  run: async (ctx, args) => ({ keys: await listNames(ctx, R.roleList, { mount: args.mount ?? DEFAULT_REGISTRY_MOUNT }) }),
};

/** Names of the registry roles (empty when there are none). */
export function listRegistryRoles(args: RegistryMountArgs = {}, opts?: SvcInvokeOptions<"secrets">): Promise<NameList> {
  return invoke(listFn, args, opts);
}

/** Output form of {@link listRegistryRoles}. */
export function listRegistryRolesOutput(args: InputsOf<RegistryMountArgs> = {}, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<NameList> {
  return invokeOutput(listFn, args, opts);
}
