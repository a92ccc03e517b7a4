import { jsonReply, type Reply } from "../transport/http";
import type { Route } from "../transport/router";
import type { Runtime } from "../clusterRuntime";
import { isRecord, now, randomId } from "../util";
import { fail, withObject } from "./control";
import { DEFAULT_RUN_MESSAGE, buildRun, queueRun, type RunFields } from "./runCreate";
import { timestampKey } from "./runStateMachine";
import { insertRun } from "./runIndex";
import { DEFAULT_ORGANIZATION, type Run, type RunState, type WorkspaceSettings } from "./state";
import { COMPLETED_STATUSES, HOLDABLE_STATUSES, OPERATIONS, POLICY_MODES, SOURCES, type HoldableStatus, type PolicyMode, type RunOperation, type RunSource, type RunStatus } from "./vocabulary";

/**
 * The run service's data put in by tests and examples: POST /_emulator/seed (organizations,
 * workspaces with their settings, users, configuration versions) and POST /_emulator/runs (runs
 * in bulk). Both check everything before changing anything.
 */

interface SeedResult {
  organizations: { name: string }[];
  workspaces: { id: string; name: string; organization: string }[];
  users: { id: string; username: string; email: string }[];
  configurationVersions: SeededCv[];
}

const ID = /^[A-Za-z0-9_-]+$/;

/**
 * Adds or replaces organizations, workspaces and users. Validates everything first so a bad
 * entry leaves the state untouched; returns a message naming the bad field instead.
 */
function seed(state: RunState, input: unknown): SeedResult | string {
  if (!isRecord(input)) return "body must be a JSON object";
  const lists: Record<string, unknown[]> = {};
  for (const key of ["organizations", "workspaces", "users", "configurationVersions"]) {
    const value = input[key] ?? [];
    if (!Array.isArray(value)) return `${key} must be an array`;
    lists[key] = value;
  }
  for (const [i, org] of lists.organizations.entries()) {
    if (!isRecord(org) || typeof org.name !== "string" || !ID.test(org.name)) return `organizations[${i}].name must be a non-empty name of letters, digits, - and _`;
  }
  for (const [i, ws] of lists.workspaces.entries()) {
    if (!isRecord(ws) || typeof ws.name !== "string" || ws.name === "") return `workspaces[${i}].name is required`;
    if (ws.id !== undefined && (typeof ws.id !== "string" || !ID.test(ws.id))) return `workspaces[${i}].id must be letters, digits, - and _`;
    if (ws.organization !== undefined && (typeof ws.organization !== "string" || !ID.test(ws.organization))) return `workspaces[${i}].organization must be a name`;
    const settings = readWorkspaceSettings(ws, i);
    if (typeof settings === "string") return settings;
  }
  const workspaceIds = new Set([...Object.keys(state.workspaces), ...lists.workspaces.map((ws) => (ws as { id?: string }).id).filter((id): id is string => id !== undefined)]);
  const badCv = checkConfigurationVersions(lists.configurationVersions, workspaceIds);
  if (badCv !== undefined) return badCv;
  const usernames = new Map(Object.values(state.users).map((u) => [u.username, u.id]));
  for (const [i, user] of lists.users.entries()) {
    if (!isRecord(user) || typeof user.username !== "string" || user.username === "") return `users[${i}].username is required`;
    if (user.id !== undefined && (typeof user.id !== "string" || !ID.test(user.id))) return `users[${i}].id must be letters, digits, - and _`;
    if (user.email !== undefined && typeof user.email !== "string") return `users[${i}].email must be a string`;
    const owner = usernames.get(user.username);
    if (owner !== undefined && owner !== user.id) return `users[${i}].username ${user.username} is taken by ${owner}`;
  }

  const at = now();
  const result: SeedResult = { organizations: [], workspaces: [], users: [], configurationVersions: [] };
  const ensureOrg = (name: string) => {
    state.organizations[name] ??= { name, createdAt: at };
    if (!result.organizations.some((o) => o.name === name)) result.organizations.push({ name });
  };
  for (const org of lists.organizations as { name: string }[]) ensureOrg(org.name);
  for (const [i, ws] of (lists.workspaces as { id?: string; name: string; organization?: string }[]).entries()) {
    const organization = ws.organization ?? DEFAULT_ORGANIZATION;
    if (!state.organizations[organization]) ensureOrg(organization);
    const id = ws.id ?? randomId("ws");
    // Validated above, so this is never the error message.
    const settings = readWorkspaceSettings(ws, i) as WorkspaceSettings;
    state.workspaces[id] = { id, name: ws.name, organization, createdAt: state.workspaces[id]?.createdAt ?? at, settings };
    result.workspaces.push({ id, name: ws.name, organization });
  }
  for (const user of lists.users as { id?: string; username: string; email?: string }[]) {
    const id = user.id ?? randomId("usr");
    const entry = { id, username: user.username, email: user.email ?? `${user.username}@example.com` };
    state.users[id] = entry;
    result.users.push(entry);
  }
  result.configurationVersions = addConfigurationVersions(state, lists.configurationVersions as Record<string, unknown>[]);
  return result;
}

const FLAGS = ["autoApply", "costEstimation", "driftDetection", "healthAssessments"] as const;

/** The settings of `workspaces[i]`, or a message naming the bad field. */
function readWorkspaceSettings(ws: Record<string, unknown>, i: number): WorkspaceSettings | string {
  const settings: WorkspaceSettings = {};
  for (const flag of FLAGS) {
    if (ws[flag] === undefined) continue;
    if (typeof ws[flag] !== "boolean") return `workspaces[${i}].${flag} must be a boolean`;
    settings[flag] = ws[flag] as boolean;
  }
  if (ws.policy !== undefined) {
    if (!(POLICY_MODES as readonly unknown[]).includes(ws.policy)) return `workspaces[${i}].policy must be one of ${POLICY_MODES.join(", ")}`;
    settings.policy = ws.policy as PolicyMode;
  }
  if (ws.holdRunsAt !== undefined) {
    if (!(HOLDABLE_STATUSES as readonly unknown[]).includes(ws.holdRunsAt)) return `workspaces[${i}].holdRunsAt must be one of ${HOLDABLE_STATUSES.join(", ")}`;
    settings.holdRunsAt = ws.holdRunsAt as HoldableStatus;
  }
  return settings;
}

interface SeededCv {
  id: string;
  workspaceId: string;
  speculative: boolean;
}

/** Checks `configurationVersions`; `workspaceIds` are those that will exist once the seed is applied. */
function checkConfigurationVersions(list: unknown[], workspaceIds: Set<string>): string | undefined {
  for (const [i, cv] of list.entries()) {
    if (!isRecord(cv)) return `configurationVersions[${i}] must be an object`;
    if (cv.id !== undefined && (typeof cv.id !== "string" || !ID.test(cv.id))) return `configurationVersions[${i}].id must be letters, digits, - and _`;
    if (typeof cv.workspaceId !== "string" || !workspaceIds.has(cv.workspaceId)) return `configurationVersions[${i}].workspaceId must name an existing workspace`;
    if (cv.speculative !== undefined && typeof cv.speculative !== "boolean") return `configurationVersions[${i}].speculative must be a boolean`;
    for (const key of ["commitSha", "branch", "senderUsername"]) {
      if (cv[key] !== undefined && cv[key] !== null && typeof cv[key] !== "string") return `configurationVersions[${i}].${key} must be a string`;
    }
  }
  return undefined;
}

/** Adds the versions in order, so the last one of a workspace becomes its latest. */
function addConfigurationVersions(state: RunState, list: Record<string, unknown>[]): SeededCv[] {
  const out: SeededCv[] = [];
  const at = now();
  for (const cv of list) {
    const id = typeof cv.id === "string" ? cv.id : randomId("cv");
    const workspaceId = cv.workspaceId as string;
    const text = (key: string) => (typeof cv[key] === "string" ? (cv[key] as string) : null);
    state.configurationVersions[id] = {
      id,
      workspaceId,
      speculative: cv.speculative === true,
      createdAt: at,
      commitSha: text("commitSha"),
      branch: text("branch"),
      senderUsername: text("senderUsername"),
    };
    state.latestConfigurationVersions[workspaceId] = id;
    out.push({ id, workspaceId, speculative: cv.speculative === true });
  }
  return out;
}

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

function bulkCreate(rt: Runtime, body: Record<string, unknown>): Reply {
  const bulk = read(rt, body);
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

export const runSeedRoutes: Route<Runtime>[] = [
  {
    method: "POST",
    path: "/seed",
    handler: withObject((rt, body) => {
      const result = seed(rt.store.data.run, body);
      return typeof result === "string" ? fail(400, result) : jsonReply(200, result);
    }),
  },
  { method: "POST", path: "/runs", handler: withObject(bulkCreate) },
];
