import { seal, STATE_KEY_ENV, unseal } from "./stateFile";
import type { StoredState } from "./state";
import type { Store } from "./store";
import { isRecord } from "../util";

/**
 * The whole emulator as one document: cluster 0's state-file document with a `clusters` list of the
 * further clusters' documents, sealed with cluster 0's key exactly as a state file is. A state file
 * is therefore the snapshot of a one-cluster emulator, and nothing has a second serialiser.
 */

export class SnapshotError extends Error {}

const KEY_HINT = `start both emulators with the same ${STATE_KEY_ENV} (a snapshot is sealed with the state key)`;

/** Clusters are passed in order, cluster 0 first. */
export function takeSnapshot<D, T extends object>(stores: readonly Store<D, T>[]): string {
  const [first, ...rest] = stores;
  return seal(JSON.stringify({ ...first.document(), clusters: rest.map((s) => s.document()) }), first.key);
}

/** Restores every cluster, or none: each document is checked before any store changes. */
export function restoreSnapshot<D, T extends object>(stores: readonly Store<D, T>[], text: string, source = "the snapshot"): void {
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
  const states = documents.map((doc, i) => checked(stores[i], i === 0 ? source : `${source} (cluster ${i})`, doc));
  stores.forEach((store, i) => store.replace(states[i]));
}

/** One cluster's document as its store reads it, refused when its shape is not what the areas store. */
function checked<D, T extends object>(store: Store<D, T>, where: string, doc: unknown): StoredState<D, T> {
  let state: StoredState<D, T>;
  try {
    state = store.model.read(where, doc);
  } catch (err) {
    throw new SnapshotError((err as Error).message);
  }
  const problem = store.model.problem(state.data);
  if (problem !== undefined) throw new SnapshotError(`${where}: ${problem}`);
  return state;
}
