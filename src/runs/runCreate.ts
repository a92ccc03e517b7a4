/**
 * Queuing a run once: the search that keeps a lost `POST /runs` from queuing a second run. The
 * attributes and the request body are src/runs/runAttributes.ts.
 */
import { createOnce } from "../core/createOnce";
import type { Context } from "../core/definition";
import { isSvcError, type HttpClient } from "../http";
import { many, one } from "./jsonapi";
import { createDocument, runCreateSet, type RunCreateAttributes } from "./runAttributes";
import { runFromResource, type RunDetails } from "./runDetails";
import { RUNS_ROUTES } from "./routes";
import { comparedKeys, sameList } from "./serviceObject";

/** Whether a listed run carries every attribute a `POST /runs` with these arguments sent. */
function matchesCreate(run: RunDetails, args: RunCreateAttributes): boolean {
  if (run.source !== "svc-api") return false;
  const read = run as unknown as Record<string, unknown>;
  const sent = args as Record<string, unknown>;
  // The runs searched are the workspace's own.
  for (const k of comparedKeys(runCreateSet, runCreateSet.identity)) {
    // A list the run was queued without reads back empty or null.
    if (runCreateSet.sets.includes(k)) {
      if (!sameList(read[k] ?? [], sent[k] ?? [])) return false;
    } else if (sent[k] !== undefined && read[k] !== undefined && read[k] !== sent[k]) return false;
  }
  return true;
}

/**
 * The workspace's runs before the first attempt. The list is newest first: the first page holds
 * every run newer than its oldest entry, so a run missing from it is new only if it is newer than
 * that entry (or the page held every run of the workspace).
 */
interface RunsBefore {
  ids: Set<string>;
  /** Creation time of the oldest run on a full first page; undefined when the page held them all. */
  oldest?: number;
}

const PAGE = 100;

/** The workspace's runs of the first page, newest first; undefined when the workspace cannot be listed. */
async function firstPage(client: HttpClient, workspaceId: string): Promise<RunDetails[] | undefined> {
  try {
    const res = await client.request({ route: RUNS_ROUTES.run.list, params: { workspace_id: workspaceId }, query: { "page[number]": 1, "page[size]": PAGE } });
    return many(res.body).data.map(runFromResource);
  } catch (e) {
    if (isSvcError(e, "not_found")) return undefined;
    throw e;
  }
}

/** The workspace's most recent runs (a page of 100, newest first); none when it cannot be listed. */
export async function recentRuns(client: HttpClient, workspaceId: string): Promise<RunDetails[]> {
  return (await firstPage(client, workspaceId)) ?? [];
}

/** Undefined when the workspace cannot be listed: the create then fails with the server's message. */
async function runsBefore(client: HttpClient, workspaceId: string): Promise<RunsBefore | undefined> {
  const runs = await firstPage(client, workspaceId);
  if (!runs) return undefined;
  const full = runs.length >= PAGE;
  return { ids: new Set(runs.map((r) => r.id)), oldest: full ? Math.min(...runs.map((r) => Date.parse(r.createdAt))) : undefined };
}

function isNew(run: RunDetails, before: RunsBefore): boolean {
  if (before.ids.has(run.id)) return false;
  return before.oldest === undefined || Date.parse(run.createdAt) > before.oldest;
}

/**
 * Looks for the run a lost create made: a run that did not exist before the first attempt,
 * carries every attribute sent, and no other create of this process owns. The oldest such run is
 * the one closest to our attempt. Only the pages newer than the snapshot are read.
 */
async function findCreatedRun(client: HttpClient, args: RunCreateAttributes, before: RunsBefore | undefined, owned: (id: string) => boolean): Promise<RunDetails | undefined> {
  if (!before) return undefined;
  let best: RunDetails | undefined;
  for (let page = 1; page <= 50; page++) {
    const res = await client.request({ route: RUNS_ROUTES.run.list, params: { workspace_id: args.workspaceId }, query: { "page[number]": page, "page[size]": PAGE } });
    const { data, pagination } = many(res.body);
    const runs = data.map(runFromResource);
    let reachedOld = false;
    for (const run of runs) {
      if (!isNew(run, before)) { reachedOld = true; continue; }
      if (owned(run.id) || !matchesCreate(run, args)) continue;
      if (!best || Date.parse(run.createdAt) <= Date.parse(best.createdAt)) best = run;
    }
    if (reachedOld) break;
    const next = pagination?.["next-page"];
    if (next === undefined ? data.length < PAGE : !next) break;
  }
  return best;
}

/**
 * Queues a run. A `POST /runs` that failed ambiguously (the server may have acted) is not
 * repeated blindly: the workspace's runs are searched for one it created, never one that existed
 * before the first attempt.
 */
export async function createRunOnce(ctx: Context, args: RunCreateAttributes): Promise<RunDetails> {
  const client = ctx.client("runs");
  const before = await runsBefore(client, args.workspaceId);
  return createOnce({
    scope: `runs:${client.baseUrl}:${args.workspaceId}`,
    attempt: async () => runFromResource(one((await client.request({ route: RUNS_ROUTES.run.create, body: createDocument(args) })).body)),
    find: (owned) => findCreatedRun(client, args, before, owned),
    idOf: (run) => run.id,
    log: (m) => ctx.log(`run on ${args.workspaceId}: ${m}`),
  });
}
