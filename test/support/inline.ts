// The engine double's operations with the program run in the test's process, as pulumi-svc/testing
// runs an inline program (src/testing/context.ts), on provider hosts kept between operations
// (src/engine/reuse.ts, whose tests prove nothing of one deployment reaches the next). The double's
// own process (src/engine/cli.ts) is test/engine's subject; here a process per operation (two for
// an up, which previews first) cost about 1.5 s of CPU each, and the suites run hundreds.
import * as path from "node:path";
import { HostPool } from "../../src/engine/reuse";
import { runOperation } from "../../src/engine/runner";
import { stoppedByPreview, type Result, type RunOptions } from "../../src/engine/types";
import { inContext } from "../../src/testing/context";

const hosts = new HostPool();

/**
 * As `runProgram` (src/engine/program.ts) gives it: an up without `skipPreview` previews first and
 * a failed preview ends it before any change, and the program's folder is evaluated anew for each
 * operation (each ran in a fresh process); the package and the SDK stay loaded.
 */
export async function runInline(options: RunOptions & { program: string }): Promise<Result> {
  if (options.operation === "up" && !options.skipPreview) {
    const preview = await runInline({ ...options, operation: "preview" });
    if (preview.error) return stoppedByPreview(preview);
  }
  const folder = path.dirname(options.program) + path.sep;
  const load = () => {
    for (const file of Object.keys(require.cache)) {
      if (file.startsWith(folder) && !file.includes(`${path.sep}node_modules${path.sep}`)) delete require.cache[file];
    }
    return require(options.program) as unknown;
  };
  const config = { config: options.config ?? {}, secretConfig: options.secretConfig ?? {} };
  const diagnostics: string[] = [];
  try {
    return await inContext(options.cwd, config, load, (inline) => runOperation(options, diagnostics, inline, hosts));
  } catch (e) {
    return { operation: options.operation, steps: [], outputs: {}, diagnostics, error: (e as Error).stack ?? String(e) };
  }
}
