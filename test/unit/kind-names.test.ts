// A kind is its declaration (docs/architecture.md): what the review, the import, the recovery and
// pulumi-svc/testing know of a kind they read from its definition and field record, so that a new
// kind is covered by its own file. A list of kinds kept elsewhere (the seed's kinds with ids the
// service assigns, the objects whose fields name directory accounts) drifts from the declarations.
// And a kind is tested: an integration test of its own names it (the suites that go through every
// kind read KIND_NAMES and name none, so they do not count).
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

/** Every string in the code (not the comments) of the files under `dir` but `skip` that names a kind, as `file:line kind`. */
function kindsNamed(dir = "src", skip = DECLARING): string[] {
  const kind = new RegExp(`(^|[^\\w:])(${KIND_NAMES.join("|")})(?!\\w)`);
  const out: string[] = [];
  for (const file of sourceFiles(path.join(root, dir))) {
    const relative = path.relative(root, file).split(path.sep).join("/");
    if (skip.test(relative)) continue;
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

  it("are each named by an integration test", () => {
    // The untrusted-text test names the kinds it seeds by hand; what it tests is the import.
    const tested = new Set(kindsNamed("test/integration", /import-untrusted\.test\.ts$|\/[^/]*\.ts(?<!\.test\.ts)$/).map((l) => l.split(" ")[1]));
    expect(KIND_NAMES.filter((k) => !tested.has(k)), "kinds no test of test/integration names: give each its test").toEqual([]);
  });
});
