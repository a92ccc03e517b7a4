import type { Incoming, Reply } from "../http";
import type { Route } from "../router";
import type { RunContext } from "./context";
import { documentReply, errorReply, simpleError } from "./jsonapi";
import { runActionRoutes } from "./runActions";
import { accessibleRun } from "./run-access";
import { createRun } from "./run-create";
import { runResource } from "./run-document";
import { includedFor, parseInclude } from "./run";
import { listRuns } from "./runList";

/** GET /runs/:id: any caller who can read the workspace (user, team, own-organization token). */
function showRun(ctx: RunContext, req: Incoming): Reply {
  const run = accessibleRun(ctx, req.params.id, "read");
  if (!run) return simpleError(404, "not found", `run ${req.params.id} not found`);
  const includes = parseInclude(req.query);
  if (!Array.isArray(includes)) return errorReply(400, [includes]);
  const state = ctx.rt.store.data.run;
  return documentReply(200, {
    data: runResource(state, ctx.principal, run, { taskStages: true }),
    ...(includes.length > 0 ? { included: includedFor(state, [run], includes) } : {}),
  });
}

/** The run object's rows of the run service's routes table. */
export const runRoutes: Route<RunContext>[] = [
  { method: "POST", path: "/runs", handler: createRun },
  { method: "GET", path: "/runs/:id", handler: showRun },
  { method: "GET", path: "/workspaces/:workspace_id/runs", handler: listRuns },
  ...runActionRoutes,
];
