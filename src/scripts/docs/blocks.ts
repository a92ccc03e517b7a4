/**
 * The blocks `npm run docs` writes inside hand-written index files (an area's exports of its kinds,
 * an emulator folder's registrations): one marked run of lines each, whose lines come from the
 * files of the folder. The order of the lines in the committed block is kept (it can matter: the
 * emulator's router takes the first row that matches), so a line moves only by hand and a new
 * file's line comes last.
 */
import * as fs from "node:fs";

export const BLOCK_BEGIN = "// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.";
export const BLOCK_END = "// (end of what npm run docs writes)";

/** One file's line of a block: the file it stands for (a module specifier, `./alphabet`) and its text. */
export interface BlockLine {
  module: string;
  text: string;
}

/** A block of a file that `npm run docs` could not write: the contributor's to mend, said in one line. */
export class BlockError extends Error {
  override name = "BlockError";
}

/** The lines between the marks of `text`, or undefined when it has none. */
function blockLines(text: string): string[] | undefined {
  const lines = text.split("\n");
  const from = lines.indexOf(BLOCK_BEGIN);
  const to = lines.indexOf(BLOCK_END);
  return from < 0 || to < from ? undefined : lines.slice(from + 1, to);
}

/** Whether `file` holds a block. */
export function hasBlock(file: string): boolean {
  return fs.existsSync(file) && blockLines(fs.readFileSync(file, "utf8")) !== undefined;
}

/** The modules a block names, in its order (the `from "./x"` of each line). */
function modulesIn(lines: readonly string[]): string[] {
  return lines.flatMap((l) => [...l.matchAll(/from "(\.\/[^"]+)"/g)].map((m) => m[1]!));
}

/** `wanted` in the order its modules have in the committed block, then the others in their own order. */
export function keptOrder(committed: readonly string[], wanted: readonly BlockLine[]): BlockLine[] {
  const order = modulesIn(committed);
  const at = (l: BlockLine) => (order.includes(l.module) ? order.indexOf(l.module) : order.length);
  return wanted.map((l, i) => ({ l, i })).sort((a, b) => at(a.l) - at(b.l) || a.i - b.i).map(({ l }) => l);
}

/**
 * `file`'s text with its block written from `lines` (kept in the committed order), and `after`
 * (lines built from the ordered lines, such as a list of what they import) at its end.
 */
export function withBlock(file: string, lines: readonly BlockLine[], after: (ordered: BlockLine[]) => string[] = () => []): string {
  const text = fs.readFileSync(file, "utf8");
  const committed = blockLines(text);
  if (committed === undefined) throw new BlockError(`${file} has no block for npm run docs to write (the lines "${BLOCK_BEGIN}" ... "${BLOCK_END}")`);
  const ordered = keptOrder(committed, lines);
  const head = text.slice(0, text.indexOf(BLOCK_BEGIN) + BLOCK_BEGIN.length);
  const tail = text.slice(text.indexOf(BLOCK_END));
  return [head, ...ordered.map((l) => l.text), ...after(ordered), tail].join("\n");
}
