/**
 * A dual-factor MFA method: the configuration of an external two-factor provider,
 * `/identity/mfa/method/dualfactor/{id}`. The service assigns its id (a UUID). The seed writes
 * `push_info` and reads `pushinfo`; both are `pushInfo` here.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { segment } from "../../core/segment";
import { createOnce } from "../../core/createOnce";
import type { Context, ResourceDefinition } from "../../core/definition";
import { PartialFailure } from "../../core/definition";
import { invoke, invokeOutput, type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions } from "../../core/fn";
import { SvcResource } from "../../core/resource";
import { ConflictError, InvalidInputError, isSvcError, registerSecret, type SvcError } from "../../http";
import { fetchData, listNames } from "../pathObject";
import type { ConnectionArgs } from "../../core/connection";

export const MFA_ROUTES = {
  create: "POST /identity/mfa/method/dualfactor",
  read: "GET /identity/mfa/method/dualfactor/{id}",
  update: "POST /identity/mfa/method/dualfactor/{id}",
  delete: "DELETE /identity/mfa/method/dualfactor/{id}",
  list: "LIST /identity/mfa/method/dualfactor",
} as const;

export interface DualFactorMethodState {
  usernameFormat?: string;
  secretKey: string;
  integrationKey: string;
  apiHostname: string;
  pushInfo?: string;
  usePasscode: boolean;
  type?: string;
  [key: string]: unknown;
}

/** A method as the service reports it, with the resource's property names. */
export interface DualFactorMethodInfo {
  /** Method id (a UUID the service assigns). */
  id: string;
  /** Always `dualfactor`. */
  type: string;
  /** Template of the username sent to the provider; blank uses the entity name. */
  usernameFormat: string;
  /** Secret key of the provider application (secret). */
  secretKey: string;
  /** Integration key of the provider application (secret). */
  integrationKey: string;
  /** API hostname of the provider account. */
  apiHostname: string;
  /** Extra information shown in push notifications (URL query form). */
  pushInfo: string;
  /** Whether users type a passcode instead of approving a push. */
  usePasscode: boolean;
}

let schema: z.ZodType | undefined;
function buildSchema(): z.ZodType {
  const secret = (what: string) => z.string({ error: "must be a string" }).min(1, `must not be empty: it is the ${what} of the provider account`);
  return z.object({
    usernameFormat: z.string({ error: "must be a string" })
      .refine((f) => (f.match(/\{\{/g) ?? []).length === (f.match(/\}\}/g) ?? []).length, "must close every {{ with }}")
      .optional(),
    secretKey: secret("secret key"),
    integrationKey: secret("integration key"),
    apiHostname: z.string({ error: "must be a string" }).min(1, "must not be empty")
      .regex(/^[A-Za-z0-9.-]+(:\d+)?$/, "must be a host name such as api-1234abcd.example.com (no scheme or path)"),
    pushInfo: z.string({ error: "must be a string" }).optional(),
    usePasscode: z.boolean({ error: "must be a boolean" }),
  });
}

export function methodInfo(id: string, d: Record<string, unknown>): DualFactorMethodInfo {
  // Read as `pushinfo`; accept the write name too, should a server echo it.
  const pushInfo = d.pushinfo ?? d.push_info;
  return {
    id: String(d.id ?? id),
    type: String(d.type ?? "dualfactor"),
    usernameFormat: String(d.username_format ?? ""),
    secretKey: String(d.secret_key ?? ""),
    integrationKey: String(d.integration_key ?? ""),
    apiHostname: String(d.api_hostname ?? ""),
    pushInfo: String(pushInfo ?? ""),
    usePasscode: d.use_passcode === true,
  };
}

/**
 * Server data → state. `pushinfo` (read) becomes `pushInfo` (the write is `push_info`). A blank
 * username format or push info is left out of state unless the program gave the property (`prior`),
 * so neither an omitted nor an empty value is a perpetual diff.
 */
export function methodState(id: string, d: Record<string, unknown>, prior: Partial<DualFactorMethodState>): DualFactorMethodState {
  const { id: _id, usernameFormat, pushInfo, ...rest } = methodInfo(id, d);
  for (const s of [rest.secretKey, rest.integrationKey]) if (s) registerSecret(s);
  return {
    ...rest,
    ...(usernameFormat || prior.usernameFormat !== undefined ? { usernameFormat } : {}),
    ...(pushInfo || prior.pushInfo !== undefined ? { pushInfo } : {}),
  };
}

function body(p: DualFactorMethodState): Record<string, unknown> {
  registerSecret(p.secretKey);
  registerSecret(p.integrationKey);
  return {
    username_format: p.usernameFormat ?? "",
    secret_key: p.secretKey,
    integration_key: p.integrationKey,
    api_hostname: p.apiHostname,
    push_info: p.pushInfo ?? "",
    use_passcode: p.usePasscode,
  };
}

function idFrom(res: unknown): string | undefined {
  const data = (res as { data?: Record<string, unknown> } | undefined)?.data;
  const id = data?.method_id ?? data?.id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** A method made since `before` was listed, with the same provider account and settings. */
async function findNew(ctx: Context, before: Set<string>, p: DualFactorMethodState, owned: (id: string) => boolean = () => false): Promise<string | undefined> {
  for (const id of await listNames(ctx, MFA_ROUTES.list, {})) {
    if (before.has(id) || owned(id)) continue;
    const d = await fetchData(ctx, MFA_ROUTES.read, { id });
    // Reads spell push_info as pushinfo; secret fields are compared only when the server returns them.
    const secretsAgree = (d?.secret_key === undefined || d.secret_key === p.secretKey) && (d?.integration_key === undefined || d.integration_key === p.integrationKey);
    if (d && d.api_hostname === p.apiHostname && secretsAgree &&
      String(d.username_format ?? "") === (p.usernameFormat ?? "") &&
      String(d.pushinfo ?? d.push_info ?? "") === (p.pushInfo ?? "") && (d.use_passcode ?? false) === p.usePasscode) return id;
  }
  return undefined;
}

async function readState(ctx: Context, id: string, prior: Partial<DualFactorMethodState>): Promise<DualFactorMethodState | undefined> {
  const data = await fetchData(ctx, MFA_ROUTES.read, { id });
  return data ? methodState(id, data, prior) : undefined;
}

export const dualFactorMethodDefinition: ResourceDefinition<DualFactorMethodState, DualFactorMethodState> = {
  kind: "secrets:MfaDualFactorMethod",
  schema: () => (schema ??= buildSchema()),
  defaults: { usePasscode: false },
  secrets: ["secretKey", "integrationKey"],
  outputs: ["type"],
  async create(ctx, inputs) {
    // The ids that exist before, so a lost create is recognised by a new id, never an old method.
    const before = new Set(await listNames(ctx, MFA_ROUTES.list, {}));
    const client = ctx.client("secrets");
    const id = await createOnce({
      scope: `mfa-dualfactor:${client.baseUrl}`,
      attempt: async () => {
        const res = await client.request({ route: MFA_ROUTES.create, body: body(inputs) });
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
    await ctx.client("secrets").request({ route: MFA_ROUTES.update, params: { id }, body: { id, ...body(news) }, retry: "safe" });
    const outs = await readState(ctx, id, news);
    if (!outs) throw new Error(`dual-factor method ${id} was updated but reads back as missing`);
    return outs;
  },
  async delete(ctx, id) {
    try {
      await ctx.client("secrets").request({ route: MFA_ROUTES.delete, params: { id } });
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

export interface DualFactorMethodArgs extends ConnectionArgs<"secrets"> {
  /**
   * How the username sent to the provider is built: a template with identity values in double curly
   * braces, e.g. `{{identity.entity.name}}@example.com`. Blank (the default) uses the entity's name as is.
   */
  usernameFormat?: pulumi.Input<string>;
  /** Secret key of the provider account. Secret: kept secret in state. */
  secretKey: pulumi.Input<string>;
  /** Integration key of the provider account. Secret: kept secret in state. */
  integrationKey: pulumi.Input<string>;
  /** API host name of the provider account, without scheme or path (e.g. `api-1234abcd.example.com`). */
  apiHostname: pulumi.Input<string>;
  /** Extra information shown in the push request (the service writes it as `push_info`, reads it as `pushinfo`). */
  pushInfo?: pulumi.Input<string>;
  /** Remind the user to use a passcode. Default false. */
  usePasscode?: pulumi.Input<boolean>;
}

/**
 * A dual-factor MFA method (server-assigned UUID). Deleting it fails while a login enforcement uses
 * it.
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
export class DualFactorMethod extends SvcResource {
  /** Always `dualfactor`. */
  declare readonly type: pulumi.Output<string>;
  /**
   * How the username sent to the provider is built: a template with identity values in double curly
   * braces, e.g. `{{identity.entity.name}}@example.com`. Blank (the default) uses the entity's name as is.
   */
  declare readonly usernameFormat: pulumi.Output<string | undefined>;
  /** Secret key of the provider account. Secret: kept secret in state. */
  declare readonly secretKey: pulumi.Output<string>;
  /** Integration key of the provider account. Secret: kept secret in state. */
  declare readonly integrationKey: pulumi.Output<string>;
  /** API host name of the provider account, without scheme or path (e.g. `api-1234abcd.example.com`). */
  declare readonly apiHostname: pulumi.Output<string>;
  /** Extra information shown in the push request (the service writes it as `push_info`, reads it as `pushinfo`). */
  declare readonly pushInfo: pulumi.Output<string | undefined>;
  /** Remind the user to use a passcode. Default false. */
  declare readonly usePasscode: pulumi.Output<boolean>;

  constructor(name: string, args: DualFactorMethodArgs, opts?: pulumi.CustomResourceOptions) {
    super(dualFactorMethodDefinition, name, args, opts);
  }
}

// ---- functions ----

let getSchema: z.ZodType | undefined;
let listSchema: z.ZodType | undefined;

const getFn: FunctionDefinition<{ id: string }, DualFactorMethodInfo> = {
  name: "getDualFactorMethod",
  schema: () => (getSchema ??= z.object({ id: segment() })),
  sideEffects: false, service: "secrets",
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: MFA_ROUTES.read, params: { id: args.id } });
    const info = methodInfo(args.id, (res.body as { data?: Record<string, unknown> } | undefined)?.data ?? {});
    for (const s of [info.secretKey, info.integrationKey]) if (s) registerSecret(s);
    return info;
  },
};

const listFn: FunctionDefinition<Record<string, never>, { keys: string[] }> = {
  name: "listDualFactorMethods",
  schema: () => (listSchema ??= z.object({})),
  sideEffects: false, service: "secrets",
  run: async (ctx) => ({ keys: await listNames(ctx, MFA_ROUTES.list, {}) }),
};

/**
 * Reads a dual-factor method by id. The result holds the secret and integration keys (the service
 * returns them); prefer the Output form, which is secret.
 */
export function getDualFactorMethod(args: {
  /** Method id (a UUID the service assigns). */
  id: string;
}, opts?: SvcInvokeOptions<"secrets">): Promise<DualFactorMethodInfo> {
  return invoke(getFn, args, opts);
}

/** Output form of {@link getDualFactorMethod}; the whole result is secret, since it holds the keys. */
export function getDualFactorMethodOutput(args: {
  /** Method id (a UUID the service assigns). */
  id: pulumi.Input<string>;
}, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<DualFactorMethodInfo> {
  return pulumi.secret(invokeOutput(getFn, args, opts));
}

/** Ids (UUIDs) of the dual-factor methods visible in the current and parent namespaces. */
export function listDualFactorMethods(opts?: SvcInvokeOptions<"secrets">): Promise<{
  /** Ids of the dual-factor methods. */
  keys: string[];
}> {
  return invoke(listFn, {}, opts);
}

/** Output form of {@link listDualFactorMethods}. */
export function listDualFactorMethodsOutput(opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<{
  /** Ids of the dual-factor methods. */
  keys: string[];
}> {
  return invokeOutput(listFn, {}, opts);
}
