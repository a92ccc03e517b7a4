// The encoders of text someone else chose (src/core/text.ts): each keeps every value intact where
// it is code (a TypeScript string, a shell word) and puts it on one visible line where it is shown.
import { spawnSync } from "node:child_process";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { isPlain, oneLine, shellWord, tsString } from "../../src/core/text";

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const HOSTILE = [
  "plain", "", "it's", "'; touch x; '", "$(touch x)", "`touch x`", "${IFS}", "\\", "\\'", "a\nb", "a\r\nb", "\u2028\u2029", "\u202e\u2066", "\u001b[2J",
  "\u0085\u007f", "*/ //", "\u0000", "emoji 👍 and é", "\u{e0001}", "\t", "\"double\"",
];
/** Every character that is not a lone surrogate, in steps (all of the BMP's controls and formats among them). */
const SAMPLE = [...Array.from({ length: 0x3000 }, (_, i) => i), 0xfeff, 0xfff9, 0xfffb, 0x1d173, 0xe0001, 0xe007f, 0x10ffff]
  .filter((c) => c < 0xd800 || c > 0xdfff).map((c) => String.fromCodePoint(c)).join("");

describe("oneLine", () => {
  it("leaves no character that ends or bends a line, and shows each as its escape", () => {
    expect(oneLine(SAMPLE)).not.toMatch(UNSAFE);
    expect(oneLine("a\nb\u202ec\u{e0001}\ud800")).toBe("a\\nb\\u202ec\\u{e0001}\\ud800");
    expect(oneLine("é 👍 it's")).toBe("é 👍 it's");
    expect(isPlain("é 👍")).toBe(true);
    expect(isPlain("a\u2028")).toBe(false);
  });
});

describe("tsString", () => {
  it("is a TypeScript string literal that reads back as the text, on one line", () => {
    for (const text of [...HOSTILE, SAMPLE, "\ud800 lone"]) {
      const literal = tsString(text);
      expect(literal).not.toMatch(UNSAFE);
      const source = ts.createSourceFile("x.ts", `export const v = ${literal};`, ts.ScriptTarget.ES2022);
      expect((source as unknown as { parseDiagnostics: unknown[] }).parseDiagnostics).toEqual([]);
      const js = ts.transpileModule(`module.exports = ${literal};`, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
      const m = { exports: undefined as unknown };
      new Function("module", js)(m);
      expect(m.exports).toBe(text);
    }
  });
});

describe("shellWord", () => {
  it("is one bash word that reads back as the text, byte for byte, with no raw control character", () => {
    // Bash words cannot hold NUL; the rest must come back exactly.
    const texts = [...HOSTILE, SAMPLE.slice(1)].filter((t) => !t.includes("\u0000"));
    const words = texts.map(shellWord);
    for (const w of words) expect(w).not.toMatch(UNSAFE);
    const r = spawnSync("bash", ["--norc", "--noprofile", "-c", `printf '%s\\0' ${words.join(" ")}`], { encoding: "utf8", env: { PATH: process.env.PATH, LC_ALL: "C" } });
    expect(r.stderr).toBe("");
    expect(r.stdout.split("\0").slice(0, -1)).toEqual(texts);
  });
});
