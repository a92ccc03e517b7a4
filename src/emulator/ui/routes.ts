import { jsonReply, type Reply } from "../http";
import type { Route } from "../router";
import type { Runtime } from "../runtime";
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

/** The page, its script, the masked state it polls, and one object's masked JSON. */
export const uiRoutes: Route<Runtime>[] = [
  {
    method: "GET",
    path: "/ui",
    // Beyond loopback the page was opened with ?token= (already checked): its script needs it too.
    handler: (_rt, req) => {
      const token = req.query.get("token");
      const html = token === null ? INDEX_HTML : INDEX_HTML.replace(SCRIPT_SRC, `${SCRIPT_SRC}?token=${encodeURIComponent(token)}`);
      return page(html, "text/html; charset=utf-8");
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
