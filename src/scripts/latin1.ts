/**
 * A module's text with every character beyond Latin-1 written as its `\u` escape, for the pack
 * (src/scripts/pack.ts). V8 keeps a string at one byte per character only while every character
 * fits in one: a single dash in one of zod's comments made the whole 1 MB pack a 2 MB string,
 * decoded, hashed and handed to V8 at every host's first Check (about 2.5 ms of it on Node 20:
 * docs/performance.md, "Cold start in the provider host").
 *
 * The escape means the same character in a comment, a string, a template, a regular expression
 * (with or without the u flag: a character outside the first plane becomes its two halves, which
 * the u flag reads as one) and a name. Where it would not, the text is left as it is (undefined):
 * a tagged template, whose tag may read the text as written (String.raw), and a line or paragraph
 * separator, which ends a comment that its escape would not.
 */
import ts = require("typescript");

const BEYOND = /[^\x00-\xff]/;

/** Each character beyond Latin-1 as `\uXXXX`; a backslash before one (an identity escape) is the escape's. */
function escaped(code: string): string {
  return code.replace(/(\\*)([^\x00-\xff])/g, (_m, slashes: string, ch: string) => {
    const escape = `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
    return (slashes.length % 2 === 1 ? slashes.slice(1) : slashes) + escape;
  });
}

/** Whether a tagged template of the module holds a character beyond Latin-1. */
function taggedBeyond(code: string): boolean {
  const file = ts.createSourceFile("module.js", code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isTaggedTemplateExpression(node) && BEYOND.test(code.slice(node.template.getStart(file), node.template.end))) found = true;
    else ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The module's text in Latin-1 with the same meaning, or undefined where it cannot be (above). */
export function latin1(code: string): string | undefined {
  if (!BEYOND.test(code)) return code;
  if (/[\u2028\u2029]/.test(code) || taggedBeyond(code)) return undefined;
  return escaped(code);
}
