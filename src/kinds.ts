/**
 * Every resource kind the runtime can serve. Which module declares each kind is written by
 * `npm run docs` in src/kindLoaders.ts from the kinds' files and the package's exports. Each kind's
 * module is required only when that kind is first used, so a provider host that serves one kind
 * loads only that kind and what it imports (cold start of the first Check).
 */
import type { ResourceDefinition } from "./core/definition";
import { LOADERS } from "./kindLoaders";

/** Every kind's name, in the order the package exports the kinds' classes. */
export const KIND_NAMES: readonly string[] = Object.keys(LOADERS);

const loaded = new Map<string, ResourceDefinition>();
const modules = new Map<string, Record<string, unknown>>();

/** The module of `kind` (loaded on first use), whose exports hold its definition and its class. */
export async function kindModule(kind: string): Promise<Record<string, unknown> | undefined> {
  let mod = modules.get(kind);
  if (mod === undefined && Object.prototype.hasOwnProperty.call(LOADERS, kind)) {
    mod = (await LOADERS[kind]()) as Record<string, unknown>;
    modules.set(kind, mod);
  }
  return mod;
}

/** The one export of a kind's module that is the kind's definition. */
function definitionIn(mod: Record<string, unknown>, kind: string): ResourceDefinition {
  const defs = [...new Set(Object.values(mod).filter((v): v is ResourceDefinition =>
    typeof v === "object" && v !== null && (v as ResourceDefinition).kind === kind && typeof (v as ResourceDefinition).create === "function"))];
  if (defs.length !== 1) throw new Error(`${kind}: its module exports ${defs.length} definitions of it, not one`);
  return defs[0]!;
}

/** The definition of `kind` when its module is loaded already (every call after the first). */
export function loadedDefinition(kind: string): ResourceDefinition | undefined {
  return loaded.get(kind);
}

/** The definition of `kind`, loading its module on first use; undefined for an unknown kind. */
export async function kindDefinition(kind: string): Promise<ResourceDefinition | undefined> {
  let def = loaded.get(kind);
  if (def === undefined) {
    const mod = await kindModule(kind);
    if (mod === undefined) return undefined;
    def = definitionIn(mod, kind);
    loaded.set(kind, def);
  }
  return def;
}
