import { jsonReply, type Incoming, type Reply } from "../http";
import type { Runtime } from "../runtime";
import { now } from "../util";
import { DEFAULT_RUN_MESSAGE } from "./run-create";
import { buildRun, queueRun, type RunFields } from "./run-factory";
import { COMPLETED_STATUSES, OPERATIONS, SOURCES, insertRun, type Run, type RunOperation, type RunSource, type RunStatus } from "./state";
import { timestampKey } from "./runPath";
import { fail, objectBody } from "./control-body";

/**
 * POST /_emulator/runs: many runs at once for list, search and benchmark tests. Without `status`
 * each run is queued as POST /runs would (lock, run:created); with a completed status the run is
 * stored already finished and touches neither the lock nor notifications.
 */

const MAX_COUNT = 10_000;

interface Bulk {
  workspaceId: string;
  count: number;
  source: RunSource;
  message: string;
  commitSha: string | null;
  vcsUsername: string | null;
  createdBy: string | null;
  status: RunStatus | null;
  operation: RunOperation;
}

function read(rt: Runtime, b: Record<string, unknown>): Bulk | string {
  const state = rt.store.data.run;
  const optionalText = (key: string) => b[key] === undefined || b[key] === null || typeof b[key] === "string";
  if (typeof b.workspaceId !== "string" || !state.workspaces[b.workspaceId]) return "workspaceId must name an existing workspace";
  const count = b.count ?? 1;
  if (!Number.isSafeInteger(count) || (count as number) < 1 || (count as number) > MAX_COUNT) return `count must be an integer from 1 to ${MAX_COUNT}`;
  if (b.source !== undefined && !(SOURCES as readonly unknown[]).includes(b.source)) return `source must be one of ${SOURCES.join(", ")}`;
  if (b.status !== undefined && !COMPLETED_STATUSES.has(b.status as RunStatus)) return `status must be a final status: ${[...COMPLETED_STATUSES].join(", ")}`;
  if (b.operation !== undefined && !(OPERATIONS as readonly unknown[]).includes(b.operation)) return `operation must be one of ${OPERATIONS.join(", ")}`;
  for (const key of ["message", "commitSha", "vcsUsername", "createdBy"]) if (!optionalText(key)) return `${key} must be a string`;
  const createdBy = (b.createdBy as string | undefined) ?? null;
  if (createdBy !== null && !state.users[createdBy]) return `createdBy: no user ${createdBy}`;
  return {
    workspaceId: b.workspaceId,
    count: count as number,
    source: (b.source as RunSource | undefined) ?? "svc-api",
    message: (b.message as string | undefined) ?? DEFAULT_RUN_MESSAGE,
    commitSha: (b.commitSha as string | undefined) ?? null,
    vcsUsername: (b.vcsUsername as string | undefined) ?? (createdBy ? state.users[createdBy].username : null),
    createdBy,
    status: (b.status as RunStatus | undefined) ?? null,
    operation: (b.operation as RunOperation | undefined) ?? "plan_and_apply",
  };
}

function fields(rt: Runtime, bulk: Bulk): RunFields {
  const state = rt.store.data.run;
  const ws = state.workspaces[bulk.workspaceId];
  const name = bulk.createdBy ? state.users[bulk.createdBy].username : null;
  const autoApply = ws.settings?.autoApply ?? false;
  return {
    workspaceId: ws.id,
    configurationVersionId: state.latestConfigurationVersions[ws.id] ?? null,
    source: bulk.source,
    message: bulk.message,
    createdByUserId: bulk.createdBy,
    createdByName: name,
    updatedByName: name,
    vcsUsername: bulk.vcsUsername,
    commitSha: bulk.commitSha,
    autoApply,
    autoApplyEffective: autoApply,
    allowEmptyApply: bulk.operation === "empty_apply",
    allowConfigGeneration: false,
    isDestroy: bulk.operation === "destroy",
    planOnly: bulk.operation === "plan_only",
    refresh: true,
    refreshOnly: bulk.operation === "refresh_only",
    targetAddrs: null,
    replaceAddrs: null,
    variables: [],
    toolVersion: null,
    triggerReason: "manual",
  };
}

/** A run stored directly in a completed status, as if it had got there long ago. */
function finish(run: Run, status: RunStatus): void {
  const at = now();
  run.status = status;
  run.hasChanges = run.outcome.hasChanges;
  run.statusTimestamps[timestampKey(status)] = at;
  if (status === "canceled" || status === "force_canceled") run.canceledAt = at;
}

export function bulkCreate(rt: Runtime, req: Incoming): Reply {
  const parsed = objectBody(req);
  if (!parsed.ok) return parsed.reply;
  const bulk = read(rt, parsed.value);
  if (typeof bulk === "string") return fail(400, bulk);
  const state = rt.store.data.run;
  const ws = state.workspaces[bulk.workspaceId];
  const ids: string[] = [];
  for (let i = 0; i < bulk.count; i++) {
    const run = buildRun(state, ws, fields(rt, bulk));
    // An empty apply is a plan without changes that is applied anyway.
    if (bulk.operation === "empty_apply") run.outcome.hasChanges = false;
    if (bulk.status) {
      finish(run, bulk.status);
      insertRun(state, run);
    } else {
      queueRun(rt, run);
    }
    ids.push(run.id);
  }
  return jsonReply(201, { ids });
}
