import { jsonReply, parseJson, type Incoming, type Reply } from "../http";
import { isRecord } from "../util";

/** Control endpoints answer errors as `{"error": message}`, like the rest of /_emulator. */
export const fail = (status: number, error: string): Reply => jsonReply(status, { error });

export type Body = { ok: true; value: Record<string, unknown> } | { ok: false; reply: Reply };

/** A JSON object body (empty means `{}`), or the 400 to answer. */
export function objectBody(req: Incoming): Body {
  const parsed = parseJson(req.body);
  if (!parsed.ok) return { ok: false, reply: fail(400, `invalid JSON: ${parsed.error}`) };
  const value = parsed.value ?? {};
  return isRecord(value) ? { ok: true, value } : { ok: false, reply: fail(400, "body must be a JSON object") };
}
