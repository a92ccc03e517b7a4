/** `pulumi preview --json` text in, Markdown review out. */
import type { ResourceDefinition } from "../core/definition";
import { kindDefinition } from "../kinds";
import { kindOfToken } from "../core/token";
import { reviewModel } from "./diff";
import { DRIFT_COMMAND, driftOfRefreshedPreview, fromEventLog, isRefreshedPreview, isRefreshJson, planSteps } from "./drift";
import { policyFindings } from "./policy";
import { parsePreview, type Preview } from "./preview";
import { blocks, noChanges, summary, type RenderOptions } from "./render";
import { scrub } from "./secret";
import { assemble, COMMENT_LIMIT } from "./truncate";

export interface ReviewOptions extends RenderOptions {
  /** Most characters of the review (default 65,536, a GitHub comment's limit). */
  limit?: number;
  /**
   * Review the drift a `pulumi preview --refresh --json` found instead of its plan. A refresh's
   * own JSON and an event log are reviewed as drift always: they hold no plan.
   */
  drift?: boolean;
  /** The event log of the same preview (`--event-log FILE`), for the policy packs' violations and remediations. */
  policyEvents?: string;
}

/** The definitions of this package's kinds in the preview: immutable fields, defaults, identity. */
async function definitionsOf(preview: Preview): Promise<Map<string, ResourceDefinition>> {
  const kinds = new Set((preview.steps ?? []).flatMap((s) => [s.oldState?.type, s.newState?.type, s.urn.split("::")[2]])
    .map((t) => (t ? kindOfToken(t) : undefined)).filter((k): k is string => k !== undefined));
  const out = new Map<string, ResourceDefinition>();
  for (const k of kinds) {
    const def = await kindDefinition(k);
    if (def) out.set(k, def);
  }
  return out;
}

/** The review's Markdown, whether the preview failed (its errors lead the review) and whether data is at risk. */
export async function review(json: string, options: ReviewOptions = {}): Promise<{ text: string; failed: boolean; atRisk: number; violations: { mandatory: number; advisory: number } }> {
  const log = fromEventLog(json);
  const parsed = log ?? parsePreview(json);
  // A refresh's --json has refresh steps and no refreshed values: its deletes are all it can show.
  const refreshJson = !log && isRefreshJson(parsed);
  const refreshed = !log && isRefreshedPreview(parsed) ? driftOfRefreshedPreview(parsed) : undefined;
  if (options.drift && !log && !refreshJson && !refreshed) {
    throw new Error(`--drift reviews what a refresh read, and this preview did not refresh: make it with \`${DRIFT_COMMAND}\``);
  }
  const drift = log !== undefined || refreshJson || (options.drift === true && refreshed !== undefined);
  const preview = refreshJson ? { ...parsed, steps: (parsed.steps ?? []).filter((s) => s.op === "delete") }
    : refreshed && drift ? { ...parsed, steps: refreshed.steps }
    : refreshed ? planSteps(parsed) : parsed;
  const model = reviewModel(preview, await definitionsOf(preview), { drift });
  if (drift) {
    // Drift has happened already: nothing of it is a change to approve, and nothing is "at risk".
    model.drift = refreshJson ? { unseen: parsed.changeSummary?.update ?? 0, from: "refresh-json" }
      : refreshed ? { unseen: refreshed.unseen, from: "no-sames", plan: refreshed.plan } : { unseen: 0 };
    if (refreshed) model.unchanged = refreshed.unchanged;
    model.atRisk = [];
  } else if (refreshed) {
    model.refreshed = { changed: refreshed.steps.filter((s) => s.op === "update").length, gone: refreshed.steps.filter((s) => s.op === "delete").length, unseen: refreshed.unseen };
  }
  if (options.policyEvents !== undefined && !drift) model.policy = policyFindings(options.policyEvents);
  const empty = model.changes.length === 0 && !model.drift?.unseen;
  const text = empty ? noChanges(model) : assemble(summary(model), blocks(model, options), options.limit ?? COMMENT_LIMIT);
  // Secret values are never rendered; a secret's text met in a plain place is masked as well.
  const violations = model.policy?.violations ?? [];
  return {
    text: scrub(text, model.secrets), failed: model.errors.length > 0, atRisk: model.atRisk.length,
    violations: { mandatory: violations.filter((v) => v.level === "mandatory").length, advisory: violations.filter((v) => v.level === "advisory").length },
  };
}

export async function reviewPreview(json: string, options: ReviewOptions = {}): Promise<string> {
  return (await review(json, options)).text;
}
