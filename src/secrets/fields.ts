import { z } from "zod";

/** A mount path such as `transform` or `teams/transform`: no leading, trailing or double slash. @internal */
export const mount = () =>
  z.string().min(1, "must not be empty").regex(/^[^/]+(\/[^/]+)*$/, "must be a path without leading, trailing or double slashes");

/** An object name in a path segment. @internal */
export const name = () =>
  z.string().min(1, "must not be empty").regex(/^[^/]+$/, "must not contain /");

/** @internal zod types stay out of the public declarations. */
export const adopt = () => z.boolean().optional();

/** TSDoc shared by every path-keyed object's `adopt` argument lives on each Args interface. */
export const ADOPT_HELP = "set adopt: true to manage an object that already exists at the path";
