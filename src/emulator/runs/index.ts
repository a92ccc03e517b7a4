import type { Area } from "../area";
import { RUN_TOKENS, runPrincipal } from "../auth";
import type { Incoming, Reply } from "../transport/http";
import { Router, type Route } from "../transport/router";
import type { Data, Runtime } from "../clusterRuntime";
import { MAX_OBJECTS, objectRef } from "../ui/view";
import { EMULATOR_VERSION, RUN_API_VERSION } from "../version";
import type { RunContext } from "./context";
import { runControlRoutes } from "./control";
import { runSeedRoutes } from "./controlSeed";
import { errorReply, negotiate, simpleError } from "./jsonapi";
import { initialRunState, type RunState } from "./state";
import { COMPLETED_STATUSES } from "./vocabulary";
// npm run docs writes what follows, to the end mark, from this folder's files (src/scripts/docs/blocks.ts): a new file's line comes last, a line moved by hand stays.
import { ASSIGNED_IDS as notificationConfigurationIds, notificationConfigurationRoutes } from "./notificationConfiguration";
import { runCreateRoutes } from "./runCreate";
import { runRoutes } from "./run";
import { runListRoutes } from "./runList";
import { runActionRoutes } from "./runActions";
/** The service's rows of this folder's files, in the order above: the router takes the first that matches. */
const FOLDER_ROUTES = [...notificationConfigurationRoutes, ...runCreateRoutes, ...runRoutes, ...runListRoutes, ...runActionRoutes];
/** This folder's kinds whose ids the service assigns, as `PUT /_emulator/next-ids` names them. */
const FOLDER_ASSIGNED_IDS: readonly string[] = [notificationConfigurationIds];
// (end of what npm run docs writes)

/** The run service's routes table; each API object's file contributes its own rows (npm run docs lists them above). */
export const ROUTES: Route<RunContext>[] = FOLDER_ROUTES;

const router = new Router<RunContext>(ROUTES);

/**
 * Answered without a token: go-tfe calls GET /ping when a client is made and reads the API version
 * from its TFP-API-Version header.
 */
const ping = (): Reply => ({ status: 204, headers: { "tfp-api-version": RUN_API_VERSION, "x-tfe-version": EMULATOR_VERSION } });
/** The routes answered without a token (the route parity test reads them with ROUTES). */
export const OPEN_ROUTES: Route<Runtime>[] = [
  { method: "GET", path: "/ping", handler: ping },
  { method: "HEAD", path: "/ping", handler: ping },
];
const openRouter = new Router<Runtime>(OPEN_ROUTES);

/** Handles a request whose path is relative to `/api/v2`. */
export async function handleRun(rt: Runtime, req: Incoming): Promise<Reply> {
  const open = openRouter.match(req.method, req.path);
  if (open.kind === "found") return open.route.handler(rt, req);
  const principal = runPrincipal(rt.store.tokens, req.headers);
  if (!principal) return errorReply(401, [{ status: "401", title: "unauthorized" }]);
  const refused = negotiate(req);
  if (refused) return refused;
  const match = router.match(req.method, req.path);
  if (match.kind === "none") return simpleError(404, "not found");
  if (match.kind === "method") {
    const reply = simpleError(405, "method not allowed");
    return { ...reply, headers: { ...reply.headers, allow: match.allowed.join(", ") } };
  }
  return match.route.handler({ rt, principal }, { ...req, params: match.params });
}

/** The newest runs as the page shows them: status, the timeline of their moves, a link. */
function runRows(state: RunState) {
  return Object.values(state.runs)
    .sort((a, b) => b.seq - a.seq)
    .slice(0, MAX_OBJECTS)
    .map((r) => ({
      id: r.id,
      workspaceId: r.workspaceId,
      status: r.status,
      // A finished run takes no step and no outcome: the page offers neither.
      finished: COMPLETED_STATUSES.has(r.status),
      message: r.message,
      createdAt: r.createdAt,
      timeline: Object.entries(r.statusTimestamps)
        .map(([key, at]) => ({ status: key.replace(/-at$/, "").replace(/-/g, "_"), at }))
        .sort((a, b) => a.at.localeCompare(b.at)),
      ref: objectRef({ service: "run", cluster: 0, group: "run", kind: "runs", name: r.id }),
    }));
}

/**
 * The run service as an area (area.ts): `/api/v2` on cluster 0 (further clusters stand for more
 * secrets-service clusters only), its data and tokens, its `/_emulator` rows, and on the page its
 * objects (the runs apart, with their timelines) and its clock.
 */
export const runArea: Area<Runtime, Data> = {
  service: {
    prefix: "/api/v2",
    handle: (rt, req) =>
      rt.cluster.index > 0 ? simpleError(404, `cluster ${rt.cluster.index} serves only the secrets service; the run service is on cluster 0`) : handleRun(rt, req),
    error: simpleError,
  },
  stored: { service: "run", initial: initialRunState, tokens: { names: RUN_TOKENS, prefix: "emurun" } },
  controlRoutes: [...runSeedRoutes, ...runControlRoutes],
  assignedIds: FOLDER_ASSIGNED_IDS,
  reset: (rt) => rt.runService.reset(),
  page: {
    groups: (data, cluster) => (cluster === 0 ? [{ service: "run", group: "run", kinds: data.run as unknown as Record<string, unknown>, unlisted: ["runs"] }] : []),
    sections: (rt) => ({
      clock: { autoAdvanceMs: rt.runService.autoAdvanceMs, forceCancelCooloffMs: rt.runService.forceCancelCooloffMs },
      runs: runRows(rt.cluster.stores[0].data.run),
    }),
  },
};
