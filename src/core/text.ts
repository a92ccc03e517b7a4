/**
 * Text that someone else chose (a name or value read from a server, a message it sent) written into
 * a file or a terminal of ours. Whoever could name one object must not be able to end a line, start
 * a command or hide characters from the reader there: every such value passes through one of these.
 */

/**
 * What ends or bends a line in some file or terminal: control characters (newline, carriage
 * return, escape...), line and paragraph separators, format characters (bidi overrides, zero
 * widths: what makes a text read otherwise than it runs) and lone surrogates.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** A character as the escape that JavaScript and TypeScript read back. */
function escaped(c: string): string {
  const code = c.codePointAt(0)!;
  return SHORT[c] ?? (code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`);
}

/** Whether a text holds nothing that `oneLine` would change. */
export const isPlain = (text: string): boolean => !new RegExp(UNSAFE.source, "u").test(text);

/**
 * A text shown on one line: each unsafe character written as its escape (`\n`, `\u202e`), the rest
 * as it is. For comments, Markdown, terminal lines: places that show a value and never run it.
 */
export function oneLine(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/** A TypeScript string literal of any text: JSON's quoting, with what JSON leaves raw escaped too. */
export function tsString(text: string): string {
  return JSON.stringify(text).replace(UNSAFE, escaped);
}

/**
 * A text as one shell word that bash reads back exactly: single-quoted (a `'` written `'\''`), or
 * where it holds an unsafe character, ANSI-C quoted (`$'…'`) so that no raw one reaches the file.
 */
export function shellWord(text: string): string {
  if (isPlain(text)) return `'${text.replace(/'/g, "'\\''")}'`;
  // Bytes, not \u: bash writes a \u escape its locale cannot encode back as the escape itself.
  const bytes = (c: string) => [...Buffer.from(c, "utf8")].map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join("");
  return `$'${text.replace(/[\\']/g, (c) => `\\${c}`).replace(UNSAFE, bytes)}'`;
}
