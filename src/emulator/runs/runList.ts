import type { Incoming, Reply } from "../transport/http";
import type { Route } from "../transport/router";
import { accessibleWorkspace, type RunContext } from "./context";
import { API_PREFIX, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, documentReply, errorReply, simpleError, type ApiError } from "./jsonapi";
import { includedFor, parseInclude, runResource } from "./run";
import { runsOf } from "./runIndex";
import type { Run } from "./state";
import { OPERATIONS, RUN_STATUSES, SOURCES, type RunOperation } from "./vocabulary";

/**
 * GET /workspaces/:workspace_id/runs, newest first, always paginated (20 by default, at most 100).
 * One pass over the workspace's runs from the newest: every match is counted, only the page's
 * matches are rendered, so thousands of runs cost a filter, not a sort or a serialization.
 */

type Predicate = (run: Run) => boolean;

/** The operation a run performs, for filter[operation]; the first matching rule wins. */
export function operationOf(run: Run): RunOperation {
  if (run.planOnly) return "plan_only";
  if (run.refreshOnly) return "refresh_only";
  if (run.isDestroy) return "destroy";
  if (run.allowEmptyApply && !run.hasChanges) return "empty_apply";
  return "plan_and_apply";
}

function anyOf(query: URLSearchParams, name: string, allowed: readonly string[], pick: (run: Run) => string, errors: ApiError[]): Predicate | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  const values = raw.split(",").map((v) => v.trim()).filter((v) => v !== "");
  const unknown = values.filter((v) => !allowed.includes(v));
  if (unknown.length > 0) {
    errors.push({ status: "422", title: "invalid parameter", detail: `${name} has unknown values ${unknown.join(", ")}; allowed: ${allowed.join(", ")}`, source: { parameter: name } });
    return undefined;
  }
  if (values.length === 0) return undefined;
  const set = new Set(values);
  return (run) => set.has(pick(run));
}

const lower = (v: string | null) => (v ?? "").toLowerCase();

/** search[user] and search[commit] win over search[basic], which the seed ignores when either is present. */
function search(query: URLSearchParams): Predicate[] {
  const get = (name: string) => {
    const v = query.get(name)?.trim();
    return v ? v.toLowerCase() : undefined;
  };
  const user = get("search[user]");
  const commit = get("search[commit]");
  const out: Predicate[] = [];
  if (user !== undefined) out.push((r) => lower(r.vcsUsername) === user);
  // A short sha finds its run, as version-control tools accept abbreviated shas.
  if (commit !== undefined) out.push((r) => r.commitSha !== null && lower(r.commitSha).startsWith(commit));
  const basic = get("search[basic]");
  if (user === undefined && commit === undefined && basic !== undefined) {
    out.push((r) => [r.vcsUsername, r.commitSha, r.id, r.message].some((field) => lower(field).includes(basic)));
  }
  return out;
}

function pageParameter(query: URLSearchParams, name: string, fallback: number, errors: ApiError[]): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    errors.push({ status: "422", title: "invalid parameter", detail: `${name} must be a positive integer`, source: { parameter: name } });
    return fallback;
  }
  return n;
}

export function listRuns(ctx: RunContext, req: Incoming): Reply {
  const workspaceId = req.params.workspace_id;
  if (!accessibleWorkspace(ctx, workspaceId, "read")) return simpleError(404, "not found", `workspace ${workspaceId} not found`);
  const includes = parseInclude(req.query);
  if (!Array.isArray(includes)) return errorReply(400, [includes]);
  const errors: ApiError[] = [];
  const number = pageParameter(req.query, "page[number]", 1, errors);
  const size = Math.min(pageParameter(req.query, "page[size]", DEFAULT_PAGE_SIZE, errors), MAX_PAGE_SIZE);
  const predicates = [
    anyOf(req.query, "filter[operation]", OPERATIONS, operationOf, errors),
    anyOf(req.query, "filter[status]", RUN_STATUSES, (r) => r.status, errors),
    anyOf(req.query, "filter[source]", SOURCES, (r) => r.source, errors),
    ...search(req.query),
  ].filter((p): p is Predicate => p !== undefined);
  if (errors.length > 0) return errorReply(422, errors);

  const all = runsOf(ctx.rt.store.data.run, workspaceId);
  const first = (number - 1) * size;
  const page: Run[] = [];
  let total = 0;
  for (let i = all.length - 1; i >= 0; i--) {
    const run = all[i];
    if (!predicates.every((p) => p(run))) continue;
    if (total >= first && page.length < size) page.push(run);
    total++;
  }
  const totalPages = Math.max(1, Math.ceil(total / size));
  const prev = number > 1 ? Math.min(number - 1, totalPages) : null;
  const next = number < totalPages ? number + 1 : null;
  const link = linkBuilder(req.query, `${API_PREFIX}/workspaces/${encodeURIComponent(workspaceId)}/runs`, size);
  const state = ctx.rt.store.data.run;
  const nowMs = ctx.rt.runService.nowMs();
  return documentReply(200, {
    data: page.map((run) => runResource(state, ctx.principal, run, { nowMs })),
    ...(includes.length > 0 ? { included: includedFor(state, page, includes) } : {}),
    links: { self: link(number), first: link(1), prev: prev === null ? null : link(prev), next: next === null ? null : link(next), last: link(totalPages) },
    meta: {
      pagination: { "current-page": number, "page-size": size, "prev-page": prev, "next-page": next, "total-pages": totalPages, "total-count": total },
    },
  });
}

/** Page links keep the caller's filters, searches and include; brackets are percent-encoded. */
function linkBuilder(query: URLSearchParams, path: string, size: number): (n: number) => string {
  const kept = [...query.entries()].filter(([k]) => k !== "page[number]" && k !== "page[size]");
  const enc = (k: string, v: string) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`;
  const rest = kept.map(([k, v]) => `&${enc(k, v)}`).join("");
  return (n) => `${path}?${enc("page[number]", String(n))}&${enc("page[size]", String(size))}${rest}`;
}

export const runListRoutes: Route<RunContext>[] = [{ method: "GET", path: "/workspaces/:workspace_id/runs", handler: listRuns }];
