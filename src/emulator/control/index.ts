import { emptyReply, jsonReply, parseJson, type Incoming, type Reply } from "../transport/http";
import { formatRequest } from "./logs";
import { Router, type Route } from "../transport/router";
import type { Runtime } from "../clusterRuntime";
import { mountableTypes, reservedPrefix } from "../secrets";
import { directoryControlRoutes } from "../secrets/directory/control";
import { identityControlRoutes } from "../secrets/identity/control";
import { registryControlRoutes } from "../secrets/registry/control";
import { mfaControlRoutes } from "../secrets/mfa/control";
import { runControlRoutes } from "../runs/control";
import { runSeedRoutes } from "../runs/controlSeed";
import { restoreSnapshot, SnapshotError, storesOf, takeSnapshot } from "../persistence/snapshot";
import { uiRoutes } from "../ui/routes";
import { dict, isRecord } from "../util";
import { count, timeoutOf, waitUntil } from "./waiting";

/**
 * `/_emulator` endpoints for tests and examples: reset, snapshot, seed, logs, faults, mounts, sinks.
 * No auth: the emulator binds to loopback and holds nothing real.
 */

const fail = (status: number, error: string): Reply => jsonReply(status, { error });

/** A control handler of a JSON body (empty means `{}`): invalid JSON is answered 400 before it runs. */
function withBody(handler: (rt: Runtime, value: unknown, req: Incoming) => Reply): (rt: Runtime, req: Incoming) => Reply {
  return (rt, req) => {
    const parsed = parseJson(req.body);
    return parsed.ok ? handler(rt, parsed.value ?? {}, req) : fail(400, `invalid JSON: ${parsed.error}`);
  };
}

async function heldRequests(rt: Runtime, req: Incoming): Promise<Reply> {
  const wait = count(req.query.get("wait"), 0);
  const timeoutMs = timeoutOf(req);
  if (wait === undefined) return fail(400, "wait must be a non-negative integer");
  if (typeof timeoutMs !== "number") return timeoutMs;
  const ok = await waitUntil(rt, () => rt.faults.held().length >= wait, timeoutMs);
  return jsonReply(200, { held: rt.faults.held(), ...(wait > 0 ? { timedOut: !ok } : {}) });
}

const MOUNT_PATH = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

function addMount(rt: Runtime, value: unknown): Reply {
  if (!isRecord(value)) return fail(400, "body must be a JSON object");
  const { type } = value;
  const path = typeof value.path === "string" ? value.path.replace(/^\/+|\/+$/g, "") : undefined;
  if (path === undefined || !MOUNT_PATH.test(path)) return fail(400, "path must be segments of letters, digits, - and _");
  const reserved = reservedPrefix(path);
  if (reserved !== undefined) return fail(400, `path ${reserved} is reserved`);
  if (typeof type !== "string" || !mountableTypes().includes(type)) return fail(400, `type must be one of ${mountableTypes().join(", ")}`);
  const mounts = rt.store.data.secrets.mounts;
  const clash = Object.keys(mounts).find((m) => m === path || m.startsWith(`${path}/`) || path.startsWith(`${m}/`));
  if (clash !== undefined) return fail(400, `path ${path} is already in use (mount ${clash})`);
  mounts[path] = { type, objects: dict() };
  return emptyReply(204);
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
    restoreSnapshot(storesOf(rt), req.body.toString("utf8"));
  } catch (err) {
    if (err instanceof SnapshotError) return fail(400, err.message);
    throw err;
  }
  return emptyReply(204);
}

const routes: Route<Runtime>[] = [
  { method: "GET", path: "/snapshot", handler: (rt) => ({ status: 200, headers: { "content-type": "application/json" }, body: takeSnapshot(storesOf(rt)) }) },
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
      rt.runService.reset();
      rt.clock.advancedMs = 0;
      return emptyReply(204);
    },
  },
  // POST /seed and POST /runs (bulk) are in runSeedRoutes.
  ...runSeedRoutes,
  { method: "GET", path: "/requests", handler: (rt) => jsonReply(200, { requests: rt.requests.all().map(formatRequest) }) },
  { method: "DELETE", path: "/requests", handler: (rt) => (rt.requests.clear(), emptyReply(204)) },
  // GET /deliveries (with ?wait=N) and the run drivers are in runControlRoutes.
  ...runControlRoutes,
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
  { method: "POST", path: "/mounts", handler: withBody(addMount) },
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
  ...identityControlRoutes,
  ...directoryControlRoutes,
  ...registryControlRoutes,
  ...mfaControlRoutes,
  {
    method: "GET",
    path: "/mounts",
    handler: (rt) => jsonReply(200, { mounts: Object.entries(rt.store.data.secrets.mounts).map(([path, m]) => ({ path, type: m.type })) }),
  },
  { method: "PUT", path: "/sinks/:name", handler: withBody(setSink) },
  { method: "GET", path: "/sinks/:name", handler: (rt, req) => jsonReply(200, { requests: rt.sinks.get(req.params.name).requests }) },
  { method: "DELETE", path: "/sinks/:name", handler: (rt, req) => (rt.sinks.delete(req.params.name), emptyReply(204)) },
];

const router = new Router(routes);

/** Handles a request whose path is relative to `/_emulator` (sinks are served by the server). */
export async function handleControl(rt: Runtime, req: Incoming): Promise<Reply> {
  const match = router.match(req.method, req.path);
  if (match.kind === "none") return fail(404, `no control endpoint ${req.path}`);
  if (match.kind === "method") return { ...fail(405, "method not allowed"), headers: { "content-type": "application/json", allow: match.allowed.join(", ") } };
  return match.route.handler(rt, { ...req, params: match.params });
}
