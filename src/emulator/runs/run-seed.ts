import { POLICY_MODES, type PolicyMode, type RunState, type WorkspaceSettings } from "./state";
import { isRecord, now, randomId } from "../util";

/**
 * The run-service parts of POST /_emulator/seed: workspace settings and configuration versions.
 * seed.ts validates everything before changing anything; these helpers follow that split.
 */

const FLAGS = ["autoApply", "costEstimation", "driftDetection", "healthAssessments"] as const;
const ID = /^[A-Za-z0-9_-]+$/;

/** The settings of `workspaces[i]`, or a message naming the bad field. */
export function readWorkspaceSettings(ws: Record<string, unknown>, i: number): WorkspaceSettings | string {
  const settings: WorkspaceSettings = {};
  for (const flag of FLAGS) {
    if (ws[flag] === undefined) continue;
    if (typeof ws[flag] !== "boolean") return `workspaces[${i}].${flag} must be a boolean`;
    settings[flag] = ws[flag] as boolean;
  }
  if (ws.policy !== undefined) {
    if (!(POLICY_MODES as readonly unknown[]).includes(ws.policy)) return `workspaces[${i}].policy must be one of ${POLICY_MODES.join(", ")}`;
    settings.policy = ws.policy as PolicyMode;
  }
  return settings;
}

export interface SeededCv {
  id: string;
  workspaceId: string;
  speculative: boolean;
}

/** Checks `configurationVersions`; `workspaceIds` are those that will exist once the seed is applied. */
export function checkConfigurationVersions(list: unknown[], workspaceIds: Set<string>): string | undefined {
  for (const [i, cv] of list.entries()) {
    if (!isRecord(cv)) return `configurationVersions[${i}] must be an object`;
    if (cv.id !== undefined && (typeof cv.id !== "string" || !ID.test(cv.id))) return `configurationVersions[${i}].id must be letters, digits, - and _`;
    if (typeof cv.workspaceId !== "string" || !workspaceIds.has(cv.workspaceId)) return `configurationVersions[${i}].workspaceId must name an existing workspace`;
    if (cv.speculative !== undefined && typeof cv.speculative !== "boolean") return `configurationVersions[${i}].speculative must be a boolean`;
    for (const key of ["commitSha", "branch", "senderUsername"]) {
      if (cv[key] !== undefined && cv[key] !== null && typeof cv[key] !== "string") return `configurationVersions[${i}].${key} must be a string`;
    }
  }
  return undefined;
}

/** Adds the versions in order, so the last one of a workspace becomes its latest. */
export function addConfigurationVersions(state: RunState, list: Record<string, unknown>[]): SeededCv[] {
  const out: SeededCv[] = [];
  const at = now();
  for (const cv of list) {
    const id = typeof cv.id === "string" ? cv.id : randomId("cv");
    const workspaceId = cv.workspaceId as string;
    const text = (key: string) => (typeof cv[key] === "string" ? (cv[key] as string) : null);
    state.configurationVersions[id] = {
      id,
      workspaceId,
      speculative: cv.speculative === true,
      createdAt: at,
      commitSha: text("commitSha"),
      branch: text("branch"),
      senderUsername: text("senderUsername"),
    };
    state.latestConfigurationVersions[workspaceId] = id;
    out.push({ id, workspaceId, speculative: cv.speculative === true });
  }
  return out;
}
