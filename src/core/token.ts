/**
 * A kind's type token and back: `secrets:TransformRole` is registered as
 * `pulumi-nodejs:dynamic/secrets:TransformRole`, the SDK's package for dynamic resources, then the
 * service as module and the kind as type (so previews in pull requests read well). Everything that
 * reads a token (a review, a recovery, a message naming a resource) reads it here, beside the one
 * function that writes it, so the two cannot drift; and so does everything that reads a kind.
 */

import type { Service } from "../http";

/** What the SDK puts before the module of every dynamic resource's token. */
const DYNAMIC = "pulumi-nodejs:dynamic/";

/** A kind of this package: a service's module, then the kind's name. */
const KIND = /^(runs|secrets):\w+$/;

/** The type token of a kind (`secrets:TransformRole` → `pulumi-nodejs:dynamic/secrets:TransformRole`). */
export function typeToken(kind: string): string {
  return `${DYNAMIC}${kind}`;
}

/** A token as a message names it: a dynamic resource's without the SDK's part, any other as it is. */
export function shortToken(token: string): string {
  return token.startsWith(DYNAMIC) ? token.slice(DYNAMIC.length) : token;
}

/** The kind of this package a token names (`secrets:TransformRole`); undefined for any other token. */
export function kindOfToken(token: string): string | undefined {
  const kind = shortToken(token);
  return kind !== token && KIND.test(kind) ? kind : undefined;
}

/** The service whose object a kind is (`secrets` of `secrets:TransformRole`). */
export function serviceOfKind(kind: string): Service {
  return kind.slice(0, kind.indexOf(":")) as Service;
}

/** A kind without its service, as messages name its objects (`TransformRole` of `secrets:TransformRole`). */
export function kindName(kind: string): string {
  return kind.slice(kind.indexOf(":") + 1);
}

/** The package of a type token (`aws` of `aws:s3/bucket:Bucket`), or the token itself when it has none. */
export function tokenPackage(token: string): string {
  return token.split(":")[0] || token;
}
