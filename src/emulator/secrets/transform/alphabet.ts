import type { Route } from "../../router";
import type { SecretsContext } from "../context";
import { dataReply, secretsError } from "../envelope";
import { hasOwn } from "../../util";
import { bag, crudRoutes, type ObjectKind } from "../objects";

export interface Alphabet {
  alphabet: string;
}

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

export function alphabetExists(ctx: SecretsContext, name: string): boolean {
  return hasOwn(BUILTIN_ALPHABETS, name) || bag<Alphabet>(ctx, "alphabet")[name] !== undefined;
}

const kind: ObjectKind<Alphabet> = {
  path: "alphabet",
  read(_ctx, body) {
    const { alphabet } = body;
    if (alphabet === undefined) return "missing alphabet";
    if (typeof alphabet !== "string") return "alphabet must be a string";
    // Code points, not UTF-16 units: an alphabet may hold characters outside the BMP.
    const chars = [...alphabet];
    if (chars.length < 2) return "alphabet must contain at least 2 characters";
    const seen = new Set<string>();
    for (const c of chars) {
      if (seen.has(c)) return `alphabet must not repeat characters: ${JSON.stringify(c)} appears more than once`;
      seen.add(c);
    }
    return { alphabet };
  },
  present: (a) => ({ alphabet: a.alphabet }),
};

const builtinReadOnly = () => secretsError(400, "builtin alphabets cannot be written or deleted");

export const alphabetRoutes: Route<SecretsContext>[] = [
  ...crudRoutes(kind),
  // Builtins carry a slash, so they need their own rows; they are readable but fixed.
  {
    method: "GET",
    path: "alphabet/builtin/:name",
    handler: (_ctx, req) => {
      const alphabet = BUILTIN_ALPHABETS[`builtin/${req.params.name}`];
      return alphabet === undefined ? secretsError(404) : dataReply({ alphabet });
    },
  },
  { method: "POST", path: "alphabet/builtin/:name", handler: builtinReadOnly },
  { method: "DELETE", path: "alphabet/builtin/:name", handler: builtinReadOnly },
];
