// Every ```ts block of the README and of the guides (docs/*.md; the generated pages under
// docs/reference/ are not guides) is a complete program that type-checks, in strict mode, against
// the built package as users install it: `pulumi-svc` is dist/src/index.d.ts. A block written as
// an excerpt of a source file (the line before it is `<!-- excerpt: src/… -->`) must instead be
// found word for word in that file, which the build compiles (a line `// …` marks lines left out).
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../support/dist";

interface Block { file: string; line: number; code: string; excerptOf?: string }

/** README.md and docs/*.md, not the generated reference pages below docs/. */
function guideFiles(): string[] {
  const docs = fs.readdirSync(path.join(root, "docs"), { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".md")).map((e) => `docs/${e.name}`).sort();
  return ["README.md", ...docs];
}

/** The ```ts (or ```typescript) blocks of a Markdown file, with the line of their fence. */
export function tsBlocks(file: string, text: string): Block[] {
  const lines = text.split("\n");
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    // Fences may be indented (a block inside a list item); the indentation is not part of the code.
    const open = /^([ \t]*)(`{3,}|~{3,})\s*(\w+)?/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang] = open as unknown as [string, string, string, string | undefined];
    let end = i + 1;
    while (end < lines.length && !lines[end]!.trimStart().startsWith(fence)) end++;
    if (lang === "ts" || lang === "typescript") {
      const excerpt = /^<!--\s*excerpt:\s*(\S+)\s*-->$/.exec((lines[i - 1] ?? "").trim());
      const code = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l)).join("\n");
      out.push({ file, line: i + 1, code, excerptOf: excerpt?.[1] });
    }
    i = end;
  }
  return out;
}

const blocks = guideFiles().flatMap((f) => tsBlocks(f, fs.readFileSync(path.join(root, f), "utf8")));
const programs = blocks.filter((b) => !b.excerptOf);
const dist = (p: string) => path.join(root, "dist/src", p);
let dir: string;

/** Type-checks sources (name → text) as users' programs; returns each problem as `name:line: text`. */
function typeCheck(sources: Map<string, string>): string[] {
  const options: ts.CompilerOptions = {
    strict: true, noEmit: true, skipLibCheck: true, esModuleInterop: true,
    // ESNext modules so that a block may await at top level, as an ES module program does.
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts"], types: ["node"], typeRoots: [path.join(root, "node_modules/@types")],
    paths: {
      "pulumi-svc": [dist("index.d.ts")],
      "pulumi-svc/emulator": [dist("emulator/index.d.ts")],
      "pulumi-svc/policy": [dist("policy/index.d.ts")],
      "pulumi-svc/runtime": [dist("runtime.d.ts")],
      "pulumi-svc/testing": [dist("testing/index.d.ts")],
      "*": [path.join(root, "node_modules/*"), path.join(root, "node_modules/@types/*")],
    },
  };
  const files = [...sources].map(([name, code]) => {
    const file = path.join(dir, `${name}.ts`);
    // `export {}` keeps each block a module of its own, so blocks never share top-level names.
    fs.writeFileSync(file, `${code}\nexport {};\n`);
    return file;
  });
  const program = ts.createProgram(files, options);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file) return text;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
    return `${path.basename(d.file.fileName, ".ts")}:${line + 1}: ${text}`;
  });
}

beforeAll(() => {
  if (!fs.existsSync(dist("index.d.ts"))) throw new Error("dist/src/index.d.ts is missing: run npm run build (npm test does)");
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-svc-snippets-"));
});
afterAll(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

describe("TypeScript blocks of the README and the guides", () => {
  it("finds the blocks of every guide", () => {
    expect(programs.length).toBeGreaterThanOrEqual(10);
    for (const f of ["README.md", "docs/runs.md", "docs/transform.md", "docs/directory.md", "docs/replication.md"]) {
      expect(programs.some((b) => b.file === f), `${f} has no ts block`).toBe(true);
    }
  });

  it("the check catches a wrong program (misspelt input, unknown import)", () => {
    const problems = typeCheck(new Map([
      ["wrong-input", `import * as svc from "pulumi-svc";\nnew svc.secrets.transform.Alphabet("d", { nam: "digits", alphabet: "01" });`],
      ["wrong-import", `import { nothing } from "pulumi-svc";\nconsole.log(nothing);`],
    ]));
    expect(problems.some((p) => p.startsWith("wrong-input:2:") && p.includes("nam"))).toBe(true);
    expect(problems.some((p) => p.startsWith("wrong-import:1:") && p.includes("nothing"))).toBe(true);
  }, 120_000);

  it("every block that is not an excerpt compiles in strict mode against the built package", () => {
    const name = (b: Block) => `${b.file.replace(/[/.]/g, "_")}_L${b.line}`;
    const problems = typeCheck(new Map(programs.map((b) => [name(b), b.code])));
    // Reported as file:line of the Markdown, the line counted from the fence.
    const located = problems.map((p) => {
      const b = programs.find((x) => p.startsWith(`${name(x)}:`));
      if (!b) return p;
      const [, line, text] = /^[^:]+:(\d+): ([\s\S]*)$/.exec(p)!;
      return `${b.file}:${b.line + Number(line)}: ${text}`;
    });
    expect(located).toEqual([]);
  }, 120_000);

  it("every excerpt is found word for word in the file it names", () => {
    // A line `// …` in an excerpt stands for lines left out: the parts around it appear in order.
    const found = (code: string, text: string) => {
      let at = 0;
      for (const part of code.split(/^[ \t]*\/\/ …[ \t]*$/m).map((p) => p.replace(/^\n+|\n+$/g, ""))) {
        const i = text.indexOf(part, at);
        if (i < 0) return false;
        at = i + part.length;
      }
      return true;
    };
    const stale = blocks.filter((b) => b.excerptOf).filter((b) => {
      const src = path.join(root, b.excerptOf!);
      return !fs.existsSync(src) || !found(b.code, fs.readFileSync(src, "utf8"));
    }).map((b) => `${b.file}:${b.line}: not found in ${b.excerptOf}`);
    expect(stale).toEqual([]);
  });
});
