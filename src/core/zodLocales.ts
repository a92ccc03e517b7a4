/**
 * zod's locales, loaded when first used rather than with zod. zod's core requires each of its 64
 * locale modules so that `z.locales` can offer them, and the package uses none of them (zod's
 * English messages come from its own `en` module, which zod requires directly): in a provider
 * host's first Check they were 66 of zod's 95 modules and about a third of its load time
 * (docs/performance.md, "Cold start in the provider host").
 *
 * Node's require cache may be given entries (its documented `require.cache`): before zod is first
 * required, the module zod loads its locales from is entered there as an object that requires the
 * real one on first use, so `z.locales.fr()` and a listing of `z.locales` still work. Nothing is
 * done when zod is loaded already, or when its locales are no longer where zod 4 keeps them (zod
 * then loads them itself, as before); test/unit/cold-start.test.ts holds both halves.
 */
import Module = require("node:module");

/** The module whose exports zod's core gives as `z.locales`, as zod's exports name it. */
export const LOCALES_ENTRY = "zod/v4/locales";

/** Enters zod's locales in the require cache as a module that loads them when first used. */
export function deferZodLocales(): void {
  let file: string;
  let zod: string;
  try {
    file = require.resolve(LOCALES_ENTRY);
    zod = require.resolve("zod");
  } catch {
    return;
  }
  if (require.cache[file] !== undefined || require.cache[zod] !== undefined) return;
  let real: object | undefined;
  const locales = (): object => (real ??= loadReal(file));
  const entry = new Module(file);
  entry.filename = file;
  entry.loaded = true;
  // zod takes a module marked __esModule as it is, without reading its members.
  entry.exports = new Proxy({}, {
    get: (_t, key) => (key === "__esModule" ? true : Reflect.get(locales(), key)),
    has: (_t, key) => key === "__esModule" || Reflect.has(locales(), key),
    ownKeys: () => Reflect.ownKeys(locales()),
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(locales(), key);
      return d && { value: Reflect.get(locales(), key), writable: false, enumerable: d.enumerable, configurable: true };
    },
  });
  require.cache[file] = entry;
}

/** The real module, required in place of the deferred entry. */
function loadReal(file: string): object {
  const deferred = require.cache[file];
  delete require.cache[file];
  try {
    return require(file) as object;
  } finally {
    // The real module is in the cache now; the entry goes back only if requiring it failed.
    if (require.cache[file] === undefined && deferred) require.cache[file] = deferred;
  }
}

deferZodLocales();
