/**
 * A directory role: `/{mount}/roles/{name}`, a service account whose password the service
 * rotates. Its credentials come from {@link getCredentials}; {@link rotateRole} rotates at once.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import type { ResourceDefinition } from "../../core/definition";
import { field, fieldSet, output, registerSecrets, type ArgsOf, type OutputsOf, type PlainArgsOf, type ResultOf, type StateOf } from "../../core/fields";
import { type FunctionDefinition } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { duration, keepForm, type Duration } from "../duration";
import { dataOf } from "../envelope";
import { adopt, name } from "../fields";
import { namesFunction, pathObject } from "../pathObject";
import { mountField, type MountArgs } from "./fields";
import { DEFAULT_DIRECTORY_MOUNT, DIRECTORY_ROUTES as R } from "./routes";
import type { ConnectionArgs } from "../../core/connection";

const directoryRoleFieldsOwn = {
  /** Name of the role: the last segment of its path `/{mount}/roles/{name}`. */
  name: field(name, { identity: true }),
  /**
   * The service account: it must exist in the directory, as a name (found by `uid`, `cn` or
   * `userPrincipalName` under the config's `userdn`) or a DN. The service rotates its password when
   * the role is created. Changed in place.
   */
  serviceAccountName: field(() => z.string({ error: "must be a string" }).min(1, "must not be empty: the account must exist in the directory"), { outside: "accounts" }),
  /**
   * Password lifetime: seconds or duration text, kept in your form while the service holds the same
   * seconds. Default: the config's ttl. At most the config's maxTtl.
   */
  ttl: field(duration, {
    optional: true,
    // Without a ttl of its own the role follows the config's; that value is not the role's to diff.
    decode: (wire: unknown, prior: Duration | undefined) => (prior === undefined ? undefined : keepForm(prior, wire)),
  }),
  /** Take over a role that already exists at the path instead of failing. */
  adopt: field(adopt, { local: true }),
  /** When the service last rotated the password; empty until it has. */
  lastServiceRotation: output<string>({ decode: String }),
  /** When the directory last saw the password set; empty until it has. */
  passwordLastSet: output<string>({ decode: String }),
};

export const directoryRoleFields: typeof mountField & typeof directoryRoleFieldsOwn = { ...mountField, ...directoryRoleFieldsOwn };

const roleSet = fieldSet(directoryRoleFields);

export type DirectoryRoleState = StateOf<typeof directoryRoleFields>;

const params = (p: { mount?: string; name: string }) => ({ mount: p.mount ?? DEFAULT_DIRECTORY_MOUNT, name: p.name });

export const directoryRoleDefinition: ResourceDefinition<DirectoryRoleState, DirectoryRoleState> = pathObject<DirectoryRoleState, DirectoryRoleState>({
  kind: "secrets:DirectoryRole",
  fields: roleSet,
  // The service lets one role or set manage an account: a rename that keeps one deletes first.
  exclusive: { keys: ["serviceAccountName"], scope: ["mount"] },
  routes: { write: R.role.write, read: R.role.read, delete: R.role.delete, list: R.role.list },
  params,
  // A role the service has not rotated yet reads null for both times: "" in state, never absent.
  fromData: (d, p) => roleSet.decode(d, { lastServiceRotation: "", passwordLastSet: "", ...p }) as DirectoryRoleState,
});

export type DirectoryRoleArgs = ArgsOf<typeof directoryRoleFields> & ConnectionArgs<"secrets">;

/**
 * A role of the directory engine: `/{mount}/roles/{name}`, a service account whose password the
 * service rotates.
 *
 * @remarks
 * Credentials come from `getCredentials` (secret in its Output form).
 *
 * @example
 * ```ts
 * const app = new svc.secrets.directory.Role("app", { name: "app", serviceAccountName: "app-svc", ttl: "12h" }, { dependsOn: [cfg] });
 * export const appPassword = svc.secrets.directory.getCredentialsOutput({ role: app.name }).currentPassword;
 * ```
 */
export interface Role extends OutputsOf<typeof directoryRoleFields> {}
export class Role extends SvcResource(directoryRoleDefinition) { constructor(name: string, args: DirectoryRoleArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

const roleRefFieldsOwn = {
  /** Name of the role. */
  role: field(name),
};

const roleRefFields: typeof mountField & typeof roleRefFieldsOwn = { ...mountField, ...roleRefFieldsOwn };

/** Which role: its name and mount. */
export type RoleRefArgs = PlainArgsOf<typeof roleRefFields>;
/** Output-form arguments of the role functions. */
export type RoleRefInputs = ArgsOf<typeof roleRefFields>;

const credentialFields = {
  /** The service account name. */
  username: output<string>(),
  /** The account's current password (secret). */
  currentPassword: output<string>({ secret: true }),
  /** The password before the last rotation, empty when there was none (secret). */
  lastPassword: output<string>({ secret: true }),
};

/** A role's credentials. */
export type DirectoryCredentials = ResultOf<typeof credentialFields>;

const credsFn: FunctionDefinition<RoleRefArgs, DirectoryCredentials> = { name: "getCredentials", fields: roleRefFields, sideEffects: false,
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: R.role.creds, params: params({ ...args, name: args.role }) });
    const d = dataOf(res.body);
    const creds = { username: String(d.username ?? ""), currentPassword: String(d.current_password ?? ""), lastPassword: String(d.last_password ?? "") };
    // Registered as soon as they arrive, before anything could echo them.
    registerSecrets(credentialFields, creds);
    return creds;
  },
};

/**
 * A role's current and previous password (rotated first by the service when its ttl has passed).
 * The Promise form gives plain text: prefer {@link getCredentialsOutput}, whose result is secret.
 */
export const getCredentials = forms(credsFn).promise;

/** Output form of {@link getCredentials}; the result is secret. */
export const getCredentialsOutput = forms(credsFn, { secret: true }).output;

const listFn = namesFunction<MountArgs>({ name: "listRoles", fields: mountField }, R.role.list);

/** Names of the directory roles (empty when there are none). */
export const listRoles = forms(listFn, { argsOptional: true }).promise;

/** Output form of {@link listRoles}. */
export const listRolesOutput = forms(listFn, { argsOptional: true }).output;
