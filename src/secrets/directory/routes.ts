/**
 * Every endpoint of the directory engine, as data: `"METHOD /path/{param}"` relative to the secrets
 * service's `/v1`, grouped by API object (seed 002, "Endpoints"). The only place in
 * src/secrets/directory where a route is written.
 */
import { redact } from "../../http/redact";
export const DIRECTORY_ROUTES = {
  /** Directory configuration, seed 002 "Endpoints › Directory engine (prefix {directory_mount})". */
  config: {
    write: "POST /{mount}/config",
    read: "GET /{mount}/config",
    delete: "DELETE /{mount}/config",
  },
  /** Role (static role and its credentials), seed 002 "Endpoints › Directory engine (prefix {directory_mount})". */
  role: {
    write: "POST /{mount}/roles/{name}",
    read: "GET /{mount}/roles/{name}",
    delete: "DELETE /{mount}/roles/{name}",
    list: "LIST /{mount}/roles",
    creds: "GET /{mount}/creds/{name}",
  },
  /** Library set and its lending (check-out, check-in, status), seed 002 "Endpoints › Directory engine (prefix {directory_mount})". */
  librarySet: {
    write: "POST /{mount}/library/{name}",
    read: "GET /{mount}/library/{name}",
    delete: "DELETE /{mount}/library/{name}",
    list: "LIST /{mount}/library",
    checkOut: "POST /{mount}/library/{name}/check-out",
    checkIn: "POST /{mount}/library/{name}/check-in",
    manageCheckIn: "POST /{mount}/library/manage/{name}/check-in",
    status: "GET /{mount}/library/{name}/status",
  },
  /** Rotation of the root and of a role's password, seed 002 "Endpoints › Directory engine (prefix {directory_mount})". */
  rotate: {
    root: "POST /{mount}/rotate-root",
    role: "POST /{mount}/rotate-role/{name}",
  },
} as const;

/** Where the directory engine is mounted unless a `mount` input says otherwise. */
export const DEFAULT_DIRECTORY_MOUNT = "directory";

/** Warnings of a 200 answer (rotation already in progress), for the Pulumi log: the server's text, redacted. */
export function warningsOf(body: unknown): string[] {
  const w = (body as { warnings?: unknown } | undefined)?.warnings;
  return Array.isArray(w) ? w.map((x) => redact(String(x))) : [];
}

/** Writes a warning to the Pulumi log of the running program (stderr outside one). */
export function warn(message: string): void {
  try {
    const pulumi: typeof import("@pulumi/pulumi") = require("@pulumi/pulumi");
    pulumi.log.warn(`pulumi-svc: ${message}`);
  } catch {
    process.stderr.write(`pulumi-svc: warning: ${message}\n`);
  }
}
