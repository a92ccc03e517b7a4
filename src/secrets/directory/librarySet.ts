/**
 * A library set: `/{mount}/library/{name}`, service accounts lent out through check-out. Accounts
 * are updated in place (the service refuses to delete a set while an account is checked out, so a
 * replacement would fail); creating the set, or adding an account, checks it in and rotates it.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { CROSS_FIELD, crossField } from "../../core/crossField";
import type { ResourceDefinition } from "../../core/definition";
import { invoke, invokeOutput, type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions, type InputsOf } from "../../core/fn";
import { SvcResource } from "../../core/resource";
import { isUnknown } from "../../core/unknown";
import { duration, keepForm, seconds, type Duration } from "../duration";
import { registerSecret } from "../../http";
import { dataOf } from "../envelope";
import { adopt, mount, name } from "../fields";
import { listNames, pathObject } from "../pathObject";
import { mountOnly, type MountArgs } from "./config";
import { DEFAULT_DIRECTORY_MOUNT, DIRECTORY_ROUTES as R } from "./routes";
import type { ConnectionArgs } from "../../core/connection";
import type { NameList } from "./role";

export interface LibrarySetState {
  name: string;
  mount: string;
  serviceAccountNames: string[];
  ttl: Duration;
  maxTtl: Duration;
  disableCheckInEnforcement: boolean;
  adopt?: boolean;
  [key: string]: unknown;
}

let schema: z.ZodType | undefined;
function buildSchema(): z.ZodType {
  return z.object({
    name: name(),
    mount: mount(),
    serviceAccountNames: z.array(z.string({ error: "must be a string" }).min(1, "must not be empty"), { error: "must be a list of account names" })
      .min(1, "must name at least one service account")
      .refine((v) => v.some(isUnknown) || new Set(v).size === v.length, "must not name an account twice"),
    ttl: duration(),
    maxTtl: duration(),
    disableCheckInEnforcement: z.boolean({ error: "must be a boolean" }),
    adopt: adopt(),
  }).superRefine(crossField((v, ctx) => {
    const ttl = isUnknown(v.ttl) ? undefined : seconds(v.ttl);
    const max = isUnknown(v.maxTtl) ? undefined : seconds(v.maxTtl);
    if (ttl !== undefined && max !== undefined && ttl > 0 && max > 0 && max < ttl) {
      ctx.addIssue({ code: "custom", path: ["maxTtl"], message: `must not be less than ttl (${ttl}s); 0 means unlimited` });
    }
  // Runs even when a field failed, so every problem is reported at once.
  }), CROSS_FIELD);
}

/**
 * The server's accounts, in the program's order when they are the same accounts: the order is the
 * check-out order, so a reorder in the program is an update, while a server that lists them in
 * another order is no diff.
 */
function sameMembers(input: unknown, server: unknown): string[] {
  const held = Array.isArray(server) ? server.map(String) : [];
  const given = Array.isArray(input) ? input.map(String) : [];
  const same = given.length === held.length && given.every((a) => held.includes(a));
  return same ? given : held;
}

export const params = (p: { mount?: string; name: string }) => ({ mount: p.mount ?? DEFAULT_DIRECTORY_MOUNT, name: p.name });

export const librarySetDefinition: ResourceDefinition<LibrarySetState, LibrarySetState> = pathObject<LibrarySetState, LibrarySetState>({
  kind: "secrets:DirectoryLibrarySet",
  schema: () => (schema ??= buildSchema()),
  defaults: { mount: DEFAULT_DIRECTORY_MOUNT, ttl: "24h", maxTtl: "24h", disableCheckInEnforcement: false },
  // Not serviceAccountNames: a set is changed in place.
  immutable: ["name", "mount"],
  identity: ["name", "mount"],
  // The service lets one role or set manage an account: a rename that keeps one deletes first.
  exclusive: { keys: ["serviceAccountNames"], scope: ["mount"] },
  local: ["adopt"],
  outputs: [],
  routes: { write: R.setWrite, read: R.setRead, delete: R.setDelete, list: R.setList },
  params,
  body: (p) => ({
    name: p.name,
    service_account_names: p.serviceAccountNames,
    ttl: p.ttl,
    max_ttl: p.maxTtl,
    disable_check_in_enforcement: p.disableCheckInEnforcement,
  }),
  fromData: (d, p) => ({
    name: p.name,
    mount: p.mount ?? DEFAULT_DIRECTORY_MOUNT,
    serviceAccountNames: sameMembers(p.serviceAccountNames, d.service_account_names),
    ttl: keepForm(p.ttl, d.ttl) ?? 0,
    maxTtl: keepForm(p.maxTtl, d.max_ttl) ?? 0,
    disableCheckInEnforcement: d.disable_check_in_enforcement === true,
  }),
});

export interface LibrarySetArgs extends ConnectionArgs<"secrets"> {
  /** Set name; part of its path, so changing it replaces the set. */
  name: pulumi.Input<string>;
  /** Mount path of the directory engine. Default `directory`. */
  mount?: pulumi.Input<string>;
  /**
   * Service accounts of the set, in check-out order (the first available one is lent). Each must exist in the
   * directory and belong to no other set or role. Changed in place; an account that is checked out
   * cannot be removed.
   */
  serviceAccountNames: pulumi.Input<pulumi.Input<string>[]>;
  /** Longest check-out: seconds or duration text; default "24h"; 0 unlimited. */
  ttl?: pulumi.Input<number | string>;
  /** Longest check-out including renewals: seconds or duration text; default "24h"; 0 unlimited; not below ttl. */
  maxTtl?: pulumi.Input<number | string>;
  /** Let any caller check an account in, not only the one that checked it out. Default false. */
  disableCheckInEnforcement?: pulumi.Input<boolean>;
  /** Take over a set that already exists at the path instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

/**
 * A library set of the directory engine: `/{mount}/library/{name}`.
 *
 * @example
 * ```ts
 * const pool = new svc.secrets.directory.LibrarySet("pool", {
 *   name: "build-agents", serviceAccountNames: ["agent-1", "agent-2"], ttl: "1h", maxTtl: "4h",
 * }, { dependsOn: [cfg] });
 * ```
 */
export class LibrarySet extends SvcResource {
  /** Set name. */
  declare readonly name: pulumi.Output<string>;
  /** Mount path. */
  declare readonly mount: pulumi.Output<string>;
  /** Accounts of the set, in check-out order. */
  declare readonly serviceAccountNames: pulumi.Output<string[]>;
  /** Longest check-out, in your form when unchanged. */
  declare readonly ttl: pulumi.Output<number | string>;
  /** Longest check-out including renewals. */
  declare readonly maxTtl: pulumi.Output<number | string>;
  /** Whether any caller may check in. */
  declare readonly disableCheckInEnforcement: pulumi.Output<boolean>;

  constructor(name: string, args: LibrarySetArgs, opts?: pulumi.CustomResourceOptions) {
    super(librarySetDefinition, name, args, opts);
  }
}

// ---- functions ----


export interface SetRefArgs {
  /** Library set name. */
  setName: string;
  /** Mount path of the directory engine. Default `directory`. */
  mount?: string;
}

/** Per account: available, or who borrowed it. */
export interface AccountStatus {
  /** Whether the account can be checked out now. */
  available: boolean;
  /**
   * The client token that checked the account out (a service may answer the token itself): a
   * secret, redacted from messages; the Output form of {@link getLibraryStatus} is secret for it.
   */
  borrowerClientToken?: string;
  /** The entity that checked the account out, empty when the borrower has none. */
  borrowerEntityId?: string;
}

let refSchema: z.ZodType | undefined;
/** @internal zod types stay out of the public declarations. */
export const setRef = () => (refSchema ??= z.object({ setName: name(), mount: mount().optional() }));

const statusFn: FunctionDefinition<SetRefArgs, Record<string, AccountStatus>> = {
  name: "getLibraryStatus",
  schema: setRef,
  sideEffects: false,
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: R.status, params: params({ ...args, name: args.setName }) });
    const out: Record<string, AccountStatus> = {};
    for (const [account, raw] of Object.entries(dataOf(res.body))) {
      const s = (raw ?? {}) as Record<string, unknown>;
      if (s.available === true) {
        out[account] = { available: true };
        continue;
      }
      const borrowerClientToken = String(s.borrower_client_token ?? "");
      registerSecret(borrowerClientToken);
      out[account] = { available: false, borrowerClientToken, borrowerEntityId: String(s.borrower_entity_id ?? "") };
    }
    return out;
  },
};

/**
 * Which accounts of a set are available, and who holds the others. `borrowerClientToken` is a
 * secret: prefer {@link getLibraryStatusOutput}, which is secret.
 */
export function getLibraryStatus(args: SetRefArgs, opts?: SvcInvokeOptions<"secrets">): Promise<Record<string, AccountStatus>> {
  return invoke(statusFn, args, opts);
}

/** Output form of {@link getLibraryStatus}: secret, because a borrower's client token is. */
export function getLibraryStatusOutput(args: InputsOf<SetRefArgs>, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<Record<string, AccountStatus>> {
  return pulumi.secret(invokeOutput(statusFn, args, opts));
}

const listFn: FunctionDefinition<MountArgs, NameList> = {
  name: "listLibrarySets",
  schema: mountOnly,
  sideEffects: false,
  run: async (ctx, args) => ({ keys: await listNames(ctx, R.setList, { mount: args.mount ?? DEFAULT_DIRECTORY_MOUNT }) }),
};

/** Names of the library sets (empty when there are none). */
export function listLibrarySets(args: MountArgs = {}, opts?: SvcInvokeOptions<"secrets">): Promise<NameList> {
  return invoke(listFn, args, opts);
}

/** Output form of {@link listLibrarySets}. */
export function listLibrarySetsOutput(args: InputsOf<MountArgs> = {}, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<NameList> {
  return invokeOutput(listFn, args, opts);
}
