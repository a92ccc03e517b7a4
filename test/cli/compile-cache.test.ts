// A provider host's compile cache under the real Pulumi CLI (src/core/compileCache.ts), both ways
// a host meets it: in a user's shell, with no NODE_COMPILE_CACHE, the host keeps its code, compiled
// whole, in the package's folder (on Node 20, which has no compile cache, V8's code cache of what
// it loaded after the runtime's start, with the functions its first calls ran);
// where NODE_COMPILE_CACHE names a folder, as CI does for every process, the host shares it with the
// program and the language host and compiles as they do (with CI's preload, which starts every
// process with the V8 flag a program sets). Either way the next command's processes take every
// entry as it is: none is refused for its V8 flags and written again.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, it } from "vitest";
import { compileCacheDir } from "../../src/core/compileCache";
import { root } from "../support/dist";
import { filesUnder } from "../support/files";
import { CliStack, cliScenarios, describeCli } from "./cli";

const { emu, stacks } = cliScenarios();

/** Each file under `dir` (recursively) with its size and time of last change. */
const entries = (dir: string): Map<string, string> => new Map(filesUnder(dir).map((f) => [f.file, `${f.size} ${f.mtimeMs}`]));

/**
 * Deploys the one-object program with these variables, then previews it: the hosts of `up` write
 * what they compiled into `dir`, and those of `preview` must take every entry as it is.
 */
async function twoCommands(home: string, env: Record<string, string | undefined>, dir: string): Promise<{ first: Map<string, string>; second: Map<string, string> }> {
  const s = await CliStack.create({
    project: "compile-cache", program: path.join(__dirname, "programs/compile-cache/index.js"),
    config: { "svc:secretsUrl": emu().secretsUrl }, secretConfig: { "svc:secretsToken": emu().tokens.secretsRoot },
    env: { NODE_DISABLE_COMPILE_CACHE: undefined, XDG_CACHE_HOME: home, ...env },
  });
  stacks.push(s);
  const up = await s.up();
  expect(up.code, up.text).toBe(0);
  const first = entries(dir);
  const preview = await s.run(["preview", "--expect-no-changes"]);
  expect(preview.code, preview.stdout + preview.stderr).toBe(0);
  const second = entries(dir);
  const destroy = await s.destroy();
  expect(destroy.code, destroy.text).toBe(0);
  return { first, second };
}

describeCli("the provider host's compile cache under the real Pulumi CLI", () => {
  it("with no NODE_COMPILE_CACHE: kept in the package's folder by the first command's hosts, taken as it is by the next command's", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "svc-xdg-"));
    try {
      const dir = compileCacheDir({ XDG_CACHE_HOME: home });
      const { first, second } = await twoCommands(home, { NODE_COMPILE_CACHE: undefined }, dir);
      // The host's pack (one entry for the runtime, the core, zod and undici: src/core/pack.ts) and
      // each module the hosts' entries and kinds loaded from their files.
      expect(first.size).toBeGreaterThanOrEqual(5);
      for (const [file, written] of first) expect(second.get(file), file).toBe(written);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  }, 300_000);

  it("with NODE_COMPILE_CACHE and CI's preload (every process starts with the program's V8 flag): nothing the next command's processes load is refused and written again", async () => {
    // Where the host shares the folder with the program and the language host, it compiles as they
    // do (lazily); @pulumi/pulumi sets a V8 flag in a program, which the preload gives every process
    // from its start (without it, hundreds of modules were refused and written again each command).
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "svc-xdg-"));
    try {
      const dir = path.join(home, "node-compile-cache");
      const preload = `--require ${path.join(root, "scripts/compile-cache.cjs")}`;
      const { first, second } = await twoCommands(home, { NODE_COMPILE_CACHE: dir, NODE_OPTIONS: preload }, dir);
      // The package's folder is not used where the user named one.
      expect(fs.existsSync(compileCacheDir({ XDG_CACHE_HOME: home }))).toBe(false);
      expect(first.size).toBeGreaterThan(0);
      for (const [file, written] of first) expect(second.get(file), file).toBe(written);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  }, 300_000);
});
