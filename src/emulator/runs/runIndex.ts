import type { Run, RunState } from "./state";

/**
 * Runs of each workspace in creation order, so listing 5,000 runs of one workspace never scans
 * or sorts every run of the emulator. The index is derived, never persisted: it is keyed by the
 * runs record itself, so a reset or a state file loaded at start (a new record) rebuilds it.
 */
interface Index {
  byWorkspace: Map<string, Run[]>;
  maxSeq: number;
}

const indexes = new WeakMap<Record<string, Run>, Index>();

function indexOf(state: RunState): Index {
  let index = indexes.get(state.runs);
  if (!index) {
    index = { byWorkspace: new Map(), maxSeq: 0 };
    for (const run of Object.values(state.runs).sort((a, b) => a.seq - b.seq)) add(index, run);
    indexes.set(state.runs, index);
  }
  return index;
}

function add(index: Index, run: Run): void {
  let list = index.byWorkspace.get(run.workspaceId);
  if (!list) index.byWorkspace.set(run.workspaceId, (list = []));
  list.push(run);
  index.maxSeq = Math.max(index.maxSeq, run.seq);
}

export function nextSeq(state: RunState): number {
  return indexOf(state).maxSeq + 1;
}

/** Stores a new run; every run enters the state through here so the index stays whole. */
export function insertRun(state: RunState, run: Run): void {
  state.runs[run.id] = run;
  add(indexOf(state), run);
}

/** Oldest first. The array is the index's own: callers must not change it. */
export function runsOf(state: RunState, workspaceId: string): readonly Run[] {
  return indexOf(state).byWorkspace.get(workspaceId) ?? [];
}
