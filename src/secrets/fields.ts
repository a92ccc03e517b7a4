import { z } from "zod";
import { segment, segmentProblem } from "../core/segment";

/** A mount path such as `transform` or `teams/transform`: no leading, trailing or double slash. @internal */
export const mount = () =>
  z.string({ error: "must be a string" }).min(1, "must not be empty").regex(/^[^/]+(\/[^/]+)*$/, "must be a path without leading, trailing or double slashes")
    .superRefine((v, ctx) => {
      for (const part of v.split("/")) {
        const problem = part === "" ? undefined : segmentProblem(part);
        if (problem) return void ctx.addIssue({ code: "custom", message: `segment "${part}" ${problem}` });
      }
    });

/** An object name in a path segment. @internal */
export const name = () => segment();

/** @internal zod types stay out of the public declarations. */
export const adopt = () => z.boolean().optional();

/** TSDoc shared by every path-keyed object's `adopt` argument lives on each Args interface. */
export const ADOPT_HELP = "set adopt: true to manage an object that already exists at the path";
