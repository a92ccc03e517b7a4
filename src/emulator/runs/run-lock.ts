import { runsOf, type Run, type RunState } from "./state";

/**
 * One run per workspace holds the lock. The oldest pending run takes a free lock at once (on
 * create, or when the holder completes) and leaves pending on its next step; a pending run
 * without the lock waits.
 */

export function lockHolder(state: RunState, workspaceId: string): Run | undefined {
  const id = state.workspaceLocks[workspaceId];
  return id === undefined ? undefined : state.runs[id];
}

export function holdsLock(state: RunState, run: Run): boolean {
  return state.workspaceLocks[run.workspaceId] === run.id;
}

/** Gives a free lock to the oldest pending run of the workspace, if any. */
export function assignLock(state: RunState, workspaceId: string): void {
  if (lockHolder(state, workspaceId)) return;
  const next = runsOf(state, workspaceId).find((r) => r.status === "pending");
  if (next) state.workspaceLocks[workspaceId] = next.id;
  else delete state.workspaceLocks[workspaceId];
}

/** Called when `run` completes: frees its lock and hands it to the next pending run. */
export function releaseLock(state: RunState, run: Run): void {
  if (!holdsLock(state, run)) return;
  delete state.workspaceLocks[run.workspaceId];
  assignLock(state, run.workspaceId);
}

/** Force-execute: `run` takes the lock from whoever holds it. */
export function takeLock(state: RunState, run: Run): void {
  state.workspaceLocks[run.workspaceId] = run.id;
}
