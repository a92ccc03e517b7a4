import { z } from "../../../core/zod";
import type { Context } from "../../../core/definition";
import { field } from "../../../core/fields";
import { segmentProblem } from "../../../core/segment";
import { isUnknown } from "../../../core/unknown";
import { mount as mountField, name } from "../../fields";
import { dataOf } from "../../envelope";
import { DEFAULT_TRANSFORM_MOUNT } from "../fields";

export const mountOf = (a: { mount?: string }) => a.mount ?? DEFAULT_TRANSFORM_MOUNT;
/** @internal zod types stay out of the public declarations. */
export const objectName = () => name();

/** The argument every transform function has; spread (or picked) into each one's fields, with its doc. */
export const mountArg = {
  /** Mount path of the transform engine. Default `transform`. */
  mount: field(mountField, { optional: true }),
};

/**
 * @internal A name to read, which may also be a built-in (`builtin/internal`): the part after
 * `builtin/` is checked as one path segment, like every other name, before any request.
 */
export const readableName = () =>
  z.string({ error: "must be a string" }).superRefine((v, ctx) => {
    if (isUnknown(v)) return;
    const problem = segmentProblem(v.startsWith("builtin/") ? v.slice("builtin/".length) : v);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** `retry: "safe"` for calls that change nothing (decode, validate, ...), which the client may then repeat. */
export async function post(ctx: Context, route: string, params: Record<string, string>, body: unknown, retry?: "safe"): Promise<Record<string, unknown>> {
  const res = await ctx.client("secrets").request({ route, params, body, ...(retry ? { retry } : {}) });
  return res.body === undefined || res.body === null || res.body === "" ? {} : dataOf(res.body);
}

/** @internal zod types stay out of the public declarations. */
export const sevenByteTweak = () =>
  z.string().refine((t) => /^[A-Za-z0-9+/]*={0,2}$/.test(t) && Buffer.from(t, "base64").length === 7 && t.length % 4 === 0,
    "must be the base64 encoding of exactly 7 bytes");
