/**
 * How the service-registry engine reaches the registry: `/{mount}/config/access`. The token (a
 * management-type registry ACL token) and the client key are write-only secrets.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { CROSS_FIELD, crossField } from "../../core/crossField";
import type { Context, ResourceDefinition } from "../../core/definition";
import { SvcResource } from "../../core/resource";
import { isUnknown } from "../../core/unknown";
import { registerSecret } from "../../http";
import { adopt, mount } from "../fields";
import { dataOf, present } from "../envelope";
import { alreadyExists, pathOf, readBack, writeNew } from "../pathObject";
import { DEFAULT_REGISTRY_MOUNT, REGISTRY_ROUTES as R } from "./routes";
import type { ConnectionArgs } from "../../core/connection";

export interface AccessConfigState {
  mount: string;
  address: string;
  scheme: "http" | "https";
  token: string;
  caCert?: string;
  clientCert?: string;
  clientKey?: string;
  adopt?: boolean;
  [key: string]: unknown;
}

const PEM = (label: RegExp) => (v: string) => isUnknown(v) || v === "" || label.test(v);

let schema: z.ZodType | undefined;
function buildSchema(): z.ZodType {
  return z.object({
    mount: mount(),
    address: z.string({ error: "must be a string" }).regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, "must be host:port"),
    scheme: z.enum(["http", "https"], { error: "must be http or https" }),
    token: z.string({ error: "must be a string" }).min(1, "must not be empty: a management-type registry ACL token"),
    caCert: z.string().refine(PEM(/-----BEGIN CERTIFICATE-----/), "must be an x509 PEM certificate").optional(),
    clientCert: z.string().refine(PEM(/-----BEGIN CERTIFICATE-----/), "must be an x509 PEM certificate").optional(),
    clientKey: z.string().refine(PEM(/-----BEGIN [A-Z ]*PRIVATE KEY-----/), "must be a PEM private key").optional(),
    adopt: adopt(),
  }).superRefine(crossField((v, ctx) => {
    const has = (x: unknown) => x !== undefined && x !== "";
    if (isUnknown(v.clientCert) || isUnknown(v.clientKey)) return;
    if (has(v.clientCert) && !has(v.clientKey)) ctx.addIssue({ code: "custom", path: ["clientKey"], message: "is required with clientCert" });
    if (has(v.clientKey) && !has(v.clientCert)) ctx.addIssue({ code: "custom", path: ["clientCert"], message: "is required with clientKey" });
  // Runs even when a field failed, so every problem is reported at once.
  }), CROSS_FIELD);
}

const params = (p: { mount?: string }) => ({ mount: p.mount ?? DEFAULT_REGISTRY_MOUNT });

function body(p: AccessConfigState): Record<string, unknown> {
  registerSecret(p.token);
  if (p.clientKey) registerSecret(p.clientKey);
  return { address: p.address, scheme: p.scheme, token: p.token, ca_cert: p.caCert ?? "", client_cert: p.clientCert ?? "", client_key: p.clientKey ?? "" };
}

/** Server data → state; a field the read leaves out keeps the recorded value (the service has it as written). */
function fromData(d: Record<string, unknown>, p: AccessConfigState): AccessConfigState {
  const out: AccessConfigState = {
    mount: p.mount ?? DEFAULT_REGISTRY_MOUNT, address: String(d.address ?? p.address ?? ""), scheme: String(d.scheme ?? p.scheme ?? "http") as "http", token: p.token,
  };
  // Left out of state when neither given nor held, so absent and "" are no diff.
  const pem = (key: "caCert" | "clientCert", param: string) => {
    if (!present(d, param)) {
      if (p[key] !== undefined) out[key] = p[key];
    } else if (p[key] !== undefined || d[param]) out[key] = String(d[param]);
  };
  pem("caCert", "ca_cert");
  pem("clientCert", "client_cert");
  return out;
}

/**
 * The seed gives config/access only a POST. A server without GET answers 405, or 404 like any
 * unknown path, and a 404 is also what a server with GET answers when nothing is configured: the
 * provider cannot tell "not there" from "cannot be read", so neither answer proves the config is
 * gone. Both mean "unreadable", and the values this stack wrote stand (see the README's Assumptions).
 */
const UNREADABLE = [404, 405];

async function fetchAccess(ctx: Context, p: AccessConfigState): Promise<Record<string, unknown> | undefined> {
  const res = await ctx.client("secrets").request({ route: R.accessRead, params: params(p), expect: UNREADABLE });
  return UNREADABLE.includes(res.status) ? undefined : dataOf(res.body);
}

/** The config as read, or as recorded when the service does not report it. */
async function readAccess(ctx: Context, p: AccessConfigState): Promise<AccessConfigState> {
  const data = await fetchAccess(ctx, p);
  if (!data) ctx.log(`${pathOf(R.accessRead, params(p))}: the service does not report it (GET answers 404 or 405): keeping the values this stack wrote`);
  return fromData(data ?? {}, p);
}

export const accessConfigDefinition: ResourceDefinition<AccessConfigState, AccessConfigState> = {
  kind: "secrets:RegistryAccessConfig",
  schema: () => (schema ??= buildSchema()),
  defaults: { mount: DEFAULT_REGISTRY_MOUNT, scheme: "http" },
  immutable: ["mount"],
  identity: ["mount"],
  secrets: ["token", "clientKey"],
  writeOnly: ["token", "clientKey"],
  local: ["adopt"],
  outputs: [],
  async create(ctx, inputs) {
    const id = pathOf(R.accessRead, params(inputs));
    // Where the config cannot be read, whether one is there cannot be told: the write goes ahead.
    if (!inputs.adopt && (await fetchAccess(ctx, inputs))) throw alreadyExists("POST", id, "registry access config");
    await writeNew(ctx, () => ctx.client("secrets").request({ route: R.accessWrite, params: params(inputs), body: body(inputs), retry: "safe" }), R.accessRead, params(inputs));
    return { id, outs: await readBack(id, inputs, () => readAccess(ctx, inputs)) };
  },
  read: (ctx, _id, props) => readAccess(ctx, props),
  async update(ctx, id, _olds, news) {
    await ctx.client("secrets").request({ route: R.accessWrite, params: params(news), body: body(news), retry: "safe" });
    return readBack(id, news, () => readAccess(ctx, news));
  },
  async delete(ctx, _id, props) {
    const res = await ctx.client("secrets").request({ route: R.accessDelete, params: params(props), expect: UNREADABLE });
    if (res.status === 405) {
      ctx.log(`${pathOf(R.accessDelete, params(props))}: the service has no DELETE for it (405): the config stays on the server until written again`);
    }
  },
};

export interface AccessConfigArgs extends ConnectionArgs<"secrets"> {
  /** Mount path of the service-registry engine. Default `registry`. Changing it replaces the config. */
  mount?: pulumi.Input<string>;
  /** Registry address, `host:port`. */
  address: pulumi.Input<string>;
  /** `http` (default) or `https`. */
  scheme?: pulumi.Input<"http" | "https">;
  /** A management-type registry ACL token. Secret and write-only: never read back, kept secret in state. */
  token: pulumi.Input<string>;
  /** x509 PEM CA certificate for the registry's TLS. */
  caCert?: pulumi.Input<string>;
  /** x509 PEM client certificate; requires clientKey. */
  clientCert?: pulumi.Input<string>;
  /** PEM client key; requires clientCert. Secret and write-only. */
  clientKey?: pulumi.Input<string>;
  /** Take over an access config that already exists on the mount instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

/**
 * The service-registry engine's access to the registry: `/{mount}/config/access`.
 *
 * @example
 * ```ts
 * const access = new svc.secrets.registry.AccessConfig("registry", {
 *   address: "registry.internal:8500", scheme: "https", token: config.requireSecret("registryManagementToken"),
 * });
 * ```
 */
export class AccessConfig extends SvcResource {
  /** Mount path. */
  declare readonly mount: pulumi.Output<string>;
  /** Registry address. */
  declare readonly address: pulumi.Output<string>;
  /** http or https. */
  declare readonly scheme: pulumi.Output<string>;
  /** Secret; your input, never read from the service. */
  declare readonly token: pulumi.Output<string>;
  /** CA certificate, when set. */
  declare readonly caCert: pulumi.Output<string | undefined>;
  /** Client certificate, when set. */
  declare readonly clientCert: pulumi.Output<string | undefined>;
  /** Secret; your input, never read from the service. */
  declare readonly clientKey: pulumi.Output<string | undefined>;

  constructor(name: string, args: AccessConfigArgs, opts?: pulumi.CustomResourceOptions) {
    super(accessConfigDefinition, name, args, opts);
  }
}
