/** FPE and masking over a template: only the characters inside capture groups change. */
import { BadInput, bad } from "../fields";
import { FF3_1, TWEAK_BYTES } from "./ff3";
import type { Template } from "./state";

/** Spans [start, end) of the outermost capture groups of the first match, in order. */
function spans(template: Template, value: string): [number, number][] {
  const match = new RegExp(template.pattern, "d").exec(value);
  if (!match || !match.indices) bad(`value does not match the template's pattern ${template.pattern}`);
  const out: [number, number][] = [];
  for (const span of match.indices!.slice(1)) {
    if (!span) continue;
    const last = out[out.length - 1];
    if (last && span[0] < last[1]) continue; // nested in (or overlapping) an earlier group
    out.push([span[0], span[1]]);
  }
  return out;
}

/** Replaces the characters of the groups with `map(concatenated group characters)`. */
function transformGroups(template: Template, value: string, map: (chars: string[]) => string[]): string {
  const groups = spans(template, value);
  const chars = groups.flatMap(([a, b]) => [...value.slice(a, b)]);
  const mapped = map(chars);
  let out = "";
  let at = 0;
  let k = 0;
  for (const [a, b] of groups) {
    out += value.slice(at, a);
    const n = [...value.slice(a, b)].length;
    out += mapped.slice(k, k + n).join("");
    k += n;
    at = b;
  }
  return out + value.slice(at);
}

export function mask(template: Template, value: string, character: string): string {
  return transformGroups(template, value, (chars) => chars.map(() => character));
}

export function decodeTweak(tweak: string): Buffer {
  const raw = /^[A-Za-z0-9+/]*={0,2}$/.test(tweak) ? Buffer.from(tweak, "base64") : undefined;
  if (!raw || raw.length !== TWEAK_BYTES || raw.toString("base64").replace(/=+$/, "") !== tweak.replace(/=+$/, "")) {
    bad(`tweak must be the base64 encoding of exactly ${TWEAK_BYTES} bytes`);
  }
  return raw!;
}

export function fpe(template: Template, alphabet: string, key: Buffer, tweak: Buffer, value: string, forward: boolean): string {
  const letters = [...alphabet];
  const index = new Map(letters.map((c, i) => [c, i]));
  const cipher = new FF3_1(key, letters.length);
  return transformGroups(template, value, (chars) => {
    const numerals = chars.map((c) => {
      const i = index.get(c);
      if (i === undefined) bad(`value holds ${JSON.stringify(c)}, which is not in the template's alphabet`);
      return i!;
    });
    try {
      const out = forward ? cipher.encrypt(numerals, tweak) : cipher.decrypt(numerals, tweak);
      return out.map((i) => letters[i]);
    } catch (e) {
      throw new BadInput([(e as Error).message]);
    }
  });
}
