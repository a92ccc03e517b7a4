/**
 * Loaded (`--require`) into every provider host this package starts (src/engine/host.ts), and
 * called by the engine double's program process (src/engine/cli.ts), the tests' processes and CI's
 * preload in the programs and hosts the Pulumi CLI starts (scripts/defer-sdk.cjs):
 * the packages @pulumi/pulumi's runtime loads at its start and neither a provider host nor a
 * program that serializes no function ever runs are loaded when first touched instead.
 * @pulumi/pulumi 3.248, the last SDK that runs on Node 20, loads npm's Arborist (about 500
 * modules) to find the code paths of a serialized function and TypeScript (9 MB) to parse one,
 * and every SDK its automation API (under the CLI, its compiled code kept, about 8 ms of a host's
 * CPU and 20 ms of a program's: docs/contributing.md#ci). Without them a host prints its port in
 * about half the time (a test file's first stack and every deployment of the engine double start
 * one) and a program's process starts about 0.4 s sooner (docs/performance.md#testing-your-program).
 *
 * A request is deferred only from the SDK's file named here, and only where Node finds it: a
 * missing package throws at once as it would (typescript-shim.js then takes its own copy).
 * Nothing here imports what it defers.
 */
import Module = require("node:module");
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * By the SDK's file (from its folder), what it requires as it loads that a provider host never
 * calls: packages, and its own automation API (a request relative to that file).
 */
export const DEFERRED: Readonly<Record<string, readonly string[]>> = {
  "index.js": ["./automation"],
  "runtime/closure/codePaths.js": ["@npmcli/arborist", "normalize-package-data"],
  "typescript-shim.js": ["typescript"],
  "automation/localWorkspace.js": ["js-yaml"],
};

/** The script a host runs, from the SDK's folder. */
export const HOST_SCRIPT_IN_SDK = "cmd/dynamic-provider/index.js";
/** The script a language host runs a program with (the official host's and ours), from the SDK's folder. */
export const PROGRAM_SCRIPT_IN_SDK = "cmd/run/index.js";

const HOOKED = Symbol.for("pulumi-svc.deferredSdks");

type Loader = {
  _load(request: string, parent: NodeJS.Module | undefined, isMain: boolean): unknown;
  _resolveFilename(request: string, parent: NodeJS.Module | undefined, isMain: boolean): string;
};

/**
 * A module that is loaded when first touched. It says it is an ES module's namespace, which
 * TypeScript's import helpers (`__importStar`, `__importDefault`) hand back as it is, so an import
 * touches nothing; its `default` is then what they would have made it. A function target, so a
 * module that is a function can be called and constructed.
 */
export function deferredModule(load: () => unknown): unknown {
  let loaded: { exports: any } | undefined;
  const real = (): any => (loaded ??= { exports: load() }).exports;
  const proxy: object = new Proxy(function deferred() {}.bind(null), {
    get: (_, key) => {
      if (key === "__esModule") return true;
      const mod = real();
      return key === "default" && !mod?.__esModule ? mod : Reflect.get(mod, key);
    },
    set: (_, key, value) => Reflect.set(real(), key, value),
    has: (_, key) => key === "__esModule" || key in real(),
    ownKeys: () => Reflect.ownKeys(real()),
    // A proxy may not call a property fixed that its target lacks.
    getOwnPropertyDescriptor: (_, key) => {
      const found = Reflect.getOwnPropertyDescriptor(real(), key);
      return found && { ...found, configurable: true };
    },
    apply: (_, self, args) => Reflect.apply(real(), self, args),
    construct: (_, args, newTarget) => Reflect.construct(real(), args, newTarget === proxy ? real() : newTarget),
  });
  return proxy;
}

/** The entry of the @pulumi/pulumi a program in `programDir` loads: its own, else this package's. */
export function pulumiEntry(programDir: string): string {
  try {
    return require.resolve("@pulumi/pulumi", { paths: [programDir] });
  } catch {
    return require.resolve("@pulumi/pulumi");
  }
}

/** The SDK folder whose script `inSdk` is `script`, else undefined. */
function sdkOf(script: string, inSdk: string): string | undefined {
  return script.endsWith(path.join(path.sep, inSdk)) ? script.slice(0, -inSdk.length) : undefined;
}

/** The SDK folder whose host script `script` is (a provider host's main script), else undefined. */
export function hostSdk(script = process.argv[1] ?? ""): string | undefined {
  return sdkOf(script, HOST_SCRIPT_IN_SDK);
}

/** The SDK folder whose program runner `script` is (a program's main script under a language host), else undefined. */
export function programSdk(script = process.argv[1] ?? ""): string | undefined {
  return sdkOf(script, PROGRAM_SCRIPT_IN_SDK);
}

/**
 * Defers what DEFERRED names in this process for the SDK in the folder `sdk` (another copy of the
 * SDK loads as it would); returns what undoes it.
 */
export function deferSdkPackages(sdk: string): () => void {
  // Node names a module by its real path: the SDK may be linked into the project.
  const real = fs.realpathSync(sdk);
  // Once per SDK and process, whichever copy of this module asks (a test runner may load two).
  const hooked = ((Module as unknown as Record<symbol, Set<string>>)[HOOKED] ??= new Set());
  if (hooked.has(real)) return () => undefined;
  hooked.add(real);
  const byFile = new Map(Object.entries(DEFERRED).map(([file, requests]) => [path.join(real, file), new Set(requests)]));
  const loader = Module as unknown as Loader;
  const load = loader._load;
  loader._load = function (request, parent, isMain) {
    if (!parent?.filename || !byFile.get(parent.filename)?.has(request)) return load.call(this, request, parent, isMain);
    try {
      loader._resolveFilename(request, parent, false);
    } catch {
      return load.call(this, request, parent, isMain);
    }
    return deferredModule(() => load.call(loader, request, parent, false));
  };
  return () => {
    loader._load = load;
    hooked.delete(real);
  };
}

const sdk = hostSdk();
if (sdk !== undefined) deferSdkPackages(sdk);
