/**
 * A review within a comment's size (GitHub: 65,536 characters): the summary and every replacement
 * and delete always; then the other changes in order while they fit; then how many were left out.
 */
import { groupHeading, type Block } from "./render";

export const COMMENT_LIMIT = 65_536;

/** A note long enough for any count: reserved before the optional blocks are chosen. */
const NOTE_RESERVE = 200;

export function assemble(head: string, all: Block[], limit = COMMENT_LIMIT): string {
  const chosen = new Set(all.filter((b) => b.kept));
  const groups = new Set([...chosen].map((b) => b.group));
  let size = head.length + [...chosen].reduce((n, b) => n + b.text.length + 1, 0) + [...groups].reduce((n, g) => n + groupHeading(g).length, 0);
  for (const b of all) {
    if (chosen.has(b)) continue;
    const cost = b.text.length + 1 + (groups.has(b.group) ? 0 : groupHeading(b.group).length);
    if (size + cost + NOTE_RESERVE > limit) continue;
    chosen.add(b);
    groups.add(b.group);
    size += cost;
  }
  const left = all.filter((b) => !chosen.has(b));
  let text = head;
  let group: string | undefined;
  for (const b of all.filter((x) => chosen.has(x))) {
    if (b.group !== group) text += groupHeading(b.group);
    group = b.group;
    text += `${b.text}\n`;
  }
  if (left.length) {
    const by = new Map<string, number>();
    for (const b of left) by.set(b.op, (by.get(b.op) ?? 0) + 1);
    const what = [...by].map(([op, n]) => `${n} ${op}${n === 1 ? "" : "s"}`).join(", ");
    text += `\n---\n**${left.length} more ${left.length === 1 ? "change" : "changes"} left out (${what})** to stay within ${limit.toLocaleString("en-US")} characters; every replacement and delete is listed above. Run the command locally for the whole review.\n`;
  }
  text = text.replace(/\n{3,}/g, "\n\n");
  // Replacements and deletes alone past the limit: cut, and say so (the summary above names them all).
  if (text.length > limit) {
    const note = "\n\n**Cut here:** the replacements and deletes alone pass the comment limit; the summary above names them all.\n";
    text = text.slice(0, limit - note.length) + note;
  }
  return text;
}
