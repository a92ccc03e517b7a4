/**
 * Each area's exports of its kinds, from the build: the index of a kind's folder (src/runs/index.ts,
 * src/secrets/<area>/index.ts) exports its class and its arguments' type,
 * `export { Alphabet, type AlphabetArgs } from "./alphabet";`, a line `npm run docs` writes into
 * the index's block (docs/blocks.ts) for every kind's file (docs/kinds.ts). So a new kind's file is
 * what the package exports; what else it makes public (its functions, its words) the index exports
 * by hand, beside the block.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { BlockError, withBlock, type BlockLine } from "./blocks";
import { kindFiles, KindFileError, type KindFile } from "./kinds";

/** The type a kind's class takes its arguments as (`AlphabetArgs`), read from its declaration; the file must export it. */
function argsTypeOf(dist: string, k: KindFile): string {
  const dts = fs.readFileSync(path.join(dist, "src", `${k.module}.d.ts`), "utf8");
  const args = new RegExp(`class ${k.className} extends [\\s\\S]*?constructor\\(name: string, args\\??: (\\w+)`).exec(dts)?.[1];
  if (args === undefined) throw new KindFileError(`src/${k.module}.ts: the constructor of ${k.className} takes no (name, args) whose type can be exported`);
  if (!new RegExp(`export (declare )?(type|interface) ${args}\\b`).test(dts)) throw new KindFileError(`src/${k.module}.ts does not export ${args}, the type of ${k.className}'s arguments`);
  return args;
}

/** Each area index that exports kinds (a path relative to the package folder) and its text with the kinds' lines written anew. */
export function areaExportFiles(root: string): { file: string; text: string }[] {
  const dist = path.join(root, "dist");
  const byIndex = new Map<string, BlockLine[]>();
  for (const k of kindFiles(dist)) {
    const index = path.posix.join("src", path.posix.dirname(k.module), "index.ts");
    const module = `./${path.posix.basename(k.module)}`;
    const line = { module, text: `export { ${k.className}, type ${argsTypeOf(dist, k)} } from "${module}";` };
    byIndex.set(index, [...(byIndex.get(index) ?? []), line]);
  }
  return [...byIndex].map(([index, lines]) => {
    try {
      return { file: index, text: withBlock(path.join(root, index), lines) };
    } catch (e) {
      throw e instanceof BlockError ? new KindFileError(`${index} exports kinds: ${e.message}`) : e;
    }
  });
}
