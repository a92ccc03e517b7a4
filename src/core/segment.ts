import { z } from "zod";
import { isUnknown } from "./unknown";

/**
 * What a value must be to become one segment of a request path. The request layer would refuse
 * (or URL parsing would re-route) the rest at `up`; check refuses it at preview, naming the field.
 */
export function segmentProblem(value: string): string | undefined {
  if (value === "") return "must not be empty";
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
