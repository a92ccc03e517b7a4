/**
 * Drift: what changed on the servers outside Pulumi, from a refresh that changes nothing
 * (`pulumi refresh --preview-only`). Its `--json` output (CLI v3.259) names the objects gone but
 * carries no refreshed values; the engine's event log (`--event-log FILE`, the Automation API's
 * way) has each resource's state before and after the read.
 */
import type { Preview } from "./preview";

interface EngineEvent {
  resourcePreEvent?: { metadata?: { op?: string } };
  resOutputsEvent?: { metadata?: { op?: string; urn?: string; old?: Record<string, unknown> | null; new?: Record<string, unknown> | null } };
  summaryEvent?: { resourceChanges?: Record<string, number> };
  diagnosticEvent?: { message?: string; severity?: string; urn?: string };
}

const ENGINE_OWN = (urn: string) => urn.includes("::pulumi:pulumi:Stack::") || urn.includes("::pulumi:providers:");

/**
 * An engine event log (one JSON event per line) as the steps a review reads: each resource the
 * refresh found changed (old → new state) or gone. Undefined when the text is not an event log;
 * an error when it is the log of something other than a refresh.
 */
export function fromEventLog(text: string): Preview | undefined {
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
    throw new Error("the event log is not a refresh's: review drift from `pulumi refresh --preview-only --event-log FILE`, a plan from `pulumi preview --json`");
  }
  const steps: NonNullable<Preview["steps"]> = [];
  let changeSummary: Record<string, number> | undefined;
  const diagnostics: NonNullable<Preview["diagnostics"]> = [];
  for (const e of events) {
    const m = e.resOutputsEvent?.metadata;
    if (m?.urn && !ENGINE_OWN(m.urn) && (m.op === "update" || m.op === "delete")) {
      steps.push({ op: m.op, urn: m.urn, oldState: m.old ?? undefined, newState: m.op === "delete" ? undefined : (m.new ?? undefined) });
    }
    if (e.summaryEvent?.resourceChanges) changeSummary = e.summaryEvent.resourceChanges;
    if (e.diagnosticEvent) diagnostics.push(e.diagnosticEvent);
  }
  return { steps, changeSummary, diagnostics };
}

/** Whether a `--json` document is a refresh's (its steps are refreshes), and so has no refreshed values. */
export function isRefreshJson(preview: Preview): boolean {
  return (preview.steps ?? []).some((s) => s.op === "refresh");
}
