import type { Route } from "../../transport/router";
import type { SecretsContext } from "../context";
import { bad } from "../fields";
import { lookup, namedRoutes, table, type Alphabet, type NamedKind, type Template } from "./state";

const DIGITS = "0123456789";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const UPPER = LOWER.toUpperCase();

/** Alphabets every transform mount has; they are referenced as `builtin/<name>`. */
export const BUILTIN_ALPHABETS: Record<string, string> = {
  "builtin/numeric": DIGITS,
  "builtin/alphalower": LOWER,
  "builtin/alphaupper": UPPER,
  "builtin/alphanumericlower": DIGITS + LOWER,
  "builtin/alphanumericupper": DIGITS + UPPER,
  "builtin/alphanumeric": DIGITS + UPPER + LOWER,
};

export const alphabetKind: NamedKind<Alphabet> = {
  path: "alphabet",
  builtins: Object.fromEntries(Object.entries(BUILTIN_ALPHABETS).map(([k, v]) => [k, { alphabet: v }])),
  write(_ctx, body) {
    const { alphabet } = body;
    if (alphabet === undefined || alphabet === null) bad("missing alphabet");
    if (typeof alphabet !== "string") bad("alphabet must be a string");
    // Code points, not UTF-16 units: an alphabet may hold characters outside the BMP.
    const chars = [...alphabet];
    if (chars.length < 2) bad("alphabet must contain at least 2 characters");
    const seen = new Set<string>();
    for (const c of chars) {
      if (seen.has(c)) bad(`alphabet must not repeat characters: ${JSON.stringify(c)} appears more than once`);
      seen.add(c);
    }
    return { alphabet };
  },
  present: (a) => ({ alphabet: a.alphabet }),
  inUse(ctx, name) {
    const users = Object.entries(table<Template>(ctx, "template")).filter(([, t]) => t.alphabet === name).map(([n]) => n);
    return users.map((t) => `alphabet "${name}" is used by template "${t}"; change the template's alphabet or delete the template first`);
  },
};

export function alphabetOf(ctx: SecretsContext, name: string): string | undefined {
  return lookup(ctx, alphabetKind, name)?.alphabet;
}

export function alphabetExists(ctx: SecretsContext, name: string): boolean {
  return alphabetOf(ctx, name) !== undefined;
}

export const alphabetRoutes: Route<SecretsContext>[] = namedRoutes(alphabetKind);
