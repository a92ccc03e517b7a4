// No function in src/ is longer than 60 lines: a longer one does several things, each of which
// reads better under its own name (issue 47). Measured with the TypeScript parser, from a
// function's first line to its last, whatever its kind (declaration, method, arrow, accessor).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";

const MOST = 60;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith(".ts") ? [p] : [];
  });
}

/** `file:line name (N lines)` of every function longer than `most` lines. */
function longFunctions(files: string[], most: number): string[] {
  const out: string[] = [];
  for (const file of files) {
    const sf = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
        const lines = sf.getLineAndCharacterOfPosition(node.end).line - first + 1;
        const named = node.name ?? ((ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent)) ? node.parent.name : undefined);
        const name = named && ts.isIdentifier(named) ? named.text : "(anonymous)";
        if (lines > most) out.push(`${path.relative(root, file)}:${first + 1} ${name} (${lines} lines)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}

describe("the functions of src/", () => {
  it(`are at most ${MOST} lines long`, () => {
    const files = sources(path.join(root, "src"));
    expect(files.length).toBeGreaterThan(200);
    expect(longFunctions(files, MOST)).toEqual([]);
  });

  it("are measured from first line to last, nested ones too", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "function-length-"));
    const file = path.join(dir, "long.ts");
    const body = Array.from({ length: 60 }, (_, i) => `    const v${i} = ${i};`).join("\n");
    fs.writeFileSync(file, `export function outer() {\n  const inner = () => {\n${body}\n  };\n  return inner;\n}\n`);
    try {
      expect(longFunctions([file], MOST).map((l) => l.replace(/^.*long\.ts/, "long.ts"))).toEqual(["long.ts:1 outer (65 lines)", "long.ts:2 inner (62 lines)"]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
