/**
 * How the service-registry engine reaches the registry: `/{mount}/config/access`. The token (a
 * management-type registry ACL token) and the client key are write-only secrets.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import type { Context, ResourceDefinition } from "../../core/definition";
import { field, fieldSet, type ArgsOf, type OutputsOf, type StateOf } from "../../core/fields";
import { registration, SvcResource } from "../../core/resource";
import { isUnknown } from "../../core/unknown";
import { adopt, mount } from "../fields";
import { dataOf } from "../envelope";
import { alreadyExists, pathOf, readBack, writeNew } from "../pathObject";
import { DEFAULT_REGISTRY_MOUNT, REGISTRY_ROUTES as R } from "./routes";
import type { ConnectionArgs } from "../../core/connection";

const PEM = (label: RegExp) => (v: string) => isUnknown(v) || v === "" || label.test(v);
const certificate = () => z.string().refine(PEM(/-----BEGIN CERTIFICATE-----/), "must be an x509 PEM certificate");

/**
 * An optional PEM: "" on the wire when unset, so removing it from the program clears it; a blank
 * read back stays out of state unless the program set the field, so absent and "" are no diff.
 */
const pemFlags = { optional: true, absent: "", decode: (v: unknown, prior: string | undefined) => (prior !== undefined || v ? String(v) : undefined) } as const;

export const accessConfigFields = {
  /** Mount path of the service-registry engine. Default `registry`. Changing it replaces the config. */
  mount: field(mount, { identity: true, default: DEFAULT_REGISTRY_MOUNT }),
  /** Registry address, `host:port`. */
  address: field(() => z.string({ error: "must be a string" }).regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, "must be host:port"),
    { decode: (v: unknown) => String(v) }),
  /** `http` (default) or `https`. */
  scheme: field(() => z.enum(["http", "https"], { error: "must be http or https" }), { default: "http", decode: (v: unknown) => String(v) as "http" }),
  /**
   * A management-type registry ACL token (the service refuses a client token), sent on every write.
   * Secret and write-only: never read back, state keeps your input as a secret.
   */
  token: field(() => z.string({ error: "must be a string" }).min(1, "must not be empty: a management-type registry ACL token"),
    { secret: true, writeOnly: true, outside: "managementTokens" }),
  /** x509 PEM CA certificate for the registry's TLS, when set. */
  caCert: field(certificate, pemFlags),
  /** x509 PEM client certificate, when set; requires clientKey. */
  clientCert: field(certificate, pemFlags),
  /**
   * PEM client key; requires clientCert. Secret and write-only: never read back, state keeps your
   * input as a secret.
   */
  clientKey: field(() => z.string().refine(PEM(/-----BEGIN [A-Z ]*PRIVATE KEY-----/), "must be a PEM private key"),
    { optional: true, secret: true, writeOnly: true, absent: "" }),
  /** Take over an access config that already exists on the mount instead of failing. */
  adopt: field(adopt, { local: true }),
};

const accessConfigSet = fieldSet(accessConfigFields, {
  refine(v, ctx) {
    const has = (x: unknown) => x !== undefined && x !== "";
    if (isUnknown(v.clientCert) || isUnknown(v.clientKey)) return;
    if (has(v.clientCert) && !has(v.clientKey)) ctx.addIssue({ code: "custom", path: ["clientKey"], message: "is required with clientCert" });
    if (has(v.clientKey) && !has(v.clientCert)) ctx.addIssue({ code: "custom", path: ["clientCert"], message: "is required with clientKey" });
  },
});

export type AccessConfigState = StateOf<typeof accessConfigFields>;

/**
 * Bookkeeping in the state beside the fields (hidden: the CLI shows no property whose name starts
 * with `__`, and the drift review compares none): whether the service answered `GET config/access`
 * with the config at this stack's last write or read. Only then does a later 404 prove it gone.
 */
export const READABLE_KEY = "__readable";

/** The state: the fields, and what the last write or read learnt of the service's GET. */
type Held = AccessConfigState & { [READABLE_KEY]?: boolean };

const params = (p: { mount?: string }) => ({ mount: p.mount ?? DEFAULT_REGISTRY_MOUNT });

// The mount is the path, not a body field.
const body = (p: AccessConfigState) => accessConfigSet.body(p, ["mount"]);

/** Server data → state; a field the read leaves out keeps the recorded value (the service has it as written). */
const fromData = (d: Record<string, unknown>, p: AccessConfigState): Held => accessConfigSet.decode(d, p) as AccessConfigState;

/**
 * The seed gives config/access only a POST. A server without GET answers 405, or 404 like any
 * unknown path, and a 404 is also what a server with GET answers when nothing is configured. So a
 * 404 proves the config gone only where the service has answered the GET with it before (at this
 * stack's last write or read: READABLE_KEY); elsewhere, and on a 405, whether it is there cannot be
 * known, and the values this stack wrote stand (docs/assumptions.md, item 82).
 */
const UNREADABLE = [404, 405];

/** What a refresh, the drift review and the warnings say of a config the service does not report. */
export const UNSEEN = "the service does not report registry/config/access (its GET answers 404 or 405), so whether the config is still " +
  "there cannot be known: a refresh keeps it as this stack wrote it and sees no change or delete made elsewhere, " +
  "another stack's destroy included";

async function fetchAccess(ctx: Context, p: AccessConfigState): Promise<{ status: number; data?: Record<string, unknown> }> {
  const res = await ctx.client("secrets").request({ route: R.access.read, params: params(p), expect: UNREADABLE });
  return UNREADABLE.includes(res.status) ? { status: res.status } : { status: res.status, data: dataOf(res.body) };
}

/**
 * The config as read; undefined when it is gone (a 404 where the service reported it before); as
 * recorded, marked unreadable, when the service does not report it.
 */
async function readAccess(ctx: Context, p: Held): Promise<Held | undefined> {
  const { status, data } = await fetchAccess(ctx, p);
  if (data) return { ...fromData(data, p), [READABLE_KEY]: true };
  if (status === 404 && p[READABLE_KEY] === true) return undefined;
  ctx.log(`${pathOf(R.access.read, params(p))}: ${UNSEEN} (docs/assumptions.md, item 82)`);
  return { ...fromData({}, p), [READABLE_KEY]: false };
}

/**
 * A write's read back: where the service does not report what was just written, every later
 * refresh is blind to it, and the up says so. A take-over is warned of as well, in words that hold
 * for the kinds a refresh can see (src/core/provider.ts): this one says where they do not.
 */
async function writtenBack(ctx: Context, id: string, inputs: AccessConfigState): Promise<Held> {
  const held = await readBack(id, inputs, () => readAccess(ctx, inputs));
  if (held[READABLE_KEY] === false) {
    (ctx.warn ?? ctx.log)(`${id}: written, but ${UNSEEN}; pulumi up --replace on this resource writes it again (docs/adopting.md, "One object, one stack")`);
  }
  return held;
}

export const accessConfigDefinition: ResourceDefinition<AccessConfigState, Held> = {
  kind: "secrets:RegistryAccessConfig",
  routes: R.access,
  path: { route: R.access.read },
  discover: {},
  ...accessConfigSet,
  // An output, so that no diff compares it and no refresh makes it an input.
  outputs: [...accessConfigSet.outputs, READABLE_KEY],
  unseen: (state) => (state[READABLE_KEY] === true ? undefined : UNSEEN),
  async create(ctx, inputs) {
    const id = pathOf(R.access.read, params(inputs));
    // Where the config cannot be read, whether one is there cannot be told: the write goes ahead.
    if (!inputs.adopt && (await fetchAccess(ctx, inputs)).data) throw alreadyExists("POST", id, "registry access config");
    await writeNew(ctx, () => ctx.client("secrets").request({ route: R.access.write, params: params(inputs), body: body(inputs), retry: "safe" }), R.access.read, params(inputs));
    return { id, outs: await writtenBack(ctx, id, inputs) };
  },
  read: (ctx, _id, props) => readAccess(ctx, props),
  async update(ctx, id, _olds, news) {
    await ctx.client("secrets").request({ route: R.access.write, params: params(news), body: body(news), retry: "safe" });
    return writtenBack(ctx, id, news);
  },
  async delete(ctx, _id, props) {
    const res = await ctx.client("secrets").request({ route: R.access.delete, params: params(props), expect: UNREADABLE });
    if (res.status === 405) {
      ctx.log(`${pathOf(R.access.delete, params(props))}: the service has no DELETE for it (405): the config stays on the server until written again`);
    }
  },
};

export type AccessConfigArgs = ArgsOf<typeof accessConfigFields> & ConnectionArgs<"secrets">;

/**
 * The service-registry engine's access to the registry: `/{mount}/config/access` (default mount
 * `registry`).
 *
 * @remarks
 * The seed gives `config/access` only a `POST`. Where its `GET` answers with the config after this
 * stack writes (or refreshes) it, the service reports it: a refresh that then gets 404 finds it gone
 * (deleted by hand, or by another stack's destroy), drops it from the state, and the next `up`
 * writes it again. Where the `GET` answers 404 or 405 instead, whether the config is there cannot
 * be known: create writes without its existence check and records your values, the `up` warns,
 * refresh keeps the recorded values, the drift review counts it as not known, and `pulumi up
 * --replace` on the resource writes it again. A delete answered 404 or 405 counts as done; after a
 * 405 the config stays on the service until written again (the provider logs it). See
 * docs/assumptions.md, item 82.
 *
 * @example
 * ```ts
 * const access = new svc.secrets.registry.AccessConfig("registry", {
 *   address: "registry.internal:8500", scheme: "https", token: config.requireSecret("registryManagementToken"),
 * });
 * ```
 */
export interface AccessConfig extends OutputsOf<typeof accessConfigFields> {}
export class AccessConfig extends SvcResource(accessConfigDefinition) { constructor(name: string, args: AccessConfigArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }
