/**
 * The directory engine's connection: `/{mount}/config`. One per mount. `bindpass` is write-only
 * and sent only when it changed in the program: after a rotate-root the service holds a newer
 * password, and re-sending the old one with an unrelated change would break the bind.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { CROSS_FIELD, crossField } from "../../core/crossField";
import type { Context, ResourceDefinition } from "../../core/definition";
import { invoke, invokeOutput, type FunctionDefinition, type SvcInvokeOptions, type SvcInvokeOutputOptions, type InputsOf } from "../../core/fn";
import { SvcResource } from "../../core/resource";
import { isUnknown } from "../../core/unknown";
import { registerSecret } from "../../http";
import { duration, keepForm, type Duration } from "../duration";
import { present } from "../envelope";
import { adopt, mount } from "../fields";
import { alreadyExists, fetchData, pathOf, readBack, writeNew } from "../pathObject";
import { DEFAULT_DIRECTORY_MOUNT, DIRECTORY_ROUTES as R } from "./routes";
import type { ConnectionArgs } from "../../core/connection";

const PLACEHOLDER = "{{PASSWORD}}";
const TLS_VERSIONS = ["tls10", "tls11", "tls12", "tls13"] as const;

export interface DirectoryConfigState {
  mount: string;
  binddn: string;
  bindpass: string;
  url: string;
  userdn: string;
  upndomain: string;
  certificate: string;
  insecureTls: boolean;
  starttls: boolean;
  tlsMinVersion: string;
  tlsMaxVersion: string;
  ttl: Duration;
  maxTtl: Duration;
  passwordPolicy: string;
  length?: number;
  formatter: string;
  connectionTimeout: Duration;
  requestTimeout: Duration;
  lastRotationTolerance: Duration;
  adopt?: boolean;
  [key: string]: unknown;
}

/** The config as the service reports it (never the bind password), durations in seconds. */
export interface DirectoryConfigInfo {
  /** Mount path of the directory engine. */
  mount: string;
  /** Distinguished name the service binds with. */
  binddn: string;
  /** LDAP server URLs, comma-separated, tried in order. */
  url: string;
  /** Base DN under which service accounts are searched. */
  userdn: string;
  /** User principal name domain, empty when unset. */
  upndomain: string;
  /** PEM CA certificate used to verify the server, empty when unset. */
  certificate: string;
  /** Whether server certificate verification is skipped. */
  insecureTls: boolean;
  /** Whether StartTLS is issued after connecting. */
  starttls: boolean;
  /** Minimum TLS version (`tls10` … `tls13`). */
  tlsMinVersion: string;
  /** Maximum TLS version (`tls10` … `tls13`). */
  tlsMaxVersion: string;
  /** Default password ttl in seconds (0 = the service's default). */
  ttl: number;
  /** Maximum password ttl in seconds (0 = the service's default). */
  maxTtl: number;
  /** Name of the password policy, empty when unset. */
  passwordPolicy: string;
  /** Length of generated passwords (deprecated by the service in favour of a policy). */
  length: number;
  /** Template for generated passwords holding `{{PASSWORD}}` once, empty when unset. */
  formatter: string;
  /** Seconds to wait for a connection to the directory. */
  connectionTimeout: number;
  /** Seconds to wait for a directory request. */
  requestTimeout: number;
  /** Seconds within which a password set outside the service is still accepted as its rotation. */
  lastRotationTolerance: number;
}

/** Input name → service parameter, for everything but bindpass and the password rules. */
const FIELDS: Record<string, string> = {
  binddn: "binddn", url: "url", userdn: "userdn", upndomain: "upndomain", certificate: "certificate", insecureTls: "insecure_tls",
  starttls: "starttls", tlsMinVersion: "tls_min_version", tlsMaxVersion: "tls_max_version", ttl: "ttl", maxTtl: "max_ttl",
  connectionTimeout: "connection_timeout", requestTimeout: "request_timeout", lastRotationTolerance: "last_rotation_tolerance",
};
const DURATIONS = ["ttl", "maxTtl", "connectionTimeout", "requestTimeout", "lastRotationTolerance"];

const known = (v: unknown) => v !== undefined && !isUnknown(v);

let schema: z.ZodType | undefined;
function buildSchema(): z.ZodType {
  const text = () => z.string({ error: "must be a string" });
  return z.object({
    mount: mount(),
    binddn: text().min(1, "must not be empty: the distinguished name the service binds with"),
    bindpass: text().min(1, "must not be empty"),
    url: text().refine((v) => isUnknown(v) || v.split(",").every((u) => /^ldaps?:\/\/[^/\s,]+\/?$/.test(u.trim())),
      "must be ldap://host[:port] or ldaps://host[:port], or a comma-separated list of them"),
    userdn: text(),
    upndomain: text(),
    certificate: text().refine((v) => isUnknown(v) || v === "" || v.includes("-----BEGIN CERTIFICATE-----"), "must be an x509 PEM CA certificate"),
    insecureTls: z.boolean({ error: "must be a boolean" }),
    starttls: z.boolean({ error: "must be a boolean" }),
    tlsMinVersion: z.enum(TLS_VERSIONS, { error: `must be one of ${TLS_VERSIONS.join(", ")}` }),
    tlsMaxVersion: z.enum(TLS_VERSIONS, { error: `must be one of ${TLS_VERSIONS.join(", ")}` }),
    ttl: duration(),
    maxTtl: duration(),
    passwordPolicy: text(),
    length: z.number({ error: "must be a number" }).int("must be an integer").min(14, "must be at least 14").optional(),
    formatter: text().refine((v) => isUnknown(v) || v === "" || v.split(PLACEHOLDER).length === 2, `must contain ${PLACEHOLDER} exactly once`),
    connectionTimeout: duration(),
    requestTimeout: duration(),
    lastRotationTolerance: duration(),
    adopt: adopt(),
  }).superRefine(crossField((v, ctx) => {
    const policy = known(v.passwordPolicy) && v.passwordPolicy !== "";
    if (policy && known(v.length)) ctx.addIssue({ code: "custom", path: ["length"], message: "is mutually exclusive with passwordPolicy" });
    if (policy && known(v.formatter) && v.formatter !== "") ctx.addIssue({ code: "custom", path: ["formatter"], message: "is mutually exclusive with passwordPolicy" });
    const length = known(v.length) ? (v.length as number) : 64;
    if (known(v.formatter) && typeof v.formatter === "string" && v.formatter !== "" && v.formatter.length - PLACEHOLDER.length >= length) {
      ctx.addIssue({ code: "custom", path: ["formatter"], message: `leaves no room for the password within length ${length}` });
    }
  // Runs even when a field failed, so every problem is reported at once.
  }), CROSS_FIELD);
}

const params = (p: { mount?: string }) => ({ mount: p.mount ?? DEFAULT_DIRECTORY_MOUNT });

/** The write body; `withBindpass` only on create and when the program's bind password changed. */
function body(p: DirectoryConfigState, withBindpass: boolean): Record<string, unknown> {
  const b: Record<string, unknown> = {};
  for (const [k, param] of Object.entries(FIELDS)) if (p[k] !== undefined) b[param] = p[k];
  if (p.passwordPolicy) b.password_policy = p.passwordPolicy;
  else {
    b.length = p.length ?? 64;
    b.formatter = p.formatter ?? "";
  }
  if (withBindpass) {
    registerSecret(p.bindpass);
    b.bindpass = p.bindpass;
  }
  return b;
}

export function configInfo(d: Record<string, unknown>, mountPath: string): DirectoryConfigInfo {
  const s = (k: string) => String(d[k] ?? "");
  const n = (k: string) => Number(d[k] ?? 0);
  return {
    mount: mountPath, binddn: s("binddn"), url: s("url"), userdn: s("userdn"), upndomain: s("upndomain"), certificate: s("certificate"),
    insecureTls: d.insecure_tls === true, starttls: d.starttls === true, tlsMinVersion: s("tls_min_version"), tlsMaxVersion: s("tls_max_version"),
    ttl: n("ttl"), maxTtl: n("max_ttl"), passwordPolicy: s("password_policy"), length: n("length"), formatter: s("formatter"),
    connectionTimeout: n("connection_timeout"), requestTimeout: n("request_timeout"), lastRotationTolerance: n("last_rotation_tolerance"),
  };
}

/** Every config field → its service parameter, the password rules included. */
const READ_FIELDS: Record<string, string> = { ...FIELDS, passwordPolicy: "password_policy", length: "length", formatter: "formatter" };

/**
 * Server data → state: the inputs' property names, durations in the user's form when equal. The
 * seed's GET /config lists neither the timeouts, the tolerance, nor password_policy and formatter:
 * a field the read leaves out keeps the value recorded in state (the service has it as written),
 * instead of reading as 0 or "" and showing an update on every up.
 */
function fromData(d: Record<string, unknown>, p: DirectoryConfigState): DirectoryConfigState {
  const info = configInfo(d, p.mount ?? DEFAULT_DIRECTORY_MOUNT);
  const out: DirectoryConfigState = { ...info, bindpass: p.bindpass };
  for (const k of DURATIONS) out[k] = keepForm(p[k], info[k as keyof DirectoryConfigInfo]);
  for (const [k, param] of Object.entries(READ_FIELDS)) if (!present(d, param)) out[k] = p[k];
  // Length is in state only when the program sets it (the service always answers one).
  if (p.length === undefined) delete out.length;
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
}

async function readConfig(ctx: Context, p: DirectoryConfigState): Promise<DirectoryConfigState | undefined> {
  const data = await fetchData(ctx, R.configRead, params(p));
  return data ? fromData(data, p) : undefined;
}

export const directoryConfigDefinition: ResourceDefinition<DirectoryConfigState, DirectoryConfigState> = {
  kind: "secrets:DirectoryConfig",
  schema: () => (schema ??= buildSchema()),
  defaults: {
    mount: DEFAULT_DIRECTORY_MOUNT, url: "ldap://127.0.0.1", userdn: "", upndomain: "", certificate: "", insecureTls: false, starttls: false,
    tlsMinVersion: "tls12", tlsMaxVersion: "tls13", ttl: 0, maxTtl: 0, passwordPolicy: "", formatter: "", connectionTimeout: 30,
    requestTimeout: 90, lastRotationTolerance: 5,
  },
  immutable: ["mount"],
  identity: ["mount"],
  secrets: ["bindpass"],
  writeOnly: ["bindpass"],
  local: ["adopt"],
  outputs: [],
  async create(ctx, inputs) {
    const p = params(inputs);
    const id = pathOf(R.configRead, p);
    if (!inputs.adopt && (await fetchData(ctx, R.configRead, p))) throw alreadyExists("POST", id, "directory config");
    await writeNew(ctx, () => ctx.client("secrets").request({ route: R.configWrite, params: p, body: body(inputs, true), retry: "safe" }), R.configRead, p);
    return { id, outs: await readBack(id, inputs, () => readConfig(ctx, inputs)) };
  },
  read: (ctx, _id, props) => readConfig(ctx, props),
  async update(ctx, id, olds, news) {
    // The service may hold a newer bind password than the program (rotate-root): only a change is sent.
    const changed = news.bindpass !== olds.bindpass;
    await ctx.client("secrets").request({ route: R.configWrite, params: params(news), body: body(news, changed), retry: "safe" });
    return readBack(id, news, () => readConfig(ctx, news));
  },
  async delete(ctx, _id, props) {
    await ctx.client("secrets").request({ route: R.configDelete, params: params(props) });
  },
};

export interface DirectoryConfigArgs extends ConnectionArgs<"secrets"> {
  /** Mount path of the directory engine. Default `directory`. Changing it replaces the config. */
  mount?: pulumi.Input<string>;
  /** Distinguished name the service binds with (use a fully qualified DN, so root rotation finds one entry). */
  binddn: pulumi.Input<string>;
  /**
   * Password of `binddn`. Secret and write-only: never read back, kept secret in state, and sent
   * only when you change it here, because after {@link rotateRoot} the service holds a newer one.
   */
  bindpass: pulumi.Input<string>;
  /** LDAP URL, or a comma-separated list tried in order on connection errors. Default `ldap://127.0.0.1`. */
  url?: pulumi.Input<string>;
  /** Base DN for user (service account) searches. */
  userdn?: pulumi.Input<string>;
  /** Domain for the login name `<binddn>@<upndomain>`. */
  upndomain?: pulumi.Input<string>;
  /** x509 PEM CA certificate to verify the server with. */
  certificate?: pulumi.Input<string>;
  /** Skip verification of the server's certificate. Default false. */
  insecureTls?: pulumi.Input<boolean>;
  /** Issue StartTLS after an unencrypted connection. Default false. */
  starttls?: pulumi.Input<boolean>;
  /** Lowest TLS version: tls10, tls11, tls12 (default) or tls13. */
  tlsMinVersion?: pulumi.Input<string>;
  /** Highest TLS version: tls10 … tls13 (default). */
  tlsMaxVersion?: pulumi.Input<string>;
  /** Default password lifetime of roles: seconds or duration text ("24h"). Default 0 (the service's own). */
  ttl?: pulumi.Input<number | string>;
  /** Largest ttl a role may set: seconds or duration text. Default 0 (no limit). */
  maxTtl?: pulumi.Input<number | string>;
  /** Name of a password policy; excludes `length` and `formatter`. */
  passwordPolicy?: pulumi.Input<string>;
  /** Deprecated by the service: generated password length, at least 14; default 64. */
  length?: pulumi.Input<number>;
  /** Deprecated by the service: password template containing `{{PASSWORD}}` exactly once. */
  formatter?: pulumi.Input<string>;
  /** Seconds or duration text before trying the next URL. Default 30. */
  connectionTimeout?: pulumi.Input<number | string>;
  /** Seconds or duration text per directory request. Default 90. */
  requestTimeout?: pulumi.Input<number | string>;
  /** How far the directory's last-set time may be from the service's own rotation time. Default 5 seconds. */
  lastRotationTolerance?: pulumi.Input<number | string>;
  /** Take over a config that already exists on the mount instead of failing. */
  adopt?: pulumi.Input<boolean>;
}

/**
 * The directory engine's connection to the directory: `/{mount}/config`.
 *
 * @example
 * ```ts
 * const cfg = new svc.secrets.directory.Config("ldap", {
 *   binddn: "cn=vault,ou=services,dc=example,dc=org",
 *   bindpass: config.requireSecret("bindpass"),
 *   url: "ldaps://ldap.example.org",
 *   userdn: "ou=users,dc=example,dc=org",
 *   ttl: "24h",
 * });
 * ```
 */
export class Config extends SvcResource {
  /** Mount path of the engine. */
  declare readonly mount: pulumi.Output<string>;
  /** Bind DN. */
  declare readonly binddn: pulumi.Output<string>;
  /** Secret; your input, never read from the service. */
  declare readonly bindpass: pulumi.Output<string>;
  /** LDAP URL(s). */
  declare readonly url: pulumi.Output<string>;
  /** Base DN for user searches. */
  declare readonly userdn: pulumi.Output<string>;
  /** UPN domain. */
  declare readonly upndomain: pulumi.Output<string>;
  /** CA certificate. */
  declare readonly certificate: pulumi.Output<string>;
  /** Whether certificate verification is skipped. */
  declare readonly insecureTls: pulumi.Output<boolean>;
  /** Whether StartTLS is used. */
  declare readonly starttls: pulumi.Output<boolean>;
  /** Lowest TLS version. */
  declare readonly tlsMinVersion: pulumi.Output<string>;
  /** Highest TLS version. */
  declare readonly tlsMaxVersion: pulumi.Output<string>;
  /** Default password lifetime, in your form when unchanged. */
  declare readonly ttl: pulumi.Output<number | string>;
  /** Largest role ttl. */
  declare readonly maxTtl: pulumi.Output<number | string>;
  /** Password policy name, or "". */
  declare readonly passwordPolicy: pulumi.Output<string>;
  /** Password length, when you set it. */
  declare readonly length: pulumi.Output<number | undefined>;
  /** Password template, or "". */
  declare readonly formatter: pulumi.Output<string>;
  /** Connection timeout. */
  declare readonly connectionTimeout: pulumi.Output<number | string>;
  /** Request timeout. */
  declare readonly requestTimeout: pulumi.Output<number | string>;
  /** Last-rotation tolerance. */
  declare readonly lastRotationTolerance: pulumi.Output<number | string>;

  constructor(name: string, args: DirectoryConfigArgs, opts?: pulumi.CustomResourceOptions) {
    super(directoryConfigDefinition, name, args, opts);
  }
}

// ---- functions ----

export interface MountArgs {
  /** Mount path of the directory engine. Default `directory`. */
  mount?: string;
}

let mountSchema: z.ZodType | undefined;
/** @internal zod types stay out of the public declarations. */
export const mountOnly = () => (mountSchema ??= z.object({ mount: mount().optional() }));

const getConfigFn: FunctionDefinition<MountArgs, DirectoryConfigInfo> = {
  name: "getConfig",
  schema: mountOnly,
  sideEffects: false,
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: R.configRead, params: params(args) });
    return configInfo((res.body as { data?: Record<string, unknown> }).data ?? {}, args.mount ?? DEFAULT_DIRECTORY_MOUNT);
  },
};

/** Reads the directory engine's config (the bind password is never returned). */
export function getConfig(args: MountArgs = {}, opts?: SvcInvokeOptions<"secrets">): Promise<DirectoryConfigInfo> {
  return invoke(getConfigFn, args, opts);
}

/** Output form of {@link getConfig}. */
export function getConfigOutput(args: InputsOf<MountArgs> = {}, opts?: SvcInvokeOutputOptions<"secrets">): pulumi.Output<DirectoryConfigInfo> {
  return invokeOutput(getConfigFn, args, opts);
}
