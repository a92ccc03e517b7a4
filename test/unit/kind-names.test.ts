// A kind is its declaration (docs/architecture.md): what the review, the import, the recovery and
// pulumi-svc/testing know of a kind they read from its definition and field record, so that a new
// kind is covered by its own file. A list of kinds kept elsewhere (the seed's kinds with ids the
// service assigns, the objects whose fields name directory accounts) drifts from the declarations.
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { describe, expect, it } from "vitest";
import { KIND_NAMES } from "../../src/kinds";
import { root } from "../support/dist";

/** Where a kind is declared: its file under src/runs or src/secrets, and what `npm run docs` writes from them (the loaders, the users). */
const DECLARING = /^src\/(runs|secrets)\/|^src\/kind(Loaders|Users)\.ts$/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** Every string in the code (not the comments) of a file outside the kinds' own that names a kind, with its line. */
function kindsNamed(): string[] {
  const kind = new RegExp(`(^|[^\\w:])(${KIND_NAMES.join("|")})(?!\\w)`);
  const out: string[] = [];
  for (const file of sourceFiles(path.join(root, "src"))) {
    const relative = path.relative(root, file).split(path.sep).join("/");
    if (DECLARING.test(relative)) continue;
    const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const texts = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? [node.text]
        : ts.isTemplateExpression(node) ? [node.head.text, ...node.templateSpans.map((s) => s.literal.text)] : [];
      const named = texts.map((t) => kind.exec(t)?.[2]).find((k) => k !== undefined);
      if (named) out.push(`${relative}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${named}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

describe("kinds", () => {
  it("are named in code only by their own files", () => {
    expect(KIND_NAMES.length).toBeGreaterThan(20);
    expect(kindsNamed()).toEqual([]);
  });
});
