/**
 * Which planned changes lose data or make it unusable, from what each kind declares (`risk` on its
 * definition, src/core/definition.ts): nothing here knows a kind by name.
 */
import type { Props, ResourceDefinition, UsedBy } from "../core/definition";
import { kindName, kindOfToken } from "../core/token";
import { isStackUrn } from "../core/urn";
import type { Preview } from "./preview";

export interface AtRisk {
  /** The resource's name in the program and its type token. */
  name: string;
  type: string;
  /** What is lost or stranded, and why: one entry per cause. */
  what: string[];
  /** The safer way the kind declares, where there is one. */
  instead?: string;
}

/** One resource as the preview shows it: its kind and its inputs, old and new. */
interface Seen { kind: string; inputs: Props[] }

export interface PlanValues {
  /** Whether some resource of the preview uses an object with these inputs, as `used` says. */
  (used: UsedBy, olds: Props, news: Props): boolean;
  /** Whether unchanged resources may be missing from the preview (it was made without `--show-sames`). */
  samesHidden: boolean;
}

/**
 * Who uses what in the preview, from every resource's inputs, old and new (unchanged resources
 * appear with `--show-sames`).
 */
export function planValues(preview: Preview): PlanValues {
  const seen: Seen[] = [];
  for (const s of preview.steps ?? []) {
    const kind = kindOfToken(s.newState?.type ?? s.oldState?.type ?? "");
    if (kind === undefined) continue;
    seen.push({ kind, inputs: [s.oldState?.inputs, s.newState?.inputs].filter((i): i is Props => i !== undefined) });
  }
  const usedIn = (used: UsedBy, values: unknown[]): boolean => seen.some((r) => used.kinds.includes(r.kind) &&
    r.inputs.some((i) => values.some((v) => v !== undefined && i[used.input] === v)) &&
    (used.usedBy === undefined || usedIn(used.usedBy, r.inputs.map((i) => i[used.usedBy!.by]))));
  const listed = (preview.steps ?? []).some((s) => s.op === "same" && !isStackUrn(s.urn));
  // The stack itself counts as unchanged; anything more unchanged and not listed is hidden.
  return Object.assign((used: UsedBy, olds: Props, news: Props) => usedIn(used, [olds[used.by], news[used.by]]), {
    samesHidden: !listed && (preview.changeSummary?.same ?? 0) > 1,
  });
}

/** What one planned change puts at risk; undefined when it is harmless. */
export function riskOf(change: { name: string; type: string; op: string; changed: string[] }, def: ResourceDefinition | undefined,
  olds: Props, news: Props, inPlan: PlanValues): AtRisk | undefined {
  const r = def?.risk;
  if (!r) return undefined;
  let unseenUse = "";
  if (r.usedBy) {
    const used = r.usedBy;
    if (!inPlan(used, olds, news)) {
      // Nothing in the preview uses it: harmless, unless the preview left unchanged users out.
      if (!inPlan.samesHidden) return undefined;
      unseenUse = ` (if an unchanged ${used.kinds.map(kindName).join(" or ")} uses it: this preview lists no unchanged resources; make it with --show-sames to know)`;
    }
  }
  const what: string[] = [];
  const { op } = change;
  if (op === "create" && r.created) what.push(`created: ${r.created}`);
  if ((op === "delete" || op === "replace") && r.lost && (!r.lostOnlyIf || olds[r.lostOnlyIf] === true)) {
    what.push(`${op === "delete" ? "deleted" : "replaced"}: ${r.lost}`);
  }
  if (op === "replace" && r.created) what.push(`created again: ${r.created}`);
  if (op === "update") {
    const changes = (r.changes ?? {}) as Record<string, string | undefined>;
    for (const k of change.changed) if (changes[k]) what.push(`\`${k}\` changed: ${changes[k]}`);
  }
  if (what.length === 0) return undefined;
  if (unseenUse) what[what.length - 1] += unseenUse;
  return { name: change.name, type: change.type, what, ...(r.instead ? { instead: r.instead } : {}) };
}
