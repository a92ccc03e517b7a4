import type { Runtime } from "../clusterRuntime";
import { mountableTypes } from "../secrets";
import { seal, STATE_KEY_ENV, unseal } from "./stateFile";
import { readDocument, type Store } from "./store";
import { isRecord } from "../util";

/**
 * The whole emulator as one document: cluster 0's state-file document with a `clusters` list of the
 * further clusters' documents, sealed with cluster 0's key exactly as a state file is. A state file
 * is therefore the snapshot of a one-cluster emulator, and nothing has a second serialiser.
 */

export class SnapshotError extends Error {}

/** Every cluster's store, cluster 0 first, whichever cluster's runtime asks. */
export const storesOf = (rt: Runtime): Store[] => [...rt.cluster.network.clusters].sort((a, b) => a.index - b.index).map((c) => c.store);

const KEY_HINT = `start both emulators with the same ${STATE_KEY_ENV} (a snapshot is sealed with the state key)`;

/** Clusters are passed in order, cluster 0 first. */
export function takeSnapshot(stores: readonly Store[]): string {
  const [first, ...rest] = stores;
  return seal(JSON.stringify({ ...first.document(), clusters: rest.map((s) => s.document()) }), first.key);
}

/** Restores every cluster, or none: each document is checked before any store changes. */
export function restoreSnapshot(stores: readonly Store[], text: string, source = "the snapshot"): void {
  let parsed: unknown;
  try {
    parsed = unseal(source, text, () => stores[0].key, KEY_HINT);
  } catch (err) {
    throw new SnapshotError((err as Error).message);
  }
  const further = isRecord(parsed) ? parsed.clusters ?? [] : [];
  if (!Array.isArray(further)) throw new SnapshotError(`${source}: clusters must be a list`);
  const documents = [parsed, ...further];
  if (documents.length !== stores.length) {
    throw new SnapshotError(`${source} holds ${documents.length} cluster(s) but this emulator runs ${stores.length}: start it with --clusters ${documents.length}`);
  }
  const states = documents.map((doc, i) => {
    const where = i === 0 ? source : `${source} (cluster ${i})`;
    try {
      return checked(where, readDocument(where, doc));
    } catch (err) {
      throw err instanceof SnapshotError ? err : new SnapshotError((err as Error).message);
    }
  });
  stores.forEach((store, i) => store.replace(states[i]));
}

/**
 * Every part of both services is a map (as the initial state is), and every mount names an engine this
 * emulator has: a document that passes cannot make a later request fail on its shape.
 */
function checked<T extends ReturnType<typeof readDocument>>(where: string, state: T): T {
  for (const service of ["run", "secrets"] as const) {
    for (const [part, value] of Object.entries(state.data[service])) {
      if (!isRecord(value)) throw new SnapshotError(`${where}: data.${service}.${part} must be an object`);
    }
  }
  const mounts = state.data.secrets.mounts as Record<string, unknown>;
  for (const [path, mount] of Object.entries(mounts)) {
    if (!isRecord(mount) || typeof mount.type !== "string" || !mountableTypes().includes(mount.type) || !isRecord(mount.objects)) {
      throw new SnapshotError(`${where}: mount ${JSON.stringify(path)} must be {type: ${mountableTypes().join(" | ")}, objects: {...}}`);
    }
  }
  return state;
}
