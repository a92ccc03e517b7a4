/**
 * A library set: `/{mount}/library/{name}`, service accounts lent out through check-out. Accounts
 * are updated in place (the service refuses to delete a set while an account is checked out, so a
 * replacement would fail); creating the set, or adding an account, checks it in and rotates it.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import type { ResourceDefinition } from "../../core/definition";
import { field, fieldSet, output, registerSecrets, type ArgsOf, type OutputsOf, type PlainArgsOf, type ResultOf, type StateOf } from "../../core/fields";
import { type FunctionDefinition } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { isUnknown } from "../../core/unknown";
import { duration, sameForm, seconds } from "../duration";
import { dataOf } from "../envelope";
import { adopt, name } from "../fields";
import { namesFunction, pathObject } from "../pathObject";
import { mountField, type MountArgs } from "./fields";
import { DEFAULT_DIRECTORY_MOUNT, DIRECTORY_ROUTES as R } from "./routes";
import type { ConnectionArgs } from "../../core/connection";

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

const librarySetFieldsOwn = {
  /** Name of the set: the last segment of its path `/{mount}/library/{name}`. */
  name: field(name, { identity: true }),
  /**
   * Service accounts of the set, in check-out order (the first available one is lent), no
   * duplicates. Each must exist in the directory and belong to no other set or role. Updated in
   * place, because the service refuses to delete a set while an account is checked out (a
   * replacement could not work): a reorder is an update, a server listing them in another order is
   * no diff. An account that joins is checked in (its password rotated); an account that is checked
   * out cannot leave.
   */
  serviceAccountNames: field(() => z.array(z.string({ error: "must be a string" }).min(1, "must not be empty"), { error: "must be a list of account names" })
    .min(1, "must name at least one service account")
    .refine((v) => v.some(isUnknown) || new Set(v).size === v.length, "must not name an account twice"), {
    decode: (wire: unknown, prior: string[] | undefined) => sameMembers(prior, wire),
    outside: "accounts",
  }),
  /** Longest check-out: seconds or duration text, kept in your form while the service holds the same seconds; default "24h"; 0 unlimited. */
  ttl: field(duration, { default: "24h", decode: sameForm }),
  /** Longest check-out including renewals: seconds or duration text, kept in your form like `ttl`; default "24h"; 0 unlimited; not below ttl. */
  maxTtl: field(duration, { default: "24h", decode: sameForm }),
  /** Let any caller check an account in, not only the one that checked it out. Default false. */
  disableCheckInEnforcement: field(() => z.boolean({ error: "must be a boolean" }), { default: false }),
  /** Take over a set that already exists at the path instead of failing. */
  adopt: field(adopt, { local: true }),
};

export const librarySetFields: typeof mountField & typeof librarySetFieldsOwn = { ...mountField, ...librarySetFieldsOwn };

const librarySetSet = fieldSet(librarySetFields, {
  // Runs even when a field failed, so every problem is reported at once.
  refine(v, ctx) {
    const ttl = isUnknown(v.ttl) ? undefined : seconds(v.ttl);
    const max = isUnknown(v.maxTtl) ? undefined : seconds(v.maxTtl);
    if (ttl !== undefined && max !== undefined && ttl > 0 && max > 0 && max < ttl) {
      ctx.addIssue({ code: "custom", path: ["maxTtl"], message: `must not be less than ttl (${ttl}s); 0 means unlimited` });
    }
  },
});

export type LibrarySetState = StateOf<typeof librarySetFields>;

export const params = (p: { mount?: string; name: string }) => ({ mount: p.mount ?? DEFAULT_DIRECTORY_MOUNT, name: p.name });

export const librarySetDefinition: ResourceDefinition<LibrarySetState, LibrarySetState> = pathObject<LibrarySetState, LibrarySetState>({
  kind: "secrets:DirectoryLibrarySet",
  // Not serviceAccountNames among the immutable fields: a set is changed in place.
  fields: librarySetSet,
  // The service lets one role or set manage an account: a rename that keeps one deletes first.
  exclusive: { keys: ["serviceAccountNames"], scope: ["mount"] },
  routes: { write: R.librarySet.write, read: R.librarySet.read, delete: R.librarySet.delete, list: R.librarySet.list },
  params,
  // The seed's write takes the set's name in the body as well as in the path.
  body: (p) => librarySetSet.body(p, ["mount"]),
});

export type LibrarySetArgs = ArgsOf<typeof librarySetFields> & ConnectionArgs<"secrets">;

/**
 * A library set of the directory engine: `/{mount}/library/{name}`, accounts lent out through
 * check-out (the `CheckOut` resource, the `checkOut` function).
 *
 * @example
 * ```ts
 * const pool = new svc.secrets.directory.LibrarySet("pool", {
 *   name: "build-agents", serviceAccountNames: ["agent-1", "agent-2"], ttl: "1h", maxTtl: "4h",
 * }, { dependsOn: [cfg] });
 * ```
 */
export interface LibrarySet extends OutputsOf<typeof librarySetFields> {}
export class LibrarySet extends SvcResource(librarySetDefinition) { constructor(name: string, args: LibrarySetArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

/** Which library set; the functions of library sets and check-outs take these. */
const setRefFieldsOwn = {
  /** Name of the library set. */
  setName: field(name),
};

export const setRefFields: typeof mountField & typeof setRefFieldsOwn = { ...mountField, ...setRefFieldsOwn };

/** Which library set: its name and mount. */
export type SetRefArgs = PlainArgsOf<typeof setRefFields>;

const accountStatusFields = {
  /** Whether the account can be checked out now. */
  available: output<boolean>(),
  /**
   * The client token that checked the account out (a service may answer the token itself): a
   * secret, redacted from messages; the Output form of {@link getLibraryStatus} is secret for it.
   */
  borrowerClientToken: output<string>({ optional: true, secret: true }),
  /** The entity that checked the account out, empty when the borrower has none. */
  borrowerEntityId: output<string>({ optional: true }),
};

/** Per account: available, or who borrowed it. */
export type AccountStatus = ResultOf<typeof accountStatusFields>;

const statusFn: FunctionDefinition<SetRefArgs, Record<string, AccountStatus>> = { name: "getLibraryStatus", fields: setRefFields, sideEffects: false,
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: R.librarySet.status, params: params({ ...args, name: args.setName }) });
    const out: Record<string, AccountStatus> = {};
    for (const [account, raw] of Object.entries(dataOf(res.body))) {
      const s = (raw ?? {}) as Record<string, unknown>;
      out[account] = s.available === true
        ? { available: true }
        : { available: false, borrowerClientToken: String(s.borrower_client_token ?? ""), borrowerEntityId: String(s.borrower_entity_id ?? "") };
      registerSecrets(accountStatusFields, out[account]);
    }
    return out;
  },
};

/**
 * Which accounts of a set are available, and who holds the others. `borrowerClientToken` is a
 * secret: prefer {@link getLibraryStatusOutput}, which is secret.
 */
export const getLibraryStatus = forms(statusFn).promise;

/** Output form of {@link getLibraryStatus}: secret, because a borrower's client token is. */
export const getLibraryStatusOutput = forms(statusFn, { secret: true }).output;

const listFn = namesFunction<MountArgs>({ name: "listLibrarySets", fields: mountField }, R.librarySet.list);

/** Names of the library sets (empty when there are none). */
export const listLibrarySets = forms(listFn, { argsOptional: true }).promise;

/** Output form of {@link listLibrarySets}. */
export const listLibrarySetsOutput = forms(listFn, { argsOptional: true }).output;
