import { workspaceAccess, type RunPrincipal } from "../auth";
import { parseJson, type Incoming } from "../http";
import type { Runtime } from "../runtime";
import type { Workspace } from "./state";
import { invalid, type ApiError } from "./jsonapi";

export interface RunContext {
  rt: Runtime;
  principal: RunPrincipal;
}

/** The workspace when it exists and the caller administers it; the seed answers 404 for both misses. */
export function adminWorkspace(ctx: RunContext, workspaceId: string): Workspace | undefined {
  const workspace = ctx.rt.store.data.run.workspaces[workspaceId];
  return workspace && workspaceAccess(ctx.principal, workspace).admin ? workspace : undefined;
}

export function readDocument(req: Incoming): { ok: true; value: unknown } | { ok: false; errors: ApiError[] } {
  const parsed = parseJson(req.body);
  if (parsed.ok) return parsed;
  return { ok: false, errors: [{ ...invalid("", `request body is not valid JSON: ${parsed.error}`), title: "malformed request body" }] };
}
