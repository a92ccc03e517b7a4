/**
 * Every endpoint of the run-orchestration service, as data: `"METHOD /path/{param}"`, grouped by API
 * object (seed 000, "Endpoints"). The only place in src/runs where a route is written.
 */
export const RUNS_ROUTES = {
  /**
   * The service itself: ping needs no token and answers 2xx (not in seed 000; the real-world
   * equivalent serves it, and its clients call it first). The import asks it whether the URL is the
   * run service.
   */
  service: {
    ping: "GET /ping",
  },
  /** Run (`run-...`), seed 000 "Endpoints": create, apply, list, get details, discard, cancel, force-cancel, force-execute a run. */
  run: {
    create: "POST /runs",
    read: "GET /runs/{run_id}",
    list: "GET /workspaces/{workspace_id}/runs",
    apply: "POST /runs/{run_id}/actions/apply",
    discard: "POST /runs/{run_id}/actions/discard",
    cancel: "POST /runs/{run_id}/actions/cancel",
    forceCancel: "POST /runs/{run_id}/actions/force-cancel",
    forceExecute: "POST /runs/{run_id}/actions/force-execute",
  },
  /** Notification configuration (`nc-...`), seed 000 "Endpoints": create, list, show, update, verify, delete a notification configuration. */
  notificationConfiguration: {
    create: "POST /workspaces/{workspace_id}/notification-configurations",
    list: "GET /workspaces/{workspace_id}/notification-configurations",
    read: "GET /notification-configurations/{id}",
    update: "PATCH /notification-configurations/{id}",
    delete: "DELETE /notification-configurations/{id}",
    verify: "POST /notification-configurations/{id}/actions/verify",
  },
} as const;
