/**
 * Drift: what changed on the servers outside Pulumi, from what a refresh read.
 *
 * What CLI v3.259 gives (checked under the real CLI, test/cli/review-risk.test.ts):
 * - `pulumi preview --refresh --json` lists a `refresh` step per resource holding its state as
 *   recorded (before the read), then the preview's own steps, whose old state is the state the
 *   refresh read. The two old states side by side are the drift, outputs included (a key rotated by
 *   hand: `latestVersion` 1 → 2). With `--show-sames` every resource has a preview step; without
 *   it, those the plan leaves unchanged have none. A plain CLI runs it.
 * - `pulumi refresh --preview-only --json` names the objects gone but carries no refreshed values:
 *   each step holds the state recorded before the read, and only the counts say how many changed
 *   (and not those whose outputs alone changed: the engine calls them `same`).
 * - The engine's event log (`--event-log FILE`, the Automation API's way; the CLI hides the flag
 *   unless PULUMI_DEBUG_COMMANDS=true) has each resource's state before and after the read.
 */
import type { Preview, PreviewState, PreviewStep } from "./preview";
import { sameValue } from "./secret";
import { isProviderUrn, isStackUrn } from "../core/urn";

interface EngineEvent {
  resourcePreEvent?: { metadata?: { op?: string } };
  resOutputsEvent?: { metadata?: { op?: string; urn?: string; old?: Record<string, unknown> | null; new?: Record<string, unknown> | null } };
  summaryEvent?: { resourceChanges?: Record<string, number> };
  diagnosticEvent?: { message?: string; severity?: string; urn?: string };
}

/** The command whose JSON the drift review reads, as the docs and the review's hints write it. */
export const DRIFT_COMMAND = "pulumi preview --refresh --show-sames --json > drift.json";
/** And the review of it. */
export const DRIFT_REVIEW = "pulumi-svc-review --drift drift.json";

const ENGINE_OWN = (urn: string) => isStackUrn(urn) || isProviderUrn(urn);

/** A state's outputs without the engine's and this package's hidden keys (`__provider`, `__urn`). */
function outputsOf(s: Record<string, unknown> | PreviewState | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries((s?.outputs as Record<string, unknown> | undefined) ?? {})) if (!k.startsWith("__")) out[k] = v;
  return out;
}

const sameOutputs = (a: Record<string, unknown> | PreviewState | null | undefined, b: Record<string, unknown> | PreviewState | null | undefined) =>
  sameValue(outputsOf(a), outputsOf(b));

/** The states a refresh read, for what its kinds say a refresh cannot see (review.ts: `notKnown`). */
export interface Read {
  /** Each resource the refresh found, as it read it (not those it found gone). */
  read: PreviewState[];
}

/**
 * An engine event log (one JSON event per line) as the steps a review reads: each resource the
 * refresh found changed (old → new state) or gone. Undefined when the text is not an event log;
 * an error when it is the log of something other than a refresh.
 */
export function fromEventLog(text: string): (Preview & Read) | undefined {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  if (lines.length < 2 || !lines.every((l) => l.startsWith("{") && l.endsWith("}"))) return undefined;
  let events: EngineEvent[];
  try {
    events = lines.map((l) => JSON.parse(l) as EngineEvent);
  } catch {
    return undefined;
  }
  if (!events.some((e) => e.resOutputsEvent || e.summaryEvent)) return undefined;
  // An update's log has no refresh steps: its updates are the program's, not drift.
  if (!events.some((e) => e.resourcePreEvent?.metadata?.op === "refresh")) {
    throw new Error(`the event log is not a refresh's: review drift from \`${DRIFT_COMMAND}\` with --drift, a plan from \`pulumi preview --json\``);
  }
  const steps: NonNullable<Preview["steps"]> = [];
  const read: PreviewState[] = [];
  let changeSummary: Record<string, number> | undefined;
  const diagnostics: NonNullable<Preview["diagnostics"]> = [];
  for (const e of events) {
    const m = e.resOutputsEvent?.metadata;
    if (m?.urn && !ENGINE_OWN(m.urn) && m.op !== "delete" && m.new) read.push({ ...m.new, urn: m.urn });
    // The engine calls a refresh whose outputs alone changed `same` (no input differs): drift all the same.
    const changed = m?.op === "update" || (m?.op === "same" && !sameOutputs(m.old, m.new));
    if (m?.urn && !ENGINE_OWN(m.urn) && (changed || m.op === "delete")) {
      steps.push({ op: m.op === "delete" ? "delete" : "update", urn: m.urn, oldState: m.old ?? undefined, newState: m.op === "delete" ? undefined : (m.new ?? undefined) });
    }
    if (e.summaryEvent?.resourceChanges) changeSummary = e.summaryEvent.resourceChanges;
    if (e.diagnosticEvent) diagnostics.push(e.diagnosticEvent);
  }
  return { steps, changeSummary, diagnostics, read };
}

/** Whether a `--json` document is a refresh's (`pulumi refresh --preview-only --json`): refresh steps only, and so no refreshed values. */
export function isRefreshJson(preview: Preview): boolean {
  const ops = (preview.steps ?? []).map((s) => s.op);
  return ops.includes("refresh") && ops.every((o) => o === "refresh" || o === "delete");
}

/** Whether a `--json` document is a preview that refreshed first (`pulumi preview --refresh --json`). */
export function isRefreshedPreview(preview: Preview): boolean {
  const ops = (preview.steps ?? []).map((s) => s.op);
  return ops.includes("refresh") && !isRefreshJson(preview);
}

/** A preview's own steps, without the refresh's (which hold the states as recorded before it). */
export function planSteps(preview: Preview): Preview {
  return { ...preview, steps: (preview.steps ?? []).filter((s) => s.op !== "refresh") };
}

export interface RefreshedDrift extends Read {
  /** Steps as the review reads drift: `update` (old → refreshed state) and `delete` (gone from the server). */
  steps: PreviewStep[];
  /** Resources the JSON holds no refreshed state of: the plan leaves them unchanged and `--show-sames` was not given. */
  unseen: number;
  /** The plan made against the refreshed state, as counts per operation (the stack's `same` included). */
  plan: Record<string, number>;
  /** Resources the refresh found as recorded, the stack included, as the CLI counts them. */
  unchanged: number;
}

/**
 * The drift in a `pulumi preview --refresh --json`: per resource, the state recorded before the
 * refresh (its refresh step's) against the state the refresh read (its preview step's old state).
 * A resource whose preview step creates it was gone from the server; one with no preview step was
 * gone and is no longer declared, or unchanged and left out (no `--show-sames`).
 */
export function driftOfRefreshedPreview(preview: Preview): RefreshedDrift {
  const recorded = new Map<string, PreviewStep>();
  const planned = new Map<string, PreviewStep[]>();
  let samesShown = false;
  let stack = 0;
  for (const s of preview.steps ?? []) {
    if (s.op === "refresh" && isStackUrn(s.urn)) stack = 1;
    if (ENGINE_OWN(s.urn)) continue;
    if (s.op === "refresh") recorded.set(s.urn, s);
    else {
      planned.set(s.urn, [...(planned.get(s.urn) ?? []), s]);
      if (s.op === "same") samesShown = true;
    }
  }
  const steps: PreviewStep[] = [];
  const states: PreviewState[] = [];
  let unseen = 0;
  for (const [urn, before] of recorded) {
    const plan = planned.get(urn);
    const read = plan?.find((s) => s.oldState)?.oldState;
    if (read) {
      states.push({ ...read, urn });
      if (!sameOutputs(before.oldState, read)) steps.push({ op: "update", urn, oldState: before.oldState, newState: read });
    } else if (plan || samesShown) {
      steps.push({ op: "delete", urn, oldState: before.oldState });
    } else {
      unseen++;
    }
  }
  return { steps, unseen, plan: preview.changeSummary ?? {}, unchanged: recorded.size - steps.length - unseen + stack, read: states };
}
