import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { bad } from "../fields";
import { alphabetExists } from "./alphabet";
import { lookup, namedRoutes, transformations, type NamedKind, type Template } from "./state";

/** Number of capturing groups, found by matching the empty string against `pattern|`. */
function captureGroups(pattern: string): number {
  const match = new RegExp(`(?:${pattern})|`).exec("");
  return match ? match.length - 1 : 0;
}

export const BUILTIN_TEMPLATES: Record<string, Template> = {
  "builtin/creditcardnumber": { type: "regex", pattern: "(\\d{4})[- ]?(\\d{4})[- ]?(\\d{4})[- ]?(\\d{4})", alphabet: "builtin/numeric" },
  "builtin/socialsecuritynumber": { type: "regex", pattern: "(\\d{3})[- ]?(\\d{2})[- ]?(\\d{4})", alphabet: "builtin/numeric" },
};

export const templateKind: NamedKind<Template> = {
  path: "template",
  builtins: BUILTIN_TEMPLATES,
  // Create and update are the same write: the whole template is given each time.
  write(ctx, body) {
    const { type, pattern, alphabet = "" } = body;
    if (type === undefined) bad("missing type");
    if (type !== "regex") bad('type must be "regex"');
    if (pattern === undefined) bad("missing pattern");
    if (typeof pattern !== "string" || pattern === "") bad("pattern must be a non-empty string");
    try {
      new RegExp(pattern);
    } catch (err) {
      bad(`pattern is not a valid regular expression: ${(err as Error).message}`);
    }
    if (captureGroups(pattern) < 1) bad("pattern must contain at least one capture group");
    if (typeof alphabet !== "string") bad("alphabet must be a string naming an alphabet");
    if (alphabet !== "" && !alphabetExists(ctx, alphabet)) bad(`alphabet "${alphabet}" does not exist`);
    return { type, pattern, alphabet };
  },
  present: (t) => ({ alphabet: t.alphabet, pattern: t.pattern, type: t.type }),
  inUse(ctx, name) {
    const users = Object.entries(transformations(ctx)).filter(([, t]) => t.template === name).map(([n]) => n);
    return users.map((t) => `template "${name}" is used by transformation "${t}"; point the transformation at another template or delete it first`);
  },
};

export const templateOf = (ctx: SecretsContext, name: string): Template | undefined => lookup(ctx, templateKind, name);

export const templateRoutes: Route<SecretsContext>[] = namedRoutes(templateKind);
