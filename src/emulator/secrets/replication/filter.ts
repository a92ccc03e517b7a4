import type { PathsFilter } from "./state";

/** `transform`, `/transform/` and `transform/` all name the mount `transform/`. */
export function filterPath(path: string): string {
  return `${path.trim().replace(/^\/+|\/+$/g, "")}/`;
}

/**
 * Whether a mount (stored without a trailing slash) replicates under a filter. A filter path names
 * a mount, or a prefix of nested mount paths (a namespace); no filter replicates everything.
 */
export function admits(filter: PathsFilter | undefined, mountPath: string): boolean {
  if (!filter) return true;
  const listed = filter.paths.some((p) => `${mountPath}/`.startsWith(p));
  return filter.mode === "allow" ? listed : !listed;
}
