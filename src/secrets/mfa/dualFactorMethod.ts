/**
 * A dual-factor MFA method: the configuration of an external two-factor provider,
 * `/identity/mfa/method/dualfactor/{id}`. The service assigns its id (a UUID). The seed writes
 * `push_info` and reads `pushinfo`; both are `pushInfo` here.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import { segment } from "../../core/segment";
import { createOnce } from "../../core/createOnce";
import type { Context, ResourceDefinition } from "../../core/definition";
import { PartialFailure } from "../../core/definition";
import { type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { field, fieldSet, output, registerSecrets, type ArgsOf, type InfoOf, type OutputsOf, type PlainArgsOf, type ReportedOf, type StateOf } from "../../core/fields";
import { ConflictError, InvalidInputError, isSvcError, type SvcError } from "../../http";
import { listNames, namesFunction, readDecoded, reportOf, type NameList } from "../pathObject";
import { createdId, matchingIds } from "../createdId";
import type { ConnectionArgs } from "../../core/connection";
import { MFA_ROUTES } from "./routes";

/** A blank the service reports for an unset value is kept in state only when the program gave the property. */
const blankUnlessGiven = (v: unknown, prior: string | undefined) => (v || prior !== undefined ? String(v) : undefined);

const providerSetting = (what: string) => () =>
  z.string({ error: "must be a string" }).min(1, `must not be empty: it is the ${what} of the provider account`);

export const dualFactorMethodFields = {
  /**
   * How the username sent to the provider is built: a template with identity values in double curly
   * braces, e.g. `{{identity.entity.name}}@example.com`. Blank (the default) uses the entity's name as is.
   */
  usernameFormat: field(() => z.string({ error: "must be a string" })
    .refine((f) => (f.match(/\{\{/g) ?? []).length === (f.match(/\}\}/g) ?? []).length, "must close every {{ with }}"),
  { optional: true, absent: "", decode: blankUnlessGiven }),
  /** Secret key of the provider account. Secret: kept secret in state. */
  secretKey: field(providerSetting("secret key"), { secret: true }),
  /** Integration key of the provider account. Secret: kept secret in state. */
  integrationKey: field(providerSetting("integration key"), { secret: true }),
  /** API host name of the provider account, optionally with `:port`, without scheme or path (e.g. `api-1234abcd.example.com`). */
  apiHostname: field(() => z.string({ error: "must be a string" }).min(1, "must not be empty")
    .regex(/^[A-Za-z0-9.-]+(:\d+)?$/, "must be a host name such as api-1234abcd.example.com (no scheme or path)")),
  /**
   * Extra information shown in the push request. The service writes it as `push_info` and reads it
   * as `pushinfo`: both are `pushInfo` here, so there is no perpetual diff.
   */
  pushInfo: field(() => z.string({ error: "must be a string" }), { optional: true, absent: "", decode: blankUnlessGiven }),
  /** Remind the user to use a passcode. Default false. */
  usePasscode: field(() => z.boolean({ error: "must be a boolean" }), { default: false, decode: (v: unknown) => v === true }),
  /**
   * Id of an existing dual-factor method to take over instead of creating one
   * (docs/adopting.md): the create reads it, fails when it does not exist, writes it
   * only when something differs from the program, and keeps its id. Only the create reads it; a
   * method another resource of the stack holds is refused.
   */
  adoptId: field(segment, { local: true }),
  /** Always `dualfactor`. */
  type: output<string>({ decode: (v: unknown) => String(v) }),
};

const dualFactorMethodSet = fieldSet(dualFactorMethodFields);

// The id is the resource's own (CustomResource.id), not a field of its state: it has a record of
// its own, for the function that reads a method by id and for the result that reports it.
const methodRefFields = {
  /** Method id (a UUID the service assigns). */
  id: field(segment),
};

export type DualFactorMethodState = StateOf<typeof dualFactorMethodFields>;

/** A method as the service reports it, with the resource's property names; blanks are `""`. */
export type DualFactorMethodInfo = InfoOf<typeof methodRefFields> & ReportedOf<typeof dualFactorMethodFields>;

/** The seed reads `pushinfo` where it writes `push_info`; a server that echoes the write name is read the same. */
function wireOf(d: Record<string, unknown>): Record<string, unknown> {
  return { ...d, push_info: d.pushinfo ?? d.push_info };
}

export function methodInfo(id: string, d: Record<string, unknown>): DualFactorMethodInfo {
  // The blanks a read reports for unset values (a seed-only server may leave them out).
  const known = { usernameFormat: "", pushInfo: "", type: "dualfactor" };
  return { id: String(d.id ?? id), ...dualFactorMethodSet.decode(wireOf(d), known) } as DualFactorMethodInfo;
}

/**
 * Server data → state. `pushinfo` (read) becomes `pushInfo` (the write is `push_info`). A blank
 * username format or push info is left out of state unless the program gave the property (`prior`),
 * so neither an omitted nor an empty value is a perpetual diff.
 */
export function methodState(_id: string, d: Record<string, unknown>, prior: Partial<DualFactorMethodState>): DualFactorMethodState {
  return dualFactorMethodSet.decode(wireOf(d), prior) as DualFactorMethodState;
}

function idFrom(res: unknown): string | undefined {
  const data = (res as { data?: Record<string, unknown> } | undefined)?.data;
  const id = data?.method_id ?? data?.id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** Whether a method read back holds every value of these inputs (the same provider account and settings). */
function sameAs(d: Record<string, unknown>, p: DualFactorMethodState): boolean {
  // Reads spell push_info as pushinfo; secret fields are compared only where both sides know them
  // (pulumi-svc-recover --cleared reads the program's planned inputs, whose secrets a preview hides).
  const agree = (read: unknown, given: string | undefined) => read === undefined || given === undefined || read === given;
  const secretsAgree = agree(d.secret_key, p.secretKey) && agree(d.integration_key, p.integrationKey);
  return d.api_hostname === p.apiHostname && secretsAgree &&
    String(d.username_format ?? "") === (p.usernameFormat ?? "") &&
    String(d.pushinfo ?? d.push_info ?? "") === (p.pushInfo ?? "") && (d.use_passcode ?? false) === p.usePasscode;
}

/** A method made since `before` was listed, with the same provider account and settings. */
function findNew(ctx: Context, before: Set<string>, p: DualFactorMethodState, owned: (id: string) => boolean = () => false): Promise<string | undefined> {
  return createdId(ctx, MFA_ROUTES.dualFactorMethod, before, owned, (d) => sameAs(d, p));
}

/** Every method with the values of these inputs (a server has a few methods: each is read). */
const lookalikes = (ctx: Context, p: DualFactorMethodState) => matchingIds(ctx, MFA_ROUTES.dualFactorMethod, (d) => sameAs(d, p));

const readState = (ctx: Context, id: string, prior: Partial<DualFactorMethodState>) =>
  readDecoded(ctx, MFA_ROUTES.dualFactorMethod.read, { id }, (data) => methodState(id, data, prior));

export const dualFactorMethodDefinition: ResourceDefinition<DualFactorMethodState, DualFactorMethodState> = {
  kind: "secrets:MfaDualFactorMethod",
  routes: MFA_ROUTES.dualFactorMethod,
  discover: { list: MFA_ROUTES.dualFactorMethod.list },
  ...dualFactorMethodSet,
  leftovers: { find: lookalikes, otherwise: 'to take over one made another way, set adoptId: "<its id>"' },
  async create(ctx, inputs) {
    // The ids that exist before, so a lost create is recognised by a new id, never an old method.
    const before = new Set(await listNames(ctx, MFA_ROUTES.dualFactorMethod.list, {}));
    const client = ctx.client("secrets");
    const id = await createOnce({
      scope: `mfa-dualfactor:${client.baseUrl}`,
      attempt: async () => {
        const res = await client.request({ route: MFA_ROUTES.dualFactorMethod.create, body: dualFactorMethodSet.body(inputs) });
        return idFrom(res.body) ?? (await findNew(ctx, before, inputs)) ?? "";
      },
      find: (owned) => findNew(ctx, before, inputs, owned),
      idOf: (created) => created,
      log: (m) => ctx.log(`dual-factor method for ${inputs.apiHostname}: ${m}`),
    });
    if (!id) throw new Error(`POST /identity/mfa/method/dualfactor: the service answered without the new method's id and it cannot be found by listing`);
    try {
      const outs = await readState(ctx, id, inputs);
      if (!outs) throw new Error(`dual-factor method ${id} was created but reads back as missing`);
      return { id, outs };
    } catch (e) {
      throw new PartialFailure(id, inputs, e as Error);
    }
  },
  read: (ctx, id, props) => readState(ctx, id, props),
  async update(ctx, id, _olds, news) {
    // All fields are sent each time: repeating it has the same result.
    await ctx.client("secrets").request({ route: MFA_ROUTES.dualFactorMethod.update, params: { id }, body: { id, ...dualFactorMethodSet.body(news) }, retry: "safe" });
    const outs = await readState(ctx, id, news);
    if (!outs) throw new Error(`dual-factor method ${id} was updated but reads back as missing`);
    return outs;
  },
  async delete(ctx, id) {
    try {
      await ctx.client("secrets").request({ route: MFA_ROUTES.dualFactorMethod.delete, params: { id } });
    } catch (e) {
      // The seed's rule: a method used by a login enforcement cannot be deleted.
      if (!isSvcError(e, "invalid_input") && !isSvcError(e, "conflict")) throw e;
      const err = e as SvcError;
      const hint = `dual-factor method ${id} cannot be deleted while a login enforcement uses it: remove the method ` +
        `from the enforcement (or delete the enforcement) first, then run the delete again`;
      const init = { service: err.service, method: err.method, path: err.path, status: err.status, messages: [...err.messages, hint] };
      throw err.code === "conflict" ? new ConflictError(init) : new InvalidInputError(init);
    }
  },
};

export type DualFactorMethodArgs = ArgsOf<typeof dualFactorMethodFields> & ConnectionArgs<"secrets">;

/**
 * A dual-factor MFA method: `/identity/mfa/method/dualfactor/{id}`, a UUID assigned by the service.
 * Deleting it fails while a login enforcement uses it.
 *
 * @remarks
 * Every argument updates in place. The service returns both keys on read; they are kept secret in
 * state. Deleting a method that a login enforcement uses fails with the service's message and
 * `dual-factor method <id> cannot be deleted while a login enforcement uses it: remove the method
 * from the enforcement (or delete the enforcement) first`. A lost create response is resolved by
 * listing: only a method that did not exist before the attempt (same host, integration key and
 * username format) is taken.
 *
 * @example
 * ```ts
 * const duo = new svc.secrets.mfa.DualFactorMethod("duo", {
 *   apiHostname: "api-1234.duosecurity.com",
 *   secretKey: cfg.requireSecret("duoSecretKey"), integrationKey: cfg.requireSecret("duoIntegrationKey"),
 * });
 * export const methodId = duo.id;
 * ```
 */
export interface DualFactorMethod extends OutputsOf<typeof dualFactorMethodFields> {}
export class DualFactorMethod extends SvcResource(dualFactorMethodDefinition) { constructor(name: string, args: DualFactorMethodArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

const getFn: FunctionDefinition<PlainArgsOf<typeof methodRefFields>, DualFactorMethodInfo> = { name: "getDualFactorMethod", fields: methodRefFields, sideEffects: false, service: "secrets",
  async run(ctx, args) {
    const info = await reportOf(ctx, MFA_ROUTES.dualFactorMethod.read, { id: args.id }, (data) => methodInfo(args.id, data));
    // The result holds the keys the service returned: the record says which fields are secret.
    registerSecrets(dualFactorMethodFields, info);
    return info;
  },
};

const listFn = namesFunction<Record<string, never>>({ name: "listDualFactorMethods", fields: {}, service: "secrets" }, MFA_ROUTES.dualFactorMethod.list);

/**
 * Reads a dual-factor method by id. The result holds the secret and integration keys (the service
 * returns them); prefer the Output form, which is secret.
 */
export const getDualFactorMethod = forms(getFn).promise;

/** Output form of {@link getDualFactorMethod}; the whole result is secret, since it holds the keys. */
export const getDualFactorMethodOutput = forms(getFn, { secret: true }).output;

/** Ids (UUIDs) of the dual-factor methods visible in the current and parent namespaces. */
export const listDualFactorMethods: (opts?: SvcInvokeOptions<"secrets">) => Promise<NameList> = (opts) => forms(listFn).promise({}, opts);

/** Output form of {@link listDualFactorMethods}. */
export const listDualFactorMethodsOutput: (opts?: SvcInvokeOutputOptions<"secrets">) => pulumi.Output<NameList> = (opts) => forms(listFn).output({}, opts);
