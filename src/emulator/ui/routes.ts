import { jsonReply, type Reply } from "../transport/http";
import type { Route } from "../transport/router";
import type { Runtime } from "../clusterRuntime";
import { APP_JS, INDEX_HTML } from "./assets";
import { uiObject, uiState } from "./view";

/** Nothing but the page's own script runs, and nothing it loads may come from elsewhere. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SCRIPT_SRC = "/_emulator/ui/app.js";

const page = (body: string, type: string): Reply => ({
  status: 200,
  headers: { "content-type": type, "content-security-policy": CSP, "x-content-type-options": "nosniff", "cache-control": "no-store" },
  body,
});

/** JSON that cannot end the script element it sits in, whatever the names inside it hold. */
function inertJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

/** The page, its script, the masked state it polls, and one object's masked JSON. */
export const uiRoutes: Route<Runtime>[] = [
  {
    method: "GET",
    path: "/ui",
    // Beyond loopback the page was opened with ?token= (already checked): its script needs it too.
    handler: (rt, req) => {
      const token = req.query.get("token");
      const script = token === null ? SCRIPT_SRC : `${SCRIPT_SRC}?token=${encodeURIComponent(token)}`;
      // The first state goes with the page, so its first paint (a screenshot right after load)
      // shows the emulator, not a placeholder until the first poll. A data block, never run.
      const first = `<script type="application/json" id="first-state">${inertJson(uiState(rt))}</script>\n<script src="${script}"></script>`;
      return page(INDEX_HTML.replace(`<script src="${SCRIPT_SRC}"></script>`, () => first), "text/html; charset=utf-8");
    },
  },
  { method: "GET", path: "/ui/app.js", handler: () => page(APP_JS, "text/javascript; charset=utf-8") },
  { method: "GET", path: "/ui/state.json", handler: (rt) => ({ ...jsonReply(200, uiState(rt)), headers: { "content-type": "application/json", "cache-control": "no-store" } }) },
  {
    method: "GET",
    path: "/ui/object",
    handler: (rt, req) => {
      const found = uiObject(rt, req.query);
      return found === undefined ? jsonReply(404, { error: "no such object" }) : jsonReply(200, found);
    },
  },
];
