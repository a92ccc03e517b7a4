/**
 * The modules a provider host's first Check loads (the runtime entry, the core, the HTTP client,
 * zod, undici's Agent: about 100), taken from the one file the build packs them in
 * (src/scripts/pack.ts) instead of from their own files. On Node 20 each module costs its loader
 * a resolution (a `stat` per path tried), a read, a compile or a code cache's digest and read,
 * and its text allocated again: the same code from one file took 32 ms against 38 in one process
 * (docs/performance.md, "Cold start in the provider host").
 *
 * Each module runs as Node would run it: its own code, under its own file's name, with a module
 * object entered in the require cache, so that a later `require` of the same file from anywhere
 * gets the same exports. A module is taken from the pack only where its file is the one packed:
 * its package's version is the packed one and its size the same (npm gives every file of a
 * package the same time, so the time tells nothing). Otherwise, and for what the pack does not
 * hold, Node loads the file.
 */
import * as fs from "node:fs";
import Module = require("node:module");
import * as path from "node:path";
import { requireFor, type Loaded } from "./scriptCache";

/**
 * One module: where it is (a path in this package, or a package's name, a colon and a path in
 * it), its size, the requests its code makes that name other packed modules, and its code.
 */
export type PackedModule = [where: string, size: number, requests: Record<string, number>, code: ModuleCode];
export type ModuleCode = (this: unknown, exports: unknown, require: NodeJS.Require, module: Loaded, filename: string, dirname: string) => void;

/** What src/scripts/pack.ts writes. */
export interface Pack {
  /** The version of each package the pack holds modules of, as packed. */
  packages: Record<string, string>;
  /** The module the pack is loaded for (the runtime entry). */
  entry: number;
  modules: PackedModule[];
}

type Loader = {
  _nodeModulePaths(dir: string): string[];
  _extensions: Record<string, (mod: Loaded, filename: string) => void>;
};
const loader = Module as unknown as Loader;

/**
 * The exports of the pack's entry, each module it requires taken from the pack where it can be;
 * undefined when the pack is absent, unreadable, or its entry's file is not the one packed. From
 * then on Node takes any packed module from the pack too (one its own files require).
 */
export function loadPack(file: string): unknown {
  let pack: Pack;
  try {
    pack = require(file) as Pack;
  } catch {
    return undefined;
  }
  const packed = new Packed(pack, path.dirname(file));
  if (!packed.usable(pack.entry)) return undefined;
  packed.takeFromNode();
  return packed.load(pack.entry, require.cache[__filename] as Loaded);
}

class Packed {
  /** Each module's file; null where its package is not the version packed. */
  private readonly files: Array<string | null>;
  private readonly sized: Array<boolean | undefined> = [];

  constructor(private readonly pack: Pack, own: string) {
    const roots = new Map<string, string | undefined>([["", own]]);
    for (const [name, version] of Object.entries(pack.packages)) roots.set(name, packageRoot(own, name, version));
    this.files = pack.modules.map(([where]) => {
      const colon = where.indexOf(":");
      const dir = roots.get(colon < 0 ? "" : where.slice(0, colon));
      return dir === undefined ? null : path.join(dir, where.slice(colon + 1));
    });
  }

  /** Whether the module's file is the one packed: its package's version, and its size. */
  usable(i: number): boolean {
    const f = this.files[i];
    return typeof f === "string" && (this.sized[i] ??= fs.statSync(f, { throwIfNoEntry: false })?.size === this.pack.modules[i]![1]);
  }

  /** A packed module that one of the pack's modules requires, without resolving the request again. */
  load(i: number, parent: Loaded): unknown {
    const filename = this.files[i]!;
    const cached = require.cache[filename];
    if (cached) return cached.exports;
    const mod = new Module(filename, parent) as Loaded;
    mod.filename = filename;
    mod.paths = loader._nodeModulePaths(path.dirname(filename));
    require.cache[filename] = mod;
    let ran = false;
    try {
      this.run(i, mod, filename);
      ran = true;
    } finally {
      // As Node does: a module that threw is not kept, so the next require runs it again.
      if (!ran) delete require.cache[filename];
    }
    mod.loaded = true;
    return mod.exports;
  }

  /**
   * A packed module that a file requires (a kind's module requires the core): Node resolves it
   * and makes its module as for any file, the pack gives the code in place of the file's.
   */
  takeFromNode(): void {
    const byFile = new Map<string, number>();
    this.files.forEach((f, i) => f && byFile.set(f, i));
    // Node reads a .cjs file with .js's reader unless it has one of its own (Node 23 on).
    for (const ext of [".js", ".cjs"]) {
      const read = loader._extensions[ext];
      if (read === undefined) continue;
      loader._extensions[ext] = (mod, filename) => {
        const i = byFile.get(filename);
        if (i === undefined || !this.usable(i)) return read.call(loader._extensions, mod, filename);
        this.run(i, mod, filename);
      };
    }
  }

  private run(i: number, mod: Loaded, filename: string): void {
    const [, , requests, code] = this.pack.modules[i]!;
    const req = requireFor(mod, (id) => {
      const j = requests[id];
      return j !== undefined && this.usable(j) ? this.load(j, mod) : mod.require(id);
    });
    code.call(mod.exports, mod.exports, req, mod, filename, path.dirname(filename));
  }
}

/** The folder of package `name` as the pack's modules would find it, if its version is `version`. */
function packageRoot(from: string, name: string, version: string | undefined): string | undefined {
  try {
    const manifest = require.resolve(`${name}/package.json`, { paths: [from] });
    const found = (JSON.parse(fs.readFileSync(manifest, "utf8")) as { version?: unknown }).version;
    return found === version ? path.dirname(manifest) : undefined;
  } catch {
    return undefined;
  }
}
