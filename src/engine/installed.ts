import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** This repository's root, from the sources (src/engine) or the build (dist/src/engine) alike. */
function repoRoot(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "package.json")) && fs.existsSync(path.join(dir, "src/engine"))) return dir;
  }
  throw new Error(`no pulumi-svc checkout above ${__dirname}`);
}

/** What the package.json `files` of the package leave out (its `!` patterns), as one expression over paths from the repository. */
function leftOut(repo: string): RegExp {
  const files = (JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as { files?: string[] }).files ?? [];
  const patterns = files.filter((f) => f.startsWith("!")).map((f) => globPattern(f.slice(1)));
  return patterns.length === 0 ? /$^/ : new RegExp(`^(?:${patterns.join("|")})$`);
}

/** npm's globs as an expression: `**` any folders (a folder itself, with all it holds, at the end), `*` any name. */
function globPattern(glob: string): string {
  return glob.split(/(\*\*\/|\/\*\*$|\*)/).map((part) => part === "**/" ? "(?:.*/)?" : part === "/**" ? "(?:/.*)?" : part === "*" ? "[^/]*"
    : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("");
}

/**
 * A temporary user project with the built package installed under node_modules as npm would put
 * it (package.json and dist/), and the SDK and our dependencies linked beside it. Used to measure
 * and test what users get, which differs from running inside this repository.
 */
export function installedProject(prefix = "pulumi-svc-installed-"): { dir: string; remove(): void } {
  const repo = repoRoot();
  if (!fs.existsSync(path.join(repo, "dist/src/index.js"))) throw new Error("dist/ is missing: run npm run build");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const pkg = path.join(dir, "node_modules/pulumi-svc");
  fs.mkdirSync(pkg, { recursive: true });
  fs.copyFileSync(path.join(repo, "package.json"), path.join(pkg, "package.json"));
  // What npm packs of dist/: the package's `files` leave out the source maps and the docs script.
  const left = leftOut(repo);
  fs.cpSync(path.join(repo, "dist"), path.join(pkg, "dist"), { recursive: true, filter: (from) => !left.test(path.relative(repo, from).split(path.sep).join("/")) });
  fs.mkdirSync(path.join(dir, "node_modules/@pulumi"), { recursive: true });
  fs.symlinkSync(path.join(repo, "node_modules/@pulumi/pulumi"), path.join(dir, "node_modules/@pulumi/pulumi"));
  for (const dep of ["undici", "zod"]) fs.symlinkSync(path.join(repo, "node_modules", dep), path.join(dir, "node_modules", dep));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
