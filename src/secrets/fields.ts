import { z } from "../core/zod";
import { segment, segmentProblem, utf8Length } from "../core/segment";

/**
 * Longest mount path, in UTF-8 bytes: a few nested segments, with room left in a request line for
 * the object's own segments below the 8 KiB that common proxies take (see MAX_SEGMENT_BYTES).
 */
export const MAX_MOUNT_BYTES = 1024;

/** A segment quoted in a message, shortened: the value may be 100,000 characters. */
const shown = (part: string) => JSON.stringify(part.length > 40 ? `${part.slice(0, 32)}…` : part);

/** A mount path such as `transform` or `teams/transform`: no leading, trailing or double slash. @internal */
export const mount = () =>
  z.string({ error: "must be a string" }).min(1, "must not be empty").superRefine((v, ctx) => {
    const bytes = utf8Length(v, MAX_MOUNT_BYTES);
    if (bytes > MAX_MOUNT_BYTES) return void ctx.addIssue({ code: "custom", message: `must be at most ${MAX_MOUNT_BYTES} bytes (a mount path); got ${bytes}` });
    if (!/^[^/]+(\/[^/]+)*$/.test(v)) return void ctx.addIssue({ code: "custom", message: "must be a path without leading, trailing or double slashes" });
    for (const part of v.split("/")) {
      const problem = segmentProblem(part);
      if (problem) return void ctx.addIssue({ code: "custom", message: `segment ${shown(part)} ${problem}` });
    }
  });

/** An object name in a path segment. @internal */
export const name = () => segment();

/** @internal zod types stay out of the public declarations. */
export const adopt = () => z.boolean().optional();

/** TSDoc shared by every path-keyed object's `adopt` argument lives on each Args interface. */
export const ADOPT_HELP = "set adopt: true to manage an object that already exists at the path";
