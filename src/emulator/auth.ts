import type { IncomingHttpHeaders } from "node:http";
import { header } from "./transport/http";
import { ADMIN_USER_ID, DEFAULT_ORGANIZATION, DEPLOYERS_TEAM_ID, MEMBER_USER_ID, type Workspace } from "./runs/state";

/** The run service's tokens (which principal each is: runPrincipal) and the secrets service's, as the state file names them. */
export const RUN_TOKENS = ["runAdmin", "runMember", "runTeam", "runOrganization"] as const;
export const SECRETS_TOKENS = ["secretsRoot", "secretsUser"] as const;

export type EmulatorTokens = Record<(typeof RUN_TOKENS)[number] | (typeof SECRETS_TOKENS)[number], string>;

export type RunPrincipal =
  | { kind: "user"; userId: string; role: "admin" | "member" }
  | { kind: "team"; teamId: string }
  | { kind: "organization"; organization: string };

/** What a caller may do on one workspace; each run-service operation names the one it needs. */
export interface WorkspaceAccess {
  read: boolean;
  queuePlans: boolean;
  applyRuns: boolean;
  admin: boolean;
}

export function runPrincipal(tokens: EmulatorTokens, headers: IncomingHttpHeaders): RunPrincipal | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header(headers, "authorization") ?? "");
  switch (match?.[1]) {
    case undefined:
      return undefined;
    case tokens.runAdmin:
      return { kind: "user", userId: ADMIN_USER_ID, role: "admin" };
    case tokens.runMember:
      return { kind: "user", userId: MEMBER_USER_ID, role: "member" };
    case tokens.runTeam:
      return { kind: "team", teamId: DEPLOYERS_TEAM_ID };
    case tokens.runOrganization:
      return { kind: "organization", organization: DEFAULT_ORGANIZATION };
    default:
      return undefined;
  }
}

export function workspaceAccess(principal: RunPrincipal, workspace: Workspace): WorkspaceAccess {
  switch (principal.kind) {
    case "user":
      return principal.role === "admin"
        ? { read: true, queuePlans: true, applyRuns: true, admin: true }
        : { read: true, queuePlans: true, applyRuns: false, admin: false };
    case "team":
      return { read: true, queuePlans: true, applyRuns: true, admin: false };
    case "organization": {
      // Organization tokens administer their own organization's workspaces only.
      const own = principal.organization === workspace.organization;
      return { read: own, queuePlans: own, applyRuns: own, admin: own };
    }
  }
}

export type SecretsPrincipal = { sudo: boolean };

export function secretsPrincipal(tokens: EmulatorTokens, headers: IncomingHttpHeaders): SecretsPrincipal | undefined {
  const token = header(headers, "x-svc-token");
  if (token === undefined || token === "") return undefined;
  if (token === tokens.secretsRoot) return { sudo: true };
  if (token === tokens.secretsUser) return { sudo: false };
  return undefined;
}
