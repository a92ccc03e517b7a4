import { emptyReply, jsonReply, type Incoming, type Reply } from "../transport/http";
import { fail, withBody } from "./body";
import { formatRequest } from "./logs";
import { Router, type Route } from "../transport/router";
import type { Runtime } from "../clusterRuntime";
import { restoreSnapshot, SnapshotError, takeSnapshot } from "../persistence/snapshot";
import { uiRoutes } from "../ui/routes";
import { isRecord } from "../util";
import { count, timeoutOf, waitUntil } from "./waiting";

/**
 * `/_emulator` endpoints for tests and examples: reset, snapshot, logs, faults, throttle, assigned
 * ids, sinks, and each area's own rows (rt.areas: runs and their clock, mounts, identity, ...).
 * Who may call them is the server's question (transport/server.ts, sites.ts).
 */

async function heldRequests(rt: Runtime, req: Incoming): Promise<Reply> {
  const wait = count(req.query.get("wait"), 0);
  const timeoutMs = timeoutOf(req);
  if (wait === undefined) return fail(400, "wait must be a non-negative integer");
  if (typeof timeoutMs !== "number") return timeoutMs;
  const ok = await waitUntil(rt, () => rt.faults.held().length >= wait, timeoutMs);
  return jsonReply(200, { held: rt.faults.held(), ...(wait > 0 ? { timedOut: !ok } : {}) });
}

function setSink(rt: Runtime, value: unknown, req: Incoming): Reply {
  if (!isRecord(value)) return fail(400, "body must be a JSON object");
  const { status = 200, body: text } = value;
  if (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599) return fail(400, "status must be an integer HTTP status (200-599)");
  if (text !== undefined && typeof text !== "string") return fail(400, "body must be a string");
  const sink = rt.sinks.get(req.params.name);
  sink.status = status as number;
  if (text !== undefined) sink.body = text;
  return emptyReply(204);
}

function restore(rt: Runtime, req: Incoming): Reply {
  try {
    restoreSnapshot(rt.cluster.stores, req.body.toString("utf8"));
  } catch (err) {
    if (err instanceof SnapshotError) return fail(400, err.message);
    throw err;
  }
  return emptyReply(204);
}

/** Rows before the areas' (whose rows come next, in the order of rt.areas). */
const FIRST: Route<Runtime>[] = [
  { method: "GET", path: "/snapshot", handler: (rt) => ({ status: 200, headers: { "content-type": "application/json" }, body: takeSnapshot(rt.cluster.stores) }) },
  { method: "PUT", path: "/snapshot", handler: restore },
  ...uiRoutes,
  {
    method: "POST",
    path: "/reset",
    handler: (rt) => {
      rt.store.reset();
      rt.faults.clear();
      rt.nextIds.clear();
      rt.requests.clear();
      rt.deliveries.clear();
      rt.sinks.clear();
      for (const area of rt.areas) area.reset?.(rt);
      rt.clock.advancedMs = 0;
      return emptyReply(204);
    },
  },
];

/** Rows after the areas'. GET /deliveries (with ?wait=N) is the run service's, before DELETE here. */
const LAST: Route<Runtime>[] = [
  { method: "GET", path: "/requests", handler: (rt) => jsonReply(200, { requests: rt.requests.all().map(formatRequest) }) },
  { method: "DELETE", path: "/requests", handler: (rt) => (rt.requests.clear(), emptyReply(204)) },
  { method: "DELETE", path: "/deliveries", handler: (rt) => (rt.deliveries.clear(), emptyReply(204)) },
  {
    method: "POST",
    path: "/faults",
    handler: withBody((rt, value) => {
      const fault = rt.faults.add(value);
      return typeof fault === "string" ? fail(400, fault) : jsonReply(201, { id: fault.id });
    }),
  },
  { method: "GET", path: "/faults", handler: (rt) => jsonReply(200, { faults: rt.faults.list() }) },
  // GET /faults/held[?wait=N[&timeoutMs=T]]: the requests hold faults are holding, once at least N are.
  { method: "GET", path: "/faults/held", handler: heldRequests },
  { method: "POST", path: "/faults/release", handler: (rt) => jsonReply(200, { released: rt.faults.release() }) },
  { method: "DELETE", path: "/faults", handler: (rt) => (rt.faults.clear(), emptyReply(204)) },
  {
    method: "PUT",
    path: "/throttle",
    handler: withBody((rt, value) => {
      const problem = rt.faults.throttle.set(value);
      return problem ? fail(400, problem) : jsonReply(200, rt.faults.throttle.report());
    }),
  },
  { method: "GET", path: "/throttle", handler: (rt) => jsonReply(200, rt.faults.throttle.report()) },
  { method: "DELETE", path: "/throttle", handler: (rt) => (rt.faults.throttle.off(), emptyReply(204)) },
  {
    method: "PUT",
    path: "/next-ids",
    handler: withBody((rt, value) => {
      const problem = rt.nextIds.set(value);
      return problem ? fail(400, problem) : jsonReply(200, rt.nextIds.left());
    }),
  },
  { method: "GET", path: "/next-ids", handler: (rt) => jsonReply(200, rt.nextIds.left()) },
  { method: "DELETE", path: "/next-ids", handler: (rt) => (rt.nextIds.clear(), emptyReply(204)) },
  { method: "PUT", path: "/sinks/:name", handler: withBody(setSink) },
  { method: "GET", path: "/sinks/:name", handler: (rt, req) => jsonReply(200, { requests: rt.sinks.get(req.params.name).requests }) },
  { method: "DELETE", path: "/sinks/:name", handler: (rt, req) => (rt.sinks.delete(req.params.name), emptyReply(204)) },
];

/** One router per list of areas (every cluster of an emulator shares its list). */
const routers = new WeakMap<Runtime["areas"], Router<Runtime>>();

function routerOf(areas: Runtime["areas"]): Router<Runtime> {
  let router = routers.get(areas);
  if (!router) routers.set(areas, (router = new Router([...FIRST, ...areas.flatMap((a) => a.controlRoutes ?? []), ...LAST])));
  return router;
}

/** Handles a request whose path is relative to `/_emulator` (sinks are served by the server). */
export async function handleControl(rt: Runtime, req: Incoming): Promise<Reply> {
  const match = routerOf(rt.areas).match(req.method, req.path);
  if (match.kind === "none") return fail(404, `no control endpoint ${req.path}`);
  if (match.kind === "method") return { ...fail(405, "method not allowed"), headers: { "content-type": "application/json", allow: match.allowed.join(", ") } };
  return match.route.handler(rt, { ...req, params: match.params });
}
