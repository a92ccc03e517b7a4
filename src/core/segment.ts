import { z } from "./zod";
import { isUnknown } from "./unknown";

/**
 * Longest value of a path segment, in UTF-8 bytes: the name limit of common filesystems (NAME_MAX)
 * and of most servers' object names. A few such segments keep a request line far below the limits
 * met on the way to a server (8 KiB per request line for nginx and Apache, 16 KiB of request line
 * and headers together for Node's http server), which answer a longer one with 414 or 431.
 */
export const MAX_SEGMENT_BYTES = 255;

/** UTF-8 length, without encoding when the UTF-16 length already decides it (3 bytes per unit at most). */
export function utf8Length(value: string, limit: number): number {
  return value.length * 3 <= limit ? value.length : Buffer.byteLength(value, "utf8");
}

/**
 * What a value must be to become one segment of a request path. The request layer would refuse
 * (or URL parsing would re-route) the rest at `up`; check refuses it at preview, naming the field.
 */
export function segmentProblem(value: string): string | undefined {
  if (value === "") return "must not be empty";
  const bytes = utf8Length(value, MAX_SEGMENT_BYTES);
  if (bytes > MAX_SEGMENT_BYTES) return `must be at most ${MAX_SEGMENT_BYTES} bytes (a path segment); got ${bytes}`;
  if (value.trim() === "") return "must not be only whitespace";
  if (value === "." || value === "..") return `must not be "${value}": it would address another path`;
  const bad = /[/?#%\\]/.exec(value);
  if (bad) return `must not contain ${bad[0]} (it becomes a path segment)`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return "must not contain control characters";
  if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value)) return "must not contain a lone UTF-16 surrogate";
  return undefined;
}

/** @internal A string that becomes one path segment (zod types stay out of public declarations). */
export const segment = () =>
  z.string({ error: "must be a string" }).superRefine((v, ctx) => {
    if (isUnknown(v)) return;
    const problem = segmentProblem(v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });
