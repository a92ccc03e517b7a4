/**
 * An activation token for one secondary: `sys/replication/performance/primary/secondary-token`.
 * Deleting it revokes the secondary (`revoke-secondary`), which disconnects it at once.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "../../core/zod";
import type { ConnectionArgs } from "../../core/connection";
import type { ResourceDefinition } from "../../core/definition";
import { field, fieldSet, output, pick, type ArgsOf, type OutputsOf, type PlainArgsOf, type StateOf } from "../../core/fields";
import { forms } from "../../core/forms";
import { registration, SvcResource } from "../../core/resource";
import { isUnknown } from "../../core/unknown";
import { duration } from "../duration";
import { actingFunction } from "./status";
import { REPLICATION_ROUTES as R } from "./routes";

/** A secondary id: an opaque name, unique on its primary. @internal */
export const secondaryId = () => z.string({ error: "must be a string" }).min(1, "must not be empty");

// A token is made once: any change of an input issues a new one. Keeping the id deletes first,
// because the primary refuses a second token for an id whose secondary is still registered.
export const secondaryTokenFields = {
  /**
   * The secondary's id on the primary (the service's `id`: `id` itself is reserved by Pulumi), the
   * id its token is issued for. Unique per primary. Changing it issues a token for the new id and
   * revokes the old one.
   */
  secondaryId: field(secondaryId, { identity: true }),
  /** How long the token can be used: seconds or duration text. Default `30m`. Changing it issues a new token. */
  ttl: field(() => duration().refine((v) => isUnknown(v) || v !== 0, "must be longer than 0"), { optional: true, immutable: true }),
  /**
   * The secondary's public key from {@link generateSecondaryPublicKey}: the credentials then come
   * encrypted to it instead of response-wrapped, so the secondary needs no call to the primary to
   * unwrap them. Changing it issues a new token.
   */
  secondaryPublicKey: field(() => z.string({ error: "must be a string" }).regex(/^[A-Za-z0-9+/]+={0,2}$/, "must be the base64 public key from generateSecondaryPublicKey"),
    { optional: true, immutable: true }),
  /** The activation token (secret): response-wrapped, or encrypted to `secondaryPublicKey`. Give it to a {@link PerformanceSecondary}. */
  token: output<string>({ secret: true }),
  /** When the token was issued. */
  creationTime: output<string>(),
  /** Accessor of the wrapped credentials ("" when encrypted to a public key). */
  wrappedAccessor: output<string>(),
};

export type SecondaryTokenState = StateOf<typeof secondaryTokenFields>;

export const secondaryTokenDefinition: ResourceDefinition<SecondaryTokenState, SecondaryTokenState> = {
  kind: "secrets:ReplicationSecondaryToken",
  routes: { create: R.secondaryToken.create, revoke: R.secondaryToken.revoke },
  discover: { none: "a secondary token is used once, by the activation it was made for, and cannot be read back" },
  unreadable: "a secondary token is issued once, to the stack that asks for it, and the service keeps nothing of it to read",
  ...fieldSet(secondaryTokenFields),
  async create(_ctx, inputs) {
    const body: Record<string, unknown> = { id: inputs.secondaryId };
    if (inputs.ttl !== undefined) body.ttl = inputs.ttl;
    if (inputs.secondaryPublicKey) body.secondary_public_key = inputs.secondaryPublicKey;
    const res = await _ctx.client("secrets").request({ route: R.secondaryToken.create, body });
    const b = (res.body ?? {}) as { data?: { token?: unknown } | null; wrap_info?: { token?: unknown; creation_time?: unknown; wrapped_accessor?: unknown } | null };
    const token = String(b.wrap_info?.token ?? b.data?.token ?? "");
    if (token === "") throw new Error("secondary-token answered without a token");
    const outs: SecondaryTokenState = {
      secondaryId: inputs.secondaryId,
      token,
      creationTime: String(b.wrap_info?.creation_time ?? new Date().toISOString()),
      wrappedAccessor: String(b.wrap_info?.wrapped_accessor ?? ""),
    };
    if (inputs.ttl !== undefined) outs.ttl = inputs.ttl;
    if (inputs.secondaryPublicKey !== undefined) outs.secondaryPublicKey = inputs.secondaryPublicKey;
    return { id: inputs.secondaryId, outs };
  },
  // No endpoint shows an issued token (used or not): refresh keeps what create recorded.
  read: async (_ctx, _id, props) => props,
  update: async (_ctx, _id, olds, news) => ({ ...olds, ...news, token: olds.token }),
  async delete(ctx, _id, props) {
    await ctx.client("secrets").request({ route: R.secondaryToken.revoke, body: { id: props.secondaryId } });
  },
};

export type SecondaryTokenArgs = ArgsOf<typeof secondaryTokenFields> & ConnectionArgs<"secrets">;

/**
 * An activation token for a performance secondary, issued by the primary of the connection. The
 * token is a secret output; give it to a {@link PerformanceSecondary}. Deleting the resource revokes
 * the secondary, which disconnects it until it is given a new token. Needs a sudo token.
 * `sys/replication/performance/primary/secondary-token` on the primary.
 *
 * @remarks
 * No endpoint shows issued tokens, so refresh keeps what create recorded. A replacement for a new
 * `secondaryId` issues the new token first; any other change keeps the id and revokes first (the
 * primary refuses a second token for an id in use).
 *
 * @example
 * ```ts
 * const token = new svc.secrets.replication.SecondaryToken("west", { secondaryId: "west", connection: east }, { dependsOn: [primary] });
 * ```
 */
export interface SecondaryToken extends OutputsOf<typeof secondaryTokenFields> {}
export class SecondaryToken extends SvcResource(secondaryTokenDefinition) { constructor(name: string, args: SecondaryTokenArgs, opts?: pulumi.CustomResourceOptions) { super(...registration(new.target, name, args, opts)); } }

// ---- functions ----

const revokeFields = pick(secondaryTokenFields, "secondaryId");

/** Arguments of {@link revokeSecondary}: the secondary's id. */
export type RevokeSecondaryArgs = PlainArgsOf<typeof revokeFields>;

const revokeFn = actingFunction<RevokeSecondaryArgs>({ name: "revokeSecondary", fields: revokeFields }, R.secondaryToken.revoke, (args) => ({ id: args.secondaryId }));

/**
 * Revokes a secondary on the primary of the connection: it is disconnected at once, until it is
 * given a new token (update-primary). No request during preview. Resolves to the primary's status.
 */
export const revokeSecondary = forms(revokeFn).promise;

/** Output form of {@link revokeSecondary}: unknown during preview. */
export const revokeSecondaryOutput = forms(revokeFn).output;
