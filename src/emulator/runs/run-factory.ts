import type { Runtime } from "../runtime";
import { insertRun, nextSeq, type Run, type RunState, type Workspace } from "./state";
import { now, randomId } from "../util";
import { assignLock } from "./run-lock";
import { timestampKey } from "./runPath";
import { emitRunEvent } from "./notify";

/** Everything a new run needs that is not derived; shared by POST /runs and POST /_emulator/runs. */
export type RunFields = Omit<
  Run,
  "id" | "seq" | "status" | "statusTimestamps" | "createdAt" | "updatedAt" | "canceledAt" | "hasChanges" | "cancelRequested" | "forceCancelAvailableAt" | "outcome" | "planId" | "applyId" | "costEstimateId" | "policyCheckId" | "comments"
>;

function freshId(state: RunState, prefix: string): string {
  let id = randomId(prefix);
  while (state.runs[id]) id = randomId(prefix);
  return id;
}

/** A pending run with the workspace's settings as its outcome; not stored yet. */
export function buildRun(state: RunState, workspace: Workspace, fields: RunFields): Run {
  const at = now();
  const settings = workspace.settings ?? {};
  const costEstimation = settings.costEstimation === true;
  return {
    ...fields,
    id: freshId(state, "run"),
    seq: nextSeq(state),
    status: "pending",
    statusTimestamps: { [timestampKey("pending")]: at },
    createdAt: at,
    updatedAt: at,
    canceledAt: null,
    hasChanges: false,
    cancelRequested: false,
    forceCancelAvailableAt: null,
    outcome: { hasChanges: true, costEstimation, policy: settings.policy ?? "none", error: null },
    planId: randomId("plan"),
    applyId: randomId("apply"),
    costEstimateId: costEstimation ? randomId("ce") : null,
    policyCheckId: null,
    comments: [],
  };
}

/** Stores a pending run: it becomes its configuration version's latest use, may take the lock, and fires run:created. */
export function queueRun(rt: Runtime, run: Run): void {
  const state = rt.store.data.run;
  insertRun(state, run);
  if (run.configurationVersionId) state.latestConfigurationVersions[run.workspaceId] = run.configurationVersionId;
  assignLock(state, run.workspaceId);
  emitRunEvent(rt, run, "run:created");
}
