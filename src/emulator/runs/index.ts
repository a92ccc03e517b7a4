import { runPrincipal } from "../auth";
import type { Incoming, Reply } from "../transport/http";
import { Router, type Route } from "../transport/router";
import type { Runtime } from "../clusterRuntime";
import { EMULATOR_VERSION, RUN_API_VERSION } from "../version";
import type { RunContext } from "./context";
import { errorReply, negotiate, simpleError } from "./jsonapi";
import { notificationConfigurationRoutes } from "./notificationConfiguration";
import { runRoutes } from "./run";
import { runActionRoutes } from "./runActions";
import { runCreateRoutes } from "./runCreate";
import { runListRoutes } from "./runList";

/** The run service's routes table; each API object contributes its own rows. */
export const ROUTES: Route<RunContext>[] = [
  ...notificationConfigurationRoutes,
  ...runCreateRoutes,
  ...runRoutes,
  ...runListRoutes,
  ...runActionRoutes,
];

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
