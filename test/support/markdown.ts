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

/** Text outside fenced code blocks (also indented ones, in lists). */
export function unfenced(text: string): string {
  return text.replace(/^( *)(```|~~~)[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, "");
}

/** Text outside fenced code blocks and inline code, where links are links. */
export function prose(text: string): string {
  return unfenced(text).replace(/`[^`\n]*`/g, "");
}

export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of unfenced(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
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

/** One command line of a shell block: its text without the trailing comment, and where it is. */
export interface ShellCommand {
  file: string;
  /** 1-based line in the file. */
  line: number;
  text: string;
}

export interface ShellBlock {
  file: string;
  /** Line of the opening fence. */
  line: number;
  lang: string;
  commands: ShellCommand[];
}

const SHELL_LANGS = new Set(["sh", "bash", "shell"]);

/**
 * Drops a `#` comment that starts a word outside quotes (`a # b` → `a`, `"#x"` and `a#b` stay).
 * Trailing whitespace is trimmed.
 */
export function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "\\") {
      i++;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]!))) {
      return line.slice(0, i).trimEnd();
    }
  }
  return line.trimEnd();
}

/**
 * Splits a command line at the given top-level operators (outside quotes, `$(…)` and `(…)`),
 * keeping each part's text trimmed: `a; b && c` at `;` → `a`, `b && c`.
 */
export function splitCommand(line: string, operators: string[]): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let depth = 0;
  let start = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === "\\") { i++; continue; }
    if (c === "'" || c === '"') { quote = c; continue; }
    if (c === "(") { depth++; continue; }
    if (c === ")") { depth--; continue; }
    if (depth > 0) continue;
    const op = operators.find((o) => line.startsWith(o, i));
    if (op) {
      parts.push(line.slice(start, i).trim());
      start = i + op.length;
      i += op.length - 1;
    }
  }
  parts.push(line.slice(start).trim());
  return parts.filter((p) => p !== "");
}

/**
 * The ```sh, ```bash and ```shell blocks of a Markdown file (indented ones inside list items too),
 * each with its command lines: comments and blank lines dropped, `\` continuations joined.
 */
export function shellBlocks(file: string): ShellBlock[] {
  return codeBlocks(file).filter((b) => SHELL_LANGS.has(b.lang.toLowerCase())).map((b) => {
    const commands: ShellCommand[] = [];
    let pending: ShellCommand | undefined;
    b.text.split("\n").forEach((text, k) => {
      const joined = pending ? `${pending.text} ${text.trim()}` : text;
      const line = pending?.line ?? b.line + 1 + k;
      if (/\\$/.test(joined)) {
        pending = { file, line, text: joined.slice(0, -1).trimEnd() };
        return;
      }
      pending = undefined;
      const command = stripComment(joined).trim();
      if (command !== "") commands.push({ file, line, text: command });
    });
    return { file, line: b.line, lang: b.lang, commands };
  });
}

/** The manual's files whose shell blocks are documentation (docs/reference/ is generated). */
export function commandFiles(): string[] {
  return manualFiles().filter((f) => !f.startsWith("docs/reference/"));
}

/** Every fenced block of a file with its language and its text (indentation of a list item removed). */
export function codeBlocks(file: string): { line: number; lang: string; text: string }[] {
  const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
  const out: { line: number; lang: string; text: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]!);
      if (close && close[1]![0] === fence![0] && close[1]!.length >= fence!.length) break;
      body.push(lines[j]!.startsWith(indent!) ? lines[j]!.slice(indent!.length) : lines[j]!.trimStart());
    }
    out.push({ line: i + 1, lang: lang!, text: body.join("\n") });
    i = j;
  }
  return out;
}
