/**
 * A directory role: `/{mount}/roles/{name}`, a service account whose password the service
 * rotates. Its credentials come from {@link getCredentials}; {@link rotateRole} rotates at once.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { ResourceDefinition } from "../../core/definition";
import { invoke, invokeOutput, type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions, type InputsOf } from "../../core/fn";
import { SvcResource } from "../../core/resource";
import { registerSecret } from "../../http";
import { duration, keepForm, type Duration } from "../duration";
import { dataOf } from "../envelope";
import { adopt, mount, name } from "../fields";
import { listNames, pathObject } from "../pathObject";
import { mountOnly, type MountArgs } from "./config";
import { DEFAULT_DIRECTORY_MOUNT, DIRECTORY_ROUTES as R } from "./routes";
import type { ConnectionArgs } from "../../core/connection";

export interface DirectoryRoleState {
  name: string;
  mount: string;
  serviceAccountName: string;
  ttl?: Duration;
  adopt?: boolean;
  lastServiceRotation?: string;
  passwordLastSet?: string;
  [key: string]: unknown;
}

let schema: z.ZodType | undefined;
const params = (p: { mount?: string; name: string }) => ({ mount: p.mount ?? DEFAULT_DIRECTORY_MOUNT, name: p.name });

export const directoryRoleDefinition: ResourceDefinition<DirectoryRoleState, DirectoryRoleState> = pathObject<DirectoryRoleState, DirectoryRoleState>({
  kind: "secrets:DirectoryRole",
  schema: () => (schema ??= z.object({
    name: name(),
    mount: mount(),
    serviceAccountName: z.string({ error: "must be a string" }).min(1, "must not be empty: the account must exist in the directory"),
    ttl: duration().optional(),
    adopt: adopt(),
  })),
  defaults: { mount: DEFAULT_DIRECTORY_MOUNT },
  immutable: ["name", "mount"],
  identity: ["name", "mount"],
  // The service lets one role or set manage an account: a rename that keeps one deletes first.
  exclusive: { keys: ["serviceAccountName"], scope: ["mount"] },
  local: ["adopt"],
  outputs: ["lastServiceRotation", "passwordLastSet"],
  routes: { write: R.roleWrite, read: R.roleRead, delete: R.roleDelete, list: R.roleList },
  params,
  body: (p) => ({ service_account_name: p.serviceAccountName, ...(p.ttl !== undefined ? { ttl: p.ttl } : {}) }),
  fromData: (d, p) => {
    const out: DirectoryRoleState = {
      name: p.name,
      mount: p.mount ?? DEFAULT_DIRECTORY_MOUNT,
      serviceAccountName: String(d.service_account_name ?? ""),
      lastServiceRotation: String(d.last_service_rotation ?? ""),
      passwordLastSet: String(d.password_last_set ?? ""),
    };
    // Without a ttl of its own the role follows the config's; that value is not the role's to diff.
    if (p.ttl !== undefined) out.ttl = keepForm(p.ttl, d.ttl);
    return out;
  },
});

export interface DirectoryRoleArgs extends ConnectionArgs<"secrets"> {
  /** Role name; part of its path, so changing it replaces the role. */
  name: pulumi.Input<string>;
  /** Mount path of the directory engine. Default `directory`. */
  mount?: pulumi.Input<string>;
  /** The service account (must exist in the directory; a name or a DN). The service rotates its password at once. */
  serviceAccountName: pulumi.Input<string>;
  /** Password lifetime: seconds or duration text. Default: the config's ttl. At most the config's maxTtl. */
  ttl?: pulumi.Input<number | string>;
  /** Take over a role that already exists at the path instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

/**
 * A role of the directory engine: `/{mount}/roles/{name}`.
 *
 * @example
 * ```ts
 * const app = new svc.secrets.directory.Role("app", { name: "app", serviceAccountName: "app-svc", ttl: "12h" }, { dependsOn: [cfg] });
 * export const appPassword = svc.secrets.directory.getCredentialsOutput({ role: app.name }).currentPassword;
 * ```
 */
export class Role extends SvcResource {
  /** Role name. */
  declare readonly name: pulumi.Output<string>;
  /** Mount path. */
  declare readonly mount: pulumi.Output<string>;
  /** The managed service account. */
  declare readonly serviceAccountName: pulumi.Output<string>;
  /** Password lifetime, when set. */
  declare readonly ttl: pulumi.Output<number | string | undefined>;
  /** When the service last rotated the password. */
  declare readonly lastServiceRotation: pulumi.Output<string>;
  /** When the directory last saw the password set. */
  declare readonly passwordLastSet: pulumi.Output<string>;

  constructor(name: string, args: DirectoryRoleArgs, opts?: pulumi.CustomResourceOptions) {
    super(directoryRoleDefinition, name, args, opts);
  }
}

// ---- functions ----

/** Names listed by the service, in its order; empty when there are none. */
export interface NameList {
  /** The names. */
  keys: string[];
}

export interface RoleRefArgs {
  /** Role name. */
  role: string;
  /** Mount path of the directory engine. Default `directory`. */
  mount?: string;
}
/** Output-form arguments of the role functions. */
export type RoleRefInputs = InputsOf<RoleRefArgs>;

/** A role's credentials. */
export interface DirectoryCredentials {
  /** The service account name. */
  username: string;
  /** The account's current password (secret). */
  currentPassword: string;
  /** The password before the last rotation, empty when there was none (secret). */
  lastPassword: string;
}

let refSchema: z.ZodType | undefined;
const roleRef = () => (refSchema ??= z.object({ role: name(), mount: mount().optional() }));

const credsFn: FunctionDefinition<RoleRefArgs, DirectoryCredentials> = {
  name: "getCredentials",
  schema: roleRef,
  sideEffects: false,
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: R.creds, params: params({ ...args, name: args.role }) });
    const d = dataOf(res.body);
    const creds = { username: String(d.username ?? ""), currentPassword: String(d.current_password ?? ""), lastPassword: String(d.last_password ?? "") };
    registerSecret(creds.currentPassword);
    registerSecret(creds.lastPassword);
    return creds;
  },
};

/**
 * A role's current and previous password (rotated first by the service when its ttl has passed).
 * The Promise form gives plain text: prefer {@link getCredentialsOutput}, whose result is secret.
 */
export function getCredentials(args: RoleRefArgs, opts?: SvcInvokeOptions<"secrets">): Promise<DirectoryCredentials> {
  return invoke(credsFn, args, opts);
}

/** Output form of {@link getCredentials}; the result is secret. */
export function getCredentialsOutput(args: RoleRefInputs, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<DirectoryCredentials> {
  return pulumi.secret(invokeOutput(credsFn, args, opts));
}

const listFn: FunctionDefinition<MountArgs, NameList> = {
  name: "listRoles",
  schema: mountOnly,
  sideEffects: false,
  run: async (ctx, args) => ({ keys: await listNames(ctx, R.roleList, { mount: args.mount ?? DEFAULT_DIRECTORY_MOUNT }) }),
};

/** Names of the directory roles (empty when there are none). */
export function listRoles(args: MountArgs = {}, opts?: SvcInvokeOptions<"secrets">): Promise<NameList> {
  return invoke(listFn, args, opts);
}

/** Output form of {@link listRoles}. */
export function listRolesOutput(args: InputsOf<MountArgs> = {}, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<NameList> {
  return invokeOutput(listFn, args, opts);
}
