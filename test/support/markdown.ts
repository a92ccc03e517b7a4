// The Markdown of the manual (README, CHANGELOG, docs/): its files, its headings' anchors and its
// local links, for the docs tests.
import * as fs from "node:fs";
import * as path from "node:path";
import { root } from "./dist";

/** The Markdown files of the manual, relative to the repository root. */
export function manualFiles(): string[] {
  const docs = fs.readdirSync(path.join(root, "docs"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".md"))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join("/"));
  return ["README.md", "CHANGELOG.md", ...docs.sort()];
}

/** A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase()
    .replace(/`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Text outside fenced code blocks. */
function outsideFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
}

/** Text outside fenced code blocks and inline code, where links are links. */
export function prose(text: string): string {
  return outsideFences(text).replace(/`[^`\n]*`/g, "");
}

export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  // Inline code stays in a heading: its text is part of the anchor (`src/engine` gives `srcengine`).
  for (const m of outsideFences(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  return out;
}

/** The links of a file that point inside the repository, with where they point. */
export function localLinks(file: string): { target: string; fragment?: string }[] {
  const text = fs.readFileSync(path.join(root, file), "utf8");
  const out: { target: string; fragment?: string }[] = [];
  for (const m of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const url = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(url)) continue;
    const [p, fragment] = url.split("#") as [string, string | undefined];
    const target = p === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(p)));
    out.push({ target, fragment });
  }
  return out;
}
