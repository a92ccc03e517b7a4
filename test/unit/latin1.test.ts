// The pack's modules in Latin-1 (src/scripts/latin1.ts): each escape means what the character meant,
// checked by running both texts.
import * as vm from "node:vm";
import { describe, expect, it } from "vitest";
import { latin1 } from "../../src/scripts/latin1";

const run = (code: string): unknown => vm.runInNewContext(code);
const BEYOND = /[^\x00-\xff]/;

describe("latin1", () => {
  it.each([
    ["a string", `"a\u2014b"`],
    ["a template with a value", "`x \u2192 ${1 + 1} \u2026`"],
    ["a character class", `/^[\u2014\u2013]+$/.test("\u2013\u2014")`],
    ["a character outside the first plane, u flag", `[/^\u{1F600}$/u.test("\u{1F600}"), /^[\u{1F600}]$/u.test("\u{1F600}"), /^\u{1F600}+$/u.test("\u{1F600}\u{1F600}")]`],
    ["a character outside the first plane, no flag", `[/^\u{1F600}$/.test("\u{1F600}"), "\u{1F600}".length]`],
    ["a name", `const \u03c0 = 3; \u03c0 + 1`],
    ["an identity escape in a string and a pattern", `["\\\u2014", /^\\\u2014$/.test("\u2014")]`],
    ["an escaped backslash before one", `["\\\\\u2014", /^\\\\\u2014$/.test("\\\\\u2014")]`],
    ["a comment", `// \u2014 a line\n/* \u2192 a block */ 7`],
    ["a tagged template without one, beside a string with one", "[String.raw`a\\n`, \"\u2014\"]"],
  ])("%s: the same value, in Latin-1", (_name, code) => {
    const out = latin1(code);
    expect(out).toBeDefined();
    expect(BEYOND.test(out!)).toBe(false);
    expect(run(out!)).toEqual(run(code));
  });

  it("leaves a text in Latin-1 as it is, \u00e9 and all", () => {
    const code = `"caf\u00e9" // \u00bd`;
    expect(latin1(code)).toBe(code);
  });

  it("leaves a module whose tagged template holds one, or that has a line separator, as it is", () => {
    expect(latin1("String.raw`\u2014`")).toBeUndefined();
    expect(latin1("tag`a ${1} \u2192 b`; function tag(s) { return s.raw; }")).toBeUndefined();
    // In a comment the separator ends the line, which its escape would not.
    expect(latin1("// a\u2028 7")).toBeUndefined();
  });
});
