/** `pulumi preview --json` text in, Markdown review out. */
import type { ResourceDefinition } from "../core/definition";
import { kindDefinition } from "../kinds";
import { kindOfToken } from "../core/token";
import { urnType } from "../core/urn";
import { reviewModel, type NotKnown } from "./diff";
import { DRIFT_COMMAND, driftOfRefreshedPreview, fromEventLog, isRefreshedPreview, isRefreshJson, planSteps } from "./drift";
import { policyFindings } from "./policy";
import { parsePreview, type Preview, type PreviewState } from "./preview";
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

/** The definitions of this package's kinds in the preview (and in the states a refresh read): immutable fields, defaults, identity. */
async function definitionsOf(preview: Preview, read: readonly PreviewState[] = []): Promise<Map<string, ResourceDefinition>> {
  const types = [...(preview.steps ?? []).flatMap((s) => [s.oldState?.type, s.newState?.type, urnType(s.urn)]), ...read.map((s) => s.type)];
  const kinds = new Set(types.map((t) => (t ? kindOfToken(t) : undefined)).filter((k): k is string => k !== undefined));
  const out = new Map<string, ResourceDefinition>();
  for (const k of kinds) {
    const def = await kindDefinition(k);
    if (def) out.set(k, def);
  }
  return out;
}

/**
 * The resources a refresh read whose kind says it cannot see them with that state (a registry
 * access config the service does not report): they are neither unchanged nor gone.
 */
function notKnownOf(read: readonly PreviewState[], definitions: ReadonlyMap<string, ResourceDefinition>): NotKnown[] {
  const out: NotKnown[] = [];
  for (const s of read) {
    const def = s.type ? definitions.get(kindOfToken(s.type) ?? "") : undefined;
    const why = def?.unseen?.((s.outputs ?? {}) as never);
    if (why && s.urn && s.type) out.push({ urn: s.urn, type: s.type, ...(s.id ? { id: s.id } : {}), why });
  }
  return out;
}

/** The states a refresh's own JSON holds (those recorded before it): what it did not find gone. */
function recordedStates(preview: Preview): PreviewState[] {
  const gone = new Set((preview.steps ?? []).filter((s) => s.op === "delete").map((s) => s.urn));
  return (preview.steps ?? []).filter((s) => s.op === "refresh" && s.oldState && !gone.has(s.urn)).map((s) => ({ ...s.oldState!, urn: s.urn }));
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
  const read = log?.read ?? refreshed?.read ?? (refreshJson ? recordedStates(parsed) : []);
  const definitions = await definitionsOf(parsed, read);
  const notKnown = notKnownOf(read, definitions);
  const known = (steps: NonNullable<Preview["steps"]>) => steps.filter((s) => !notKnown.some((n) => n.urn === s.urn));
  const driftSteps = refreshed ? known(refreshed.steps) : [];
  const preview = refreshJson ? { ...parsed, steps: known((parsed.steps ?? []).filter((s) => s.op === "delete")) }
    : log ? { ...log, steps: known(log.steps ?? []) }
    : refreshed && drift ? { ...parsed, steps: driftSteps }
    : refreshed ? planSteps(parsed) : parsed;
  const model = reviewModel(preview, definitions, { drift });
  if (drift) {
    // Drift has happened already: nothing of it is a change to approve, and nothing is "at risk".
    model.drift = refreshJson ? { unseen: parsed.changeSummary?.update ?? 0, from: "refresh-json" }
      : refreshed ? { unseen: refreshed.unseen, from: "no-sames", plan: refreshed.plan } : { unseen: 0 };
    model.drift.notKnown = notKnown;
    // Those the refresh cannot see are not "unchanged" either.
    if (refreshed) model.unchanged = refreshed.unchanged - (notKnown.length - (refreshed.steps.length - driftSteps.length));
    model.atRisk = [];
  } else if (refreshed) {
    model.refreshed = { changed: driftSteps.filter((s) => s.op === "update").length, gone: driftSteps.filter((s) => s.op === "delete").length, unseen: refreshed.unseen, notKnown: notKnown.length };
  }
  if (options.policyEvents !== undefined && !drift) model.policy = policyFindings(options.policyEvents);
  const empty = model.changes.length === 0 && !model.drift?.unseen && !model.drift?.notKnown?.length;
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
