import { workspaceAccess, type RunPrincipal, type WorkspaceAccess } from "../auth";
import type { Reply } from "../transport/http";
import type { Runtime } from "../clusterRuntime";
import { simpleError } from "./jsonapi";
import type { Run, Workspace } from "./state";

/** What a run-service handler gets: the runtime and the caller. */
export interface RunContext {
  rt: Runtime;
  principal: RunPrincipal;
}

/** The workspace when it exists and the caller administers it; the seed answers 404 for both misses. */
export function adminWorkspace(ctx: RunContext, workspaceId: string): Workspace | undefined {
  const workspace = ctx.rt.store.data.run.workspaces[workspaceId];
  return workspace && workspaceAccess(ctx.principal, workspace).admin ? workspace : undefined;
}

/**
 * Who may do what with runs. A missing permission answers 404 (the seed folds "unauthorized"
 * into not found); an organization token on create or an action answers 403, because the seed
 * says such tokens are refused and a 404 would wrongly suggest the run or workspace is missing.
 */

export type Need = keyof WorkspaceAccess;

export function organizationRefused(ctx: RunContext, what: string): Reply | undefined {
  if (ctx.principal.kind !== "organization") return undefined;
  return simpleError(403, "forbidden", `organization tokens cannot ${what}; use a user or team token`);
}

export function accessibleWorkspace(ctx: RunContext, workspaceId: string, need: Need): Workspace | undefined {
  const ws = ctx.rt.store.data.run.workspaces[workspaceId];
  return ws && workspaceAccess(ctx.principal, ws)[need] ? ws : undefined;
}

export function accessibleRun(ctx: RunContext, runId: string, need: Need): Run | undefined {
  const run = ctx.rt.store.data.run.runs[runId];
  return run && accessibleWorkspace(ctx, run.workspaceId, need) ? run : undefined;
}

/** The user behind a token; team and organization tokens have none. */
export function principalUserId(principal: RunPrincipal): string | null {
  return principal.kind === "user" ? principal.userId : null;
}

/**
 * How notifications name the caller: the username, or for a team token a name in the style of
 * the real service's team service accounts (`api-team_<team name>`).
 */
export function principalName(ctx: RunContext): string | null {
  const data = ctx.rt.store.data.run;
  switch (ctx.principal.kind) {
    case "user":
      return data.users[ctx.principal.userId]?.username ?? null;
    case "team":
      return `api-team_${data.teams[ctx.principal.teamId]?.name ?? ctx.principal.teamId}`;
    default:
      return `api-org_${ctx.principal.organization}`;
  }
}
