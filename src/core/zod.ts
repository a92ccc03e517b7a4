/**
 * zod as the package's files use it, loaded when a schema is first built rather than when a file
 * is. A program only declares resources (the provider host validates them), so it never builds a
 * schema: without this, each object file's `import { z } from "zod"` made every preview's and up's
 * program load zod's 95 modules, about 50 ms of its start on Node 20 (docs/performance.md,
 * "A program's start").
 *
 * Type positions name zod's own namespace (`import type { z as Zod } from "zod"`): this is a value.
 */
import type { z as Zod } from "zod";

let real: typeof Zod | undefined;

/** zod's `z`, required on first use. */
export function zod(): typeof Zod {
  return (real ??= (require("zod") as typeof import("zod")).z);
}

/** zod's `z`: each member is zod's own, taken when first read. */
export const z: typeof Zod = new Proxy({} as typeof Zod, {
  get: (_t, key) => Reflect.get(zod(), key),
  has: (_t, key) => Reflect.has(zod(), key),
  ownKeys: () => Reflect.ownKeys(zod()),
  getOwnPropertyDescriptor: (_t, key) => {
    const d = Reflect.getOwnPropertyDescriptor(zod(), key);
    return d && { value: Reflect.get(zod(), key), writable: false, enumerable: d.enumerable, configurable: true };
  },
});
