/**
 * Which planned changes lose data or make it unusable, from what each kind declares (`risk` on its
 * definition, src/core/definition.ts) and, for an object at risk only while used, who may use it
 * (the other kinds' fields, src/core/relations.ts): nothing here knows a kind by name.
 */
import type { Props, ResourceDefinition } from "../core/definition";
import { usedByOf, type UsedBy, type Users } from "../core/relations";
import { kindName, kindOfToken } from "../core/token";
import { isStackUrn } from "../core/urn";
import { USERS } from "../kindUsers";
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
  /** Whether some resource of the preview uses an object of `def` with these inputs (Risk.whileUsed). */
  (def: ResourceDefinition, olds: Props, news: Props): boolean;
  /** Who may use an object of `def`, as the review counts it. */
  usedBy(def: ResourceDefinition): UsedBy;
  /** Whether unchanged resources may be missing from the preview (it was made without `--show-sames`). */
  samesHidden: boolean;
}

/** Whether a value (or a list) names `v`. */
const names = (value: unknown, v: unknown) => value === v || (Array.isArray(value) && value.includes(v));

/**
 * Who uses what in the preview, from every resource's inputs, old and new (unchanged resources
 * appear with `--show-sames`); `definitions` are those of the preview's kinds, `users` every kind's.
 */
export function planValues(preview: Preview, definitions: ReadonlyMap<string, ResourceDefinition>, users: Users = USERS): PlanValues {
  const seen: Seen[] = [];
  for (const s of preview.steps ?? []) {
    const kind = kindOfToken(s.newState?.type ?? s.oldState?.type ?? "");
    if (kind === undefined) continue;
    seen.push({ kind, inputs: [s.oldState?.inputs, s.newState?.inputs].filter((i): i is Props => i !== undefined) });
  }
  const usedIn = (used: UsedBy, values: unknown[]): boolean => seen.some((r) => used.uses.some((u) => u.kind === r.kind &&
    r.inputs.some((i) => values.some((v) => v !== undefined && names(i[u.input], v))) &&
    (u.usedBy === undefined || usedIn(u.usedBy, r.inputs.map((i) => i[u.usedBy!.by])))));
  const usedBy = (def: ResourceDefinition) => usedByOf(def, users, (k) => definitions.get(k));
  const listed = (preview.steps ?? []).some((s) => s.op === "same" && !isStackUrn(s.urn));
  // The stack itself counts as unchanged; anything more unchanged and not listed is hidden.
  return Object.assign((def: ResourceDefinition, olds: Props, news: Props) => {
    const used = usedBy(def);
    return usedIn(used, [olds[used.by], news[used.by]]);
  }, { usedBy, samesHidden: !listed && (preview.changeSummary?.same ?? 0) > 1 });
}

/** What one planned change puts at risk; undefined when it is harmless. */
export function riskOf(change: { name: string; type: string; op: string; changed: string[] }, def: ResourceDefinition | undefined,
  olds: Props, news: Props, inPlan: PlanValues): AtRisk | undefined {
  const r = def?.risk;
  if (!def || !r) return undefined;
  let unseenUse = "";
  if (r.whileUsed && !inPlan(def, olds, news)) {
    // Nothing in the preview uses it: harmless, unless the preview left unchanged users out.
    if (!inPlan.samesHidden) return undefined;
    const kinds = [...new Set(inPlan.usedBy(def).uses.map((u) => kindName(u.kind)))];
    unseenUse = ` (if an unchanged ${kinds.join(" or ")} uses it: this preview lists no unchanged resources; make it with --show-sames to know)`;
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
