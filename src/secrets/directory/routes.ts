/** Every endpoint of the directory engine, as data. */
export const DIRECTORY_ROUTES = {
  configWrite: "POST /{mount}/config",
  configRead: "GET /{mount}/config",
  configDelete: "DELETE /{mount}/config",
  roleWrite: "POST /{mount}/roles/{name}",
  roleRead: "GET /{mount}/roles/{name}",
  roleDelete: "DELETE /{mount}/roles/{name}",
  roleList: "LIST /{mount}/roles",
  creds: "GET /{mount}/creds/{name}",
  setWrite: "POST /{mount}/library/{name}",
  setRead: "GET /{mount}/library/{name}",
  setDelete: "DELETE /{mount}/library/{name}",
  setList: "LIST /{mount}/library",
  checkOut: "POST /{mount}/library/{name}/check-out",
  checkIn: "POST /{mount}/library/{name}/check-in",
  manageCheckIn: "POST /{mount}/library/manage/{name}/check-in",
  status: "GET /{mount}/library/{name}/status",
  rotateRoot: "POST /{mount}/rotate-root",
  rotateRole: "POST /{mount}/rotate-role/{name}",
} as const;

/** Where the directory engine is mounted unless a `mount` input says otherwise. */
export const DEFAULT_DIRECTORY_MOUNT = "directory";

/** Warnings of a 200 answer (rotation already in progress), for the Pulumi log. */
export function warningsOf(body: unknown): string[] {
  const w = (body as { warnings?: unknown } | undefined)?.warnings;
  return Array.isArray(w) ? w.map(String) : [];
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
