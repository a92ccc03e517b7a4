/**
 * The Markdown of a review, in pieces: a title and summary, then one block per changed resource
 * under its group's heading. truncate.ts decides which blocks fit.
 */
import { oneLine } from "../core/text";
import { shortToken } from "../core/token";
import { urnName } from "../core/urn";
import { DRIFT_COMMAND, DRIFT_REVIEW } from "./drift";
import { UNKNOWN, type NotKnown, type PreviewError, type PropertyChange, type ResourceChange, type ReviewModel } from "./diff";

export interface RenderOptions {
  /** List unchanged properties too. */
  full?: boolean;
}

/** One resource's lines, with what truncation needs to know about it. */
export interface Block {
  group: string;
  op: string;
  /** A replacement or delete: never left out. */
  kept: boolean;
  text: string;
}

/** Longest text of one value in a review; longer values are cut with an ellipsis. */
const MAX_VALUE = 200;

const VERBS: Record<string, string> = { create: "to create", update: "to update", replace: "to replace", delete: "to delete" };
const ORDER = ["replace", "delete", "update", "create"];

/**
 * Inline code for any text: a fence longer than any run of backticks inside it, and the text on one
 * line (a name or value from a server must not end the span and start Markdown of its own).
 */
function code(raw: string): string {
  const text = oneLine(raw);
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") || text === "" ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A value as one line of JSON, unknowns spelt out, long ones cut. */
export function valueText(v: unknown): string {
  if (v === UNKNOWN) return "(known after apply)";
  const json = JSON.stringify(v, (_k, x: unknown) => (x === UNKNOWN ? "(known after apply)" : x)) ?? String(v);
  const flat = json.replace(/\s+/g, " ");
  return code(flat.length > MAX_VALUE ? `${flat.slice(0, MAX_VALUE)}…` : flat);
}

/** A message as one line of code, long ones cut. */
function textLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return code(flat.length > MAX_VALUE * 2 ? `${flat.slice(0, MAX_VALUE * 2)}…` : flat);
}

function propertyLine(p: PropertyChange): string {
  const name = code(p.name);
  if (p.secret) {
    const v = p.versions;
    const version = v?.old !== undefined && v.new !== undefined ? (v.old === v.new ? `, version ${v.new}` : `, version ${v.old} → ${v.new}`)
      : v?.new !== undefined ? `, version ${v.new}` : "";
    const said = p.secret === "unknown"
      ? "secret (whether it changed cannot be told: the preview masks it and no version of it is recorded)"
      : `${p.secret} (secret${version})`;
    return `- ${name}: ${said}`;
  }
  switch (p.kind) {
    case "added":
      return `- ${name}: (none) → ${valueText(p.new)}`;
    case "removed":
      return `- ${name}: ${valueText(p.old)} → (none)`;
    case "unchanged":
      return `- ${name}: ${valueText(p.new)} (unchanged)`;
    default:
      return `- ${name}: ${valueText(p.old)} → ${valueText(p.new)}`;
  }
}

const shortType = (type: string) => oneLine(shortToken(type));

/** The one line a resource is named by in the summary and as its block's heading. */
function title(c: ResourceChange): string {
  const where = c.path ? (c.newPath ? ` ${code(c.path)} → ${code(c.newPath)}` : ` ${code(c.path)}`) : "";
  return `${code(c.name)} (${shortType(c.type)})${where}`;
}

function replacementLine(c: ResourceChange): string {
  const fields = c.replaceReasons.map(code).join(", ");
  const because = c.cascadeFrom
    ? `because ${code(c.cascadeFrom.name)} (${shortType(c.cascadeFrom.type)}), which its ${c.cascadeFrom.properties.map(code).join(", ")} ${c.cascadeFrom.properties.length > 1 ? "come" : "comes"} from, is replaced and deleted first (the engine replaces what depends on it; none of its own inputs changed)`
    : !c.replaceReasons.length ? "no reason given by the provider"
    // The engine blames the id when it replaces on request: no input changed.
    : c.replaceReasons.length === 1 && c.replaceReasons[0] === "id" ? "on request (`pulumi up --replace`, `--target-replace` or a tainted resource; no input changed)"
    : c.reasonsFrom === "immutable" ? `forced by ${fields} (immutable)` : `forced by ${fields}`;
  const order = c.deleteFirst === undefined ? "order not stated in the preview"
    : c.deleteFirst ? "**the old object is deleted first**, then the new one created"
      : "the new object is created first, then the old one deleted";
  return `${because}; ${order}`;
}

function resourceBlock(c: ResourceChange, options: RenderOptions & { drift?: boolean }): Block {
  const lines = [`#### ${(options.drift ? DRIFT_OPS[c.op] : undefined) ?? c.op}: ${title(c)}`];
  if (c.op === "replace") lines.push(`Replacement ${replacementLine(c)}.`);
  const shown = c.op === "delete" && !options.full ? [] : c.properties.filter((p) => options.full || p.kind !== "unchanged");
  if (c.lastError) lines.push("", `The last \`up\` failed on it, so the engine updates it again: ${textLine(c.lastError)}`);
  if (shown.length) lines.push("", ...shown.map(propertyLine));
  else if (!c.lastError && !c.cascadeFrom && !options.drift && (c.op === "update" || c.op === "replace")) lines.push("", "No input changed (the provider asked for this step).");
  const hidden = c.properties.length - shown.length;
  if (hidden > 0 && c.op !== "delete") lines.push("", `${hidden} unchanged ${hidden === 1 ? "property" : "properties"} not shown (--full lists them).`);
  return { group: c.group, op: c.op, kept: c.op === "replace" || c.op === "delete", text: `${lines.join("\n")}\n` };
}

/** Counts per operation, in the order a reviewer reads them. */
function counts(model: ReviewModel): [string, number][] {
  const by = new Map<string, number>();
  for (const c of model.changes) by.set(c.op, (by.get(c.op) ?? 0) + 1);
  return [...by].sort(([a], [b]) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99));
}

const TITLE = "## Pulumi preview review";
/** Most errors listed; a preview that fails this often has one cause to fix first. */
const MAX_ERRORS = 20;

function errorLine(e: PreviewError): string {
  const where = e.resource ? `${code(e.resource.name)} (${shortType(e.resource.type)})` : "the program";
  return `- ${where}: ${textLine(e.message)}`;
}

/** A failed preview's errors, above everything: its plan is only what came before the failure. */
function failureLines(model: ReviewModel): string[] {
  if (!model.errors.length) return [];
  const more = model.errors.length - MAX_ERRORS;
  return [
    "", `**⛔ The preview failed** with ${model.errors.length} ${model.errors.length === 1 ? "error" : "errors"}: nothing can be applied until ${model.errors.length === 1 ? "it is" : "they are"} fixed, and the plan below stops where the preview did.`, "",
    ...model.errors.slice(0, MAX_ERRORS).map(errorLine),
    ...(more > 0 ? [`- …and ${more} more (pulumi preview lists them all)`] : []),
  ];
}

const DRIFT_TITLE = "## Pulumi refresh review: drift";
/** How drift names the engine's operations: a refresh's update is a change made outside Pulumi. */
const DRIFT_OPS: Record<string, string> = { update: "changed outside Pulumi", delete: "gone from the server" };

/** How to get each object's drift, old → new, with a plain CLI. */
const DRIFT_HOW = `For each object's changes, old → new (outputs too, such as a key rotated by hand), review a preview that refreshes first: \`${DRIFT_COMMAND}\`, then \`${DRIFT_REVIEW}\`.`;

/** Each resource the refresh could not see, and why (its kind says). */
function notKnownLines(notKnown: readonly NotKnown[]): string[] {
  if (!notKnown.length) return [];
  const one = notKnown.length === 1;
  return ["", `**Not known:** the refresh cannot tell whether ${one ? "this object is" : "these objects are"} still on the server as recorded, ` +
    `so ${one ? "it is" : "they are"} counted neither unchanged nor gone:`, "",
  ...notKnown.map((n) => `- ${code(urnName(n.urn))} (${shortType(n.type)})${n.id ? ` ${code(n.id)}` : ""}: ${oneLine(n.why)}.`)];
}

function driftSummary(model: ReviewModel): string {
  const by = counts(model);
  const parts = by.map(([op, n]) => `${n} ${DRIFT_OPS[op] ?? op}`);
  const { unseen = 0, from, plan, notKnown = [] } = model.drift ?? {};
  if (unseen) parts.push(from === "no-sames" ? `${unseen} not compared` : `${unseen} changed outside Pulumi`);
  if (notKnown.length) parts.push(`${notKnown.length} not known`);
  const lines = [DRIFT_TITLE, ...failureLines(model), "", `**Drift:** ${parts.join(", ")}.`, ...notKnownLines(notKnown)];
  if (unseen && from === "refresh-json") {
    lines.push("", `The JSON of \`pulumi refresh --preview-only --json\` counts ${unseen === 1 ? "an object" : "objects"} changed on the server but carries no new values, ` +
      `and counts none whose outputs alone changed. ${DRIFT_HOW}`);
  }
  if (unseen && from === "no-sames") {
    lines.push("", `The preview leaves out the ${unseen === 1 ? "resource" : "resources"} its plan does not change, and so ${unseen === 1 ? "its" : "their"} refreshed state: ` +
      `give it \`--show-sames\` (\`${DRIFT_COMMAND}\`) to compare ${unseen === 1 ? "it" : "them"} too.`);
  }
  if (plan) lines.push("", `**The next \`pulumi up\`** (planned against what the refresh read): ${planLine(plan)}.`);
  return `${lines.join("\n")}\n`;
}

/** A plan's counts per operation, in the order a reviewer reads them. */
function planLine(plan: Record<string, number>): string {
  const parts = Object.entries(plan).filter(([op, n]) => op !== "same" && n > 0)
    .sort(([a], [b]) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99)).map(([op, n]) => `${n} ${VERBS[op] ?? `to ${op}`}`);
  return parts.length ? `${parts.join(", ")}; it puts back what the program declares` : "no change";
}

/** Of the plan review of a preview that refreshed first: what the refresh found, and how to see it. */
function refreshedLines(model: ReviewModel): string[] {
  const r = model.refreshed;
  const notKnown = r?.notKnown ?? 0;
  if (!r || r.changed + r.gone + r.unseen + notKnown === 0) return [];
  const found = [r.changed ? `${r.changed} changed outside Pulumi` : "", r.gone ? `${r.gone} gone from the server` : "",
    r.unseen ? `${r.unseen} not compared (no --show-sames)` : "", notKnown ? `${notKnown} not known (the service does not report ${notKnown === 1 ? "it" : "them"})` : ""]
    .filter(Boolean).join(", ");
  return ["", `**Drift:** the preview refreshed first and found ${found}; this plan is made against what it read. \`pulumi-svc-review --drift\` on the same JSON lists each, old → new.`];
}

export function summary(model: ReviewModel): string {
  if (model.drift) return driftSummary(model);
  const parts = counts(model).map(([op, n]) => `${n} ${VERBS[op] ?? `to ${op}`}`);
  if (model.unchanged) parts.push(`${model.unchanged} unchanged`);
  const lines = [TITLE, ...failureLines(model), "", `**Plan:** ${parts.join(", ")}.`];
  lines.push(...refreshedLines(model));
  lines.push(...policyLines(model));
  lines.push(...riskLines(model));
  lines.push(...callLines(model));
  const risky = model.changes.filter((c) => c.op === "replace" || c.op === "delete");
  if (risky.length) {
    lines.push("", "**Replacements and deletes:**", "");
    for (const c of risky) lines.push(`- ${c.op === "replace" ? "⚠️ replace" : "🗑️ delete"} ${title(c)}${c.op === "replace" ? `: ${replacementLine(c)}` : ""}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Most violations listed one by one; the rest are counted (the CLI's output lists them all). */
const MAX_VIOLATIONS = 50;

/**
 * What the policy packs found: mandatory violations first (each fails the preview and would stop
 * the update), then advisory ones, each with what the policy reported; then why each policy holds
 * (its description, once), and what remediations changed before the plan was made.
 */
function policyLines(model: ReviewModel): string[] {
  const p = model.policy;
  if (!p || p.violations.length + p.remediations.length === 0) return [];
  const mandatory = p.violations.filter((v) => v.level === "mandatory").length;
  const advisory = p.violations.length - mandatory;
  const out: string[] = [];
  if (p.violations.length) {
    const counted = [mandatory ? `${mandatory} mandatory` : "", advisory ? `${advisory} advisory` : ""].filter(Boolean).join(", ");
    out.push("", `### ${mandatory ? "⛔" : "⚠️"} Policy violations: ${counted}`, "");
    if (mandatory) out.push(`A mandatory violation fails the preview, and stops \`pulumi up\` before the resource is changed.`, "");
    const said = (m: string) => { const at = m.indexOf("\n"); return at < 0 ? m : m.slice(at + 1); };
    out.push(...p.violations.slice(0, MAX_VIOLATIONS).map((v) => `- ${v.level === "mandatory" ? "⛔ **mandatory**" : "⚠️ advisory"} ${code(v.policy)} on ${code(v.name)} (${shortType(v.type)}): ${textLine(said(v.message))}`));
    if (p.violations.length > MAX_VIOLATIONS) out.push(`- …and ${p.violations.length - MAX_VIOLATIONS} more (pulumi preview lists them all)`);
    const why = new Map(p.violations.map((v) => [v.policy, `${v.pack}${v.version ? ` ${v.version}` : ""}: ${v.message.split("\n")[0]}`]));
    out.push("", "<details><summary>Why each policy holds</summary>", "", ...[...why].map(([name, text]) => `- ${code(name)} (${textLine(text)})`), "", "</details>");
  }
  if (p.remediations.length) {
    out.push("", "**Remediated by policy** (the plan above already has these changes):", "");
    for (const r of p.remediations) {
      const what = r.changes.map((c) => `${code(c.property)}: ${valueText(c.old)} → ${valueText(c.new)}`).join(", ") || "no input changed";
      out.push(`- ${code(r.policy)} (${r.pack}) on ${code(r.name)} (${shortType(r.type)}): ${what}`);
    }
  }
  return out;
}

/** The changes that lose or strand data, before anything else a reviewer reads. */
function riskLines(model: ReviewModel): string[] {
  if (!model.atRisk.length) return [];
  const n = model.atRisk.length;
  return [
    "", `### ⚠️ Data at risk: ${n} ${n === 1 ? "change loses or strands" : "changes lose or strand"} data`, "",
    ...model.atRisk.map((r) => `- ${code(r.name)} (${shortType(r.type)}): ${r.what.join("; ")}.${r.instead ? ` **Instead:** ${r.instead}.` : ""}`),
  ];
}

/**
 * The side-effecting functions `up` will call: they make no request in a preview, which only
 * announces them (src/core/planned.ts), so a reviewer does not read the plan as all `up` will do.
 */
function callLines(model: ReviewModel): string[] {
  if (!model.calls.length) return [];
  return ["", "**Functions the program calls on `up`** (a preview makes no request for them):", "", ...model.calls.map((c) => `- ${code(c)}`)];
}

/** The one line of a preview that changes nothing (and the functions `up` will call all the same). */
export function noChanges(model: ReviewModel): string {
  const n = model.unchanged;
  const unchanged = n ? ` (${n} ${n === 1 ? "resource" : "resources"} unchanged)` : "";
  // "No changes" is never said of a preview that failed: it planned nothing because it stopped.
  if (model.errors.length) return `${[TITLE, ...failureLines(model), "", `**Plan:** no change planned before the preview stopped${unchanged}.`, ...policyLines(model), ...callLines(model)].join("\n")}\n`;
  const line = model.drift ? `No drift: the refresh found every object as the state records it${unchanged}.`
    : `No changes: the preview plans no create, update, replace or delete${unchanged}.`;
  const plan = model.drift?.plan ? ["", `**The next \`pulumi up\`** (planned against what the refresh read): ${planLine(model.drift.plan)}.`] : [];
  return `${[line, ...refreshedLines(model), ...plan, ...policyLines(model), ...callLines(model)].join("\n")}\n`;
}

/** Every resource's block, grouped by heading (groups in first-seen order, risky ones first inside). */
export function blocks(model: ReviewModel, options: RenderOptions = {}): Block[] {
  const groups = [...new Set(model.changes.map((c) => c.group))];
  const rank = (c: ResourceChange) => (ORDER.indexOf(c.op) + 1 || 99);
  const drift = model.drift !== undefined;
  return groups.flatMap((g) => model.changes.filter((c) => c.group === g).sort((a, b) => rank(a) - rank(b)).map((c) => resourceBlock(c, { ...options, drift })));
}

export function groupHeading(group: string): string {
  return `\n### ${oneLine(group)}\n\n`;
}
