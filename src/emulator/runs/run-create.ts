import { workspaceAccess } from "../auth";
import type { Incoming, Reply } from "../http";
import type { ConfigurationVersion } from "./state";
import { readDocument, type RunContext } from "./context";
import { API_PREFIX, documentReply, errorReply, invalid, simpleError, withLocation } from "./jsonapi";
import { accessibleWorkspace, organizationRefused, principalName, principalUserId } from "./run-access";
import { runResource } from "./run-document";
import { buildRun, queueRun } from "./run-factory";
import { readRunInput } from "./runCreate";

/** The seed's "fixed default text saying the run was queued manually through the API". */
export const DEFAULT_RUN_MESSAGE = "Queued manually via the API";

const CV_POINTER = "/data/relationships/configuration-version/data/id";

/** POST /runs: checks in the seed's order of answers (403 token type, 422 shape, 404 access, 422 rules). */
export function createRun(ctx: RunContext, req: Incoming): Reply {
  const refused = organizationRefused(ctx, "create runs");
  if (refused) return refused;
  const body = readDocument(req);
  if (!body.ok) return errorReply(422, body.errors);
  const input = readRunInput(body.value);
  if (Array.isArray(input)) return errorReply(422, input);
  const state = ctx.rt.store.data.run;
  const ws = accessibleWorkspace(ctx, input.workspaceId, "queuePlans");
  if (!ws) return simpleError(404, "not found", `workspace ${input.workspaceId} not found`);

  let cv: ConfigurationVersion | undefined;
  if (input.configurationVersionId !== undefined) {
    cv = state.configurationVersions[input.configurationVersionId];
    // Promotion: a version of another workspace is fine when the caller can read that workspace.
    if (!cv || !accessibleWorkspace(ctx, cv.workspaceId, "read")) {
      return simpleError(404, "not found", `configuration version ${input.configurationVersionId} not found`);
    }
  } else {
    const latest = state.latestConfigurationVersions[ws.id];
    cv = latest === undefined ? undefined : state.configurationVersions[latest];
    if (!cv) return errorReply(422, [invalid(CV_POINTER, `workspace ${ws.id} has no configuration version; name one in configuration-version`)]);
  }
  const planOnly = input.planOnly ?? cv.speculative;
  if (cv.speculative && !planOnly) {
    return errorReply(422, [invalid("/data/attributes/plan-only", `configuration version ${cv.id} is speculative: only plan-only runs can use it`)]);
  }
  if (input.toolVersion !== undefined && !planOnly) {
    return errorReply(422, [invalid("/data/attributes/tool-version", "tool-version is only valid for plan-only runs")]);
  }

  const autoApply = input.autoApply ?? ws.settings?.autoApply ?? false;
  const userId = principalUserId(ctx.principal);
  const name = principalName(ctx);
  const run = buildRun(state, ws, {
    workspaceId: ws.id,
    configurationVersionId: cv.id,
    source: "svc-api",
    message: input.message ?? DEFAULT_RUN_MESSAGE,
    createdByUserId: userId,
    createdByName: name,
    updatedByName: name,
    // Users' version-control usernames are their usernames (docs/emulator-runs-contract.md).
    vcsUsername: userId ? (state.users[userId]?.username ?? null) : cv.senderUsername,
    commitSha: cv.commitSha,
    autoApply,
    autoApplyEffective: autoApply && workspaceAccess(ctx.principal, ws).applyRuns,
    allowEmptyApply: input.allowEmptyApply ?? false,
    allowConfigGeneration: input.allowConfigGeneration ?? false,
    isDestroy: input.isDestroy ?? false,
    planOnly,
    refresh: input.refresh ?? true,
    refreshOnly: input.refreshOnly ?? false,
    targetAddrs: input.targetAddrs ?? null,
    replaceAddrs: input.replaceAddrs ?? null,
    variables: input.variables ?? [],
    toolVersion: input.toolVersion ?? null,
    triggerReason: "manual",
  });
  queueRun(ctx.rt, run);
  return withLocation(documentReply(201, { data: runResource(state, ctx.principal, run) }), `${API_PREFIX}/runs/${run.id}`);
}
