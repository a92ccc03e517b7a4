import { randomUUID } from "node:crypto";
import { jsonReply, type Reply } from "../transport/http";

/** The response envelope every successful read of the secrets service carries; request_id is always a fresh UUID. */
export function dataReply(data: unknown, warnings: string[] | null = null): Reply {
  return leasedReply(data, { lease_id: "", renewable: false, lease_duration: 0 }, warnings);
}

/** The envelope of a read that hands out a lease (credentials with a lifetime). */
export function leasedReply(data: unknown, lease: { lease_id: string; renewable: boolean; lease_duration: number }, warnings: string[] | null = null): Reply {
  return jsonReply(200, { request_id: randomUUID(), ...lease, data, wrap_info: null, warnings, auth: null });
}

export function secretsError(status: number, ...messages: string[]): Reply {
  return jsonReply(status, { errors: messages });
}

/** An empty list is a 404 with no messages, as in the real-world equivalent. */
export function listReply(keys: string[]): Reply {
  return keys.length === 0 ? secretsError(404) : dataReply({ keys: [...keys].sort() });
}

export function noHandler(path: string): Reply {
  return secretsError(404, `no handler for route "${path}"`);
}

export const permissionDenied = (): Reply => secretsError(403, "permission denied");
export const unsupportedOperation = (): Reply => secretsError(405, "unsupported operation");
