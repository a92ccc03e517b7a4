/**
 * The directory engine's connection: `/{mount}/config`. One per mount. `bindpass` is write-only
 * and sent only when it changed in the program: after a rotate-root the service holds a newer
 * password, and re-sending the old one with an unrelated change would break the bind.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import type { z as Zod } from "zod";
import type { Context, ResourceDefinition } from "../../core/definition";
import { field, fieldSet, type ArgsOf, type OutputsOf, type ReportedOf, type StateOf } from "../../core/fields";
import { type FunctionDefinition } from "../../core/fn";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { isUnknown } from "../../core/unknown";
import { duration, sameForm, type Duration } from "../duration";
import { adopt } from "../fields";
import { alreadyExists, fetchData, pathOf, readBack, readDecoded, writeNew } from "../pathObject";
import { mountField, type MountArgs } from "./fields";
import { DEFAULT_DIRECTORY_MOUNT, DIRECTORY_ROUTES as R } from "./routes";
import type { ConnectionArgs } from "../../core/connection";

export type { MountArgs } from "./fields";

const PLACEHOLDER = "{{PASSWORD}}";
const TLS_VERSIONS = ["tls10", "tls11", "tls12", "tls13"] as const;

const text = () => z.string({ error: "must be a string" });
// Typed as a string, as the Args always were: a program may pass any string it computed.
const tlsVersion = (): Zod.ZodType<string> => z.enum(TLS_VERSIONS, { error: `must be one of ${TLS_VERSIONS.join(", ")}` });

const directoryConfigFieldsOwn = {
  /** Distinguished name the service binds with (use a fully qualified DN, so root rotation finds one entry). */
  binddn: field(() => text().min(1, "must not be empty: the distinguished name the service binds with")),
  /**
   * Password of `binddn`. Secret and write-only: never read back, kept secret in state (your input),
   * and sent only when you change it here, because after {@link rotateRoot} the service holds a newer one.
   */
  bindpass: field(() => text().min(1, "must not be empty"), { secret: true, writeOnly: true, notInBody: true }),
  /** LDAP URL, or a comma-separated list tried in order on connection errors. Default `ldap://127.0.0.1`. */
  url: field(() => text().refine((v) => isUnknown(v) || v.split(",").every((u) => /^ldaps?:\/\/[^/\s,]+\/?$/.test(u.trim())),
    "must be ldap://host[:port] or ldaps://host[:port], or a comma-separated list of them"), { default: "ldap://127.0.0.1" }),
  /** Base DN for user (service account) searches; empty when unset. */
  userdn: field(text, { default: "" }),
  /** Domain for the login name `<binddn>@<upndomain>`; empty when unset. */
  upndomain: field(text, { default: "" }),
  /** x509 PEM CA certificate to verify the server with; empty when unset. */
  certificate: field(() => text().refine((v) => isUnknown(v) || v === "" || v.includes("-----BEGIN CERTIFICATE-----"), "must be an x509 PEM CA certificate"),
    { default: "" }),
  /** Skip verification of the server's certificate. Default false. */
  insecureTls: field(() => z.boolean({ error: "must be a boolean" }), { default: false }),
  /** Issue StartTLS after an unencrypted connection. Default false. */
  starttls: field(() => z.boolean({ error: "must be a boolean" }), { default: false }),
  /** Lowest TLS version: tls10, tls11, tls12 (default) or tls13. */
  tlsMinVersion: field(tlsVersion, { default: "tls12" }),
  /** Highest TLS version: tls10 … tls13 (default). */
  tlsMaxVersion: field(tlsVersion, { default: "tls13" }),
  /**
   * Default password lifetime of roles: seconds or duration text ("24h"), kept in your form while the
   * service holds the same seconds ({@link getConfig} reports seconds). Default 0 (the service's own).
   */
  ttl: field(duration, { default: 0, decode: sameForm }),
  /** Largest ttl a role may set: seconds or duration text, kept in your form like `ttl`. Default 0 (no limit). */
  maxTtl: field(duration, { default: 0, decode: sameForm }),
  /** Name of a password policy, or "" (the default); excludes `length` and `formatter`. */
  passwordPolicy: field(text, { default: "", notInBody: true }),
  /**
   * Deprecated by the service: generated password length, at least 14; default 64. In state only when
   * you set it; {@link getConfig} reports the service's.
   */
  length: field(() => z.number({ error: "must be a number" }).int("must be an integer").min(14, "must be at least 14"), {
    optional: true, notInBody: true, decode: (v: unknown) => Number(v),
  }),
  /** Deprecated by the service: password template containing `{{PASSWORD}}` exactly once, or "" (the default). */
  formatter: field(() => text().refine((v) => isUnknown(v) || v === "" || v.split(PLACEHOLDER).length === 2, `must contain ${PLACEHOLDER} exactly once`),
    { default: "", notInBody: true }),
  /** Seconds or duration text to wait for a connection before trying the next URL, kept in your form like `ttl`. Default 30. */
  connectionTimeout: field(duration, { default: 30, decode: sameForm }),
  /** Seconds or duration text to wait for each directory request, kept in your form like `ttl`. Default 90. */
  requestTimeout: field(duration, { default: 90, decode: sameForm }),
  /**
   * How far the directory's last-set time may be from the service's own rotation time for the service
   * to count itself the last rotator: seconds or duration text, kept in your form like `ttl`. Default 5.
   */
  lastRotationTolerance: field(duration, { default: 5, decode: sameForm }),
  /** Take over a config that already exists on the mount instead of failing. */
  adopt: field(adopt, { local: true }),
};

export const directoryConfigFields: typeof mountField & typeof directoryConfigFieldsOwn = { ...mountField, ...directoryConfigFieldsOwn };

const known = (v: unknown) => v !== undefined && !isUnknown(v);

const configSet = fieldSet(directoryConfigFields, {
  // Runs even when a field failed, so every problem is reported at once.
  refine(v, ctx) {
    const policy = known(v.passwordPolicy) && v.passwordPolicy !== "";
    if (policy && known(v.length)) ctx.addIssue({ code: "custom", path: ["length"], message: "is mutually exclusive with passwordPolicy" });
    if (policy && known(v.formatter) && v.formatter !== "") ctx.addIssue({ code: "custom", path: ["formatter"], message: "is mutually exclusive with passwordPolicy" });
    const length = known(v.length) ? (v.length as number) : 64;
    if (known(v.formatter) && typeof v.formatter === "string" && v.formatter !== "" && v.formatter.length - PLACEHOLDER.length >= length) {
      ctx.addIssue({ code: "custom", path: ["formatter"], message: `leaves no room for the password within length ${length}` });
    }
  },
});

export type DirectoryConfigState = StateOf<typeof directoryConfigFields>;

/** A read result's durations as the service reports them: seconds. */
type InSeconds<T> = { [K in keyof T]: [Duration] extends [T[K]] ? number : T[K] };

/** The config as the service reports it (never the bind password), durations in seconds. */
export interface DirectoryConfigInfo extends InSeconds<ReportedOf<typeof directoryConfigFields>> {}

const params = (p: { mount?: string }) => ({ mount: p.mount ?? DEFAULT_DIRECTORY_MOUNT });

// The mount is the path. The record's body leaves out the bind password (it goes only with a
// change) and the password rules (one group: a policy, or length and formatter).

/** The write body; `withBindpass` only on create and when the program's bind password changed. */
function body(p: DirectoryConfigState, withBindpass: boolean): Record<string, unknown> {
  const b = configSet.body(p, ["mount"]);
  if (p.passwordPolicy) b.password_policy = p.passwordPolicy;
  else {
    b.length = p.length ?? 64;
    b.formatter = p.formatter ?? "";
  }
  if (withBindpass) b.bindpass = p.bindpass;
  return b;
}

/** The config as `getConfig` answers it: a field the service leaves out reads as its default. */
export function configInfo(d: Record<string, unknown>, mountPath: string): DirectoryConfigInfo {
  return configSet.decode(d, { mount: mountPath }) as DirectoryConfigInfo;
}

/**
 * Server data → state: the inputs' property names, durations in the user's form when equal. The
 * seed's GET /config lists neither the timeouts, the tolerance, nor password_policy and formatter:
 * a field the read leaves out keeps the value recorded in state (the service has it as written),
 * instead of reading as 0 or "" and showing an update on every up.
 */
function fromData(d: Record<string, unknown>, p: DirectoryConfigState): DirectoryConfigState {
  const out = configSet.decode(d, p) as DirectoryConfigState;
  // Length is in state only when the program sets it (the service always answers one).
  if (p.length === undefined) delete out.length;
  return out;
}

const readConfig = (ctx: Context, p: DirectoryConfigState) => readDecoded(ctx, R.config.read, params(p), (data) => fromData(data, p));

export const directoryConfigDefinition: ResourceDefinition<DirectoryConfigState, DirectoryConfigState> = {
  kind: "secrets:DirectoryConfig",
  routes: R.config,
  path: { route: R.config.read },
  discover: {},
  risk: {
    lost: "the service forgets the directory, and the mount's roles, library sets and check-outs stop working",
    changes: {
      bindpass: "the service binds with the new password, so until the directory accepts it the service loses its bind and every rotation and check-out fails",
      url: "the service binds to the new URL, and a directory there that does not know the bind account loses the service its bind",
    },
    instead: "change the bind password on the directory first (or let the service rotate it); `protect: true` on the config",
  },
  ...configSet,
  async create(ctx, inputs) {
    const p = params(inputs);
    const id = pathOf(R.config.read, p);
    if (!inputs.adopt && (await fetchData(ctx, R.config.read, p))) throw alreadyExists("POST", id, "directory config");
    await writeNew(ctx, () => ctx.client("secrets").request({ route: R.config.write, params: p, body: body(inputs, true), retry: "safe" }), R.config.read, p);
    return { id, outs: await readBack(id, inputs, () => readConfig(ctx, inputs)) };
  },
  read: (ctx, _id, props) => readConfig(ctx, props),
  async update(ctx, id, olds, news) {
    // The service may hold a newer bind password than the program (rotate-root): only a change is sent.
    const changed = news.bindpass !== olds.bindpass;
    await ctx.client("secrets").request({ route: R.config.write, params: params(news), body: body(news, changed), retry: "safe" });
    return readBack(id, news, () => readConfig(ctx, news));
  },
  async delete(ctx, _id, props) {
    await ctx.client("secrets").request({ route: R.config.delete, params: params(props) });
  },
};

export type DirectoryConfigArgs = ArgsOf<typeof directoryConfigFields> & ConnectionArgs<"secrets">;

/**
 * The directory engine's connection to the directory: `/{mount}/config`, one per mount (default
 * mount `directory`).
 *
 * @remarks
 * Reads never return the bind password. The seed's `GET config` lists neither the timeouts,
 * `lastRotationTolerance`, `passwordPolicy` nor `formatter`: a field the service leaves out of its
 * read keeps the value recorded in state (so a refresh cannot see a change made to it elsewhere, and
 * an unchanged program shows no diff); `getConfig` reports such a field as its default. Delete
 * removes the config (roles and sets stay).
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
export interface Config extends OutputsOf<typeof directoryConfigFields> {}
export class Config extends SvcResource(directoryConfigDefinition) { constructor(name: string, args: DirectoryConfigArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

const getConfigFn: FunctionDefinition<MountArgs, DirectoryConfigInfo> = { name: "getConfig", fields: mountField, sideEffects: false,
  async run(ctx, args) {
    const res = await ctx.client("secrets").request({ route: R.config.read, params: params(args) });
    return configInfo((res.body as { data?: Record<string, unknown> }).data ?? {}, args.mount ?? DEFAULT_DIRECTORY_MOUNT);
  },
};

/** Reads the directory engine's config, durations in seconds (the bind password is never returned). */
export const getConfig = forms(getConfigFn, { argsOptional: true }).promise;

/** Output form of {@link getConfig}. */
export const getConfigOutput = forms(getConfigFn, { argsOptional: true }).output;
