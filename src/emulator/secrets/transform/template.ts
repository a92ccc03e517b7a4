import type { Route } from "../../router";
import type { SecretsContext } from "../context";
import { crudRoutes, type ObjectKind } from "../objects";
import { alphabetExists } from "./alphabet";

export interface Template {
  type: "regex";
  pattern: string;
  /** "" when the template names no alphabet. */
  alphabet: string;
}

/** Number of capturing groups, found by matching the empty string against `pattern|`. */
function captureGroups(pattern: string): number {
  const match = new RegExp(`(?:${pattern})|`).exec("");
  return match ? match.length - 1 : 0;
}

const kind: ObjectKind<Template> = {
  path: "template",
  // Create and update are the same write: the whole template is given each time.
  read(ctx, body) {
    const { type, pattern, alphabet = "" } = body;
    if (type === undefined) return "missing type";
    if (type !== "regex") return 'type must be "regex"';
    if (pattern === undefined) return "missing pattern";
    if (typeof pattern !== "string" || pattern === "") return "pattern must be a non-empty string";
    try {
      new RegExp(pattern);
    } catch (err) {
      return `pattern is not a valid regular expression: ${(err as Error).message}`;
    }
    if (captureGroups(pattern) < 1) return "pattern must contain at least one capture group";
    if (typeof alphabet !== "string") return "alphabet must be a string naming an alphabet";
    if (alphabet !== "" && !alphabetExists(ctx, alphabet)) return `alphabet "${alphabet}" does not exist`;
    return { type, pattern, alphabet };
  },
  present: (t) => ({ alphabet: t.alphabet, pattern: t.pattern, type: t.type }),
};

export const templateRoutes: Route<SecretsContext>[] = crudRoutes(kind);
