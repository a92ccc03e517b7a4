import type * as pulumi from "@pulumi/pulumi";

/**
 * What the runtime entry (src/runtime.ts, `pulumi-svc/runtime`) offers the trampoline. Declared here rather than
 * imported, so the classes users construct do not depend on the runtime and what it loads.
 */
export interface RuntimeEntry {
  configure(req: pulumi.dynamic.ConfigureRequest): Promise<void>;
  call(kind: string, method: "check" | "diff" | "create" | "read" | "update" | "delete", args: unknown[]): Promise<any>;
  checkForEngine(kind: string, olds: unknown, news: unknown): Promise<any>;
}

/**
 * The object handed to `pulumi.dynamic.Resource`. It is serialized into every resource's state, so
 * it captures only two strings: the kind and, as a fallback, the absolute path of the runtime entry
 * (used when the program directory cannot resolve the package by name, as inside this repository).
 * Everything else is required when a method runs, in the provider host process.
 */
export function makeProvider(kind: string): pulumi.dynamic.ResourceProvider {
  // The entry sits above the definitions it loads, so core names it as the package's exports do
  // (Node resolves a package's own name from inside it), never by a path out of core.
  const runtimePath = require.resolve("pulumi-svc/runtime");
  function load(): RuntimeEntry {
    try {
      return require("pulumi-svc/runtime");
    } catch (e) {
      if ((e as { code?: string }).code !== "MODULE_NOT_FOUND") throw e;
      return require(runtimePath);
    }
  }
  return {
    configure(req) { return load().configure(req); },
    check(olds, news) { return load().checkForEngine(kind, olds, news); },
    diff(id, olds, news) { return load().call(kind, "diff", [id, olds, news]); },
    create(inputs) { return load().call(kind, "create", [inputs]); },
    read(id, props) { return load().call(kind, "read", [id, props]); },
    update(id, olds, news) { return load().call(kind, "update", [id, olds, news]); },
    delete(id, props) { return load().call(kind, "delete", [id, props]); },
  } as pulumi.dynamic.ResourceProvider;
}

const providers = new Map<string, pulumi.dynamic.ResourceProvider>();

/** One provider object per kind, so the SDK serializes it once per process. */
export function providerFor(kind: string): pulumi.dynamic.ResourceProvider {
  let p = providers.get(kind);
  if (!p) providers.set(kind, (p = makeProvider(kind)));
  return p;
}
