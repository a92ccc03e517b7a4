/**
 * From the steps of a preview to what changes per resource: the operation, each property's old and
 * new input (the dynamic-provider host sends no property diff, so the inputs are compared here),
 * the reason and order of a replacement, and for objects of this package their path on the service.
 */
import type { PolicyFindings } from "./policy";
import { PROVIDER_KEY, type ResourceDefinition } from "../core/definition";
import { diff as providerDiff } from "../core/provider";
import { UNKNOWN } from "../core/unknown";
import { pathFromInputs, pathOfId } from "../core/path";
import { kindName, kindOfToken, serviceOfKind, tokenPackage } from "../core/token";
import { isStackUrn, urnName, urnType } from "../core/urn";
import { planValues, riskOf, type AtRisk } from "./risk";
import { PLANNED } from "../core/planned";
import type { Preview, PreviewState, PreviewStep } from "./preview";
import { holdsSecret, sameValue, secretStatus, secretTexts, versionKey, versionOf, type SecretStatus } from "./secret";

export { UNKNOWN };

export interface PropertyChange {
  name: string;
  kind: "changed" | "added" | "removed" | "unchanged";
  old?: unknown;
  new?: unknown;
  /** Set for a secret property: what may be said about it. Its values are never kept. */
  secret?: SecretStatus;
  /** Of a secret property: its version on each side, when the provider keeps one (`<name>Version`). */
  versions?: { old?: number; new?: number };
}

export interface ResourceChange {
  /** The resource's name in the program (the urn's last part). */
  name: string;
  type: string;
  /** Heading the resource is listed under: `secrets · transform`, `runs`, or another provider's package. */
  group: string;
  /** create, update, replace, delete, or another engine operation (read, import, ...). */
  op: string;
  /** The object's path on its service (objects of this package with an id). */
  path?: string;
  /** Of a replacement that moves the object: its new path. */
  newPath?: string;
  properties: PropertyChange[];
  replaceReasons: string[];
  /** Where the reasons come from: the engine's `replaceReasons`, or this package's immutable fields. */
  reasonsFrom?: "engine" | "immutable";
  /** Of a replacement: whether the old object is deleted before the new one is created (undefined: not said). */
  deleteFirst?: boolean;
  /**
   * Of a replacement the engine cascades: the resource, replaced delete-first, that the named inputs
   * come from. The engine deletes this one before it and creates it again after, though none of its
   * own inputs changed.
   */
  cascadeFrom?: { name: string; type: string; properties: string[] };
  /** The error the last `up` left on the object (its state's initErrors): why the engine updates it again. */
  lastError?: string;
}

export interface ReviewModel {
  changes: ResourceChange[];
  /** Resources the preview leaves as they are, the stack included, as the CLI counts them. */
  unchanged: number;
  /** Texts found inside secret properties: never to be printed. */
  secrets: Set<string>;
  /** The side-effecting function calls the preview announced (src/core/planned.ts), each once with its count. */
  calls: string[];
  /** The preview's error diagnostics: it failed, and its plan is only what came before the failure. */
  errors: PreviewError[];
  /** The changes that lose or strand data, as their kinds declare it (src/review/risk.ts). */
  atRisk: AtRisk[];
  /**
   * Of a drift review (src/review/drift.ts): the changes are drift. `unseen` counts the objects the
   * input gives no refreshed state of: changed on the server with no new values
   * (`from: "refresh-json"`, `pulumi refresh --preview-only --json`), or left out by a preview
   * without `--show-sames` (`from: "no-sames"`). `plan`: of a `pulumi preview --refresh`, what it
   * plans against the refreshed state, per operation.
   */
  drift?: { unseen: number; from?: "refresh-json" | "no-sames"; plan?: Record<string, number>; notKnown?: NotKnown[] };
  /** Of the plan review of a `pulumi preview --refresh`: what its refresh found (`--drift` lists it). */
  refreshed?: { changed: number; gone: number; unseen: number; notKnown?: number };
  /** The policy packs' violations and remediations, from the preview's event log (src/review/policy.ts). */
  policy?: PolicyFindings;
}

/**
 * A resource a refresh read but cannot see, as its kind says (the service does not report it): not
 * counted unchanged, nor gone, nor changed; the review says why.
 */
export interface NotKnown {
  urn: string;
  type: string;
  id?: string;
  why: string;
}

export interface PreviewError {
  /** The resource's name and type when the error is a resource's; absent for the stack's own. */
  resource?: { name: string; type: string };
  message: string;
}

const REPLACE_OPS = new Set(["replace", "create-replacement", "delete-replaced", "discard-replaced", "read-replacement", "import-replacement"]);

/** The heading of a type token: service and engine for this package, the package for others. */
export function groupOf(type: string): string {
  const kind = kindOfToken(type);
  if (kind !== undefined) {
    if (serviceOfKind(kind) === "runs") return "runs";
    const name = kindName(kind);
    const engine = /^[A-Z][a-z]+/.exec(name)?.[0].toLowerCase() ?? name;
    return `secrets · ${engine}`;
  }
  if (type.startsWith("pulumi:providers:")) return "providers";
  return tokenPackage(type);
}

/**
 * The path after a replacement: each segment of the old path that equals an old string input is
 * replaced by that input's new value (a template renamed from `us-ssn` to `us-ssn-v2` moves from
 * `transform/template/us-ssn` to `transform/template/us-ssn-v2`).
 */
function movedPath(path: string, olds: Record<string, unknown>, news: Record<string, unknown>): string {
  return path.split("/").map((seg) => {
    const key = Object.keys(olds).find((k) => k !== PROVIDER_KEY && olds[k] === seg && typeof news[k] === "string" && !holdsSecret(news[k]));
    return key === undefined ? seg : (news[key] as string);
  }).join("/");
}

function inputsOf(s: PreviewState | null | undefined, from: "inputs" | "outputs" = "inputs"): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // The engine's own keys and the hidden ones of this package (`__urn`) start with two underscores.
  for (const [k, v] of Object.entries(s?.[from] ?? {})) if (!k.startsWith("__")) out[k] = v;
  return out;
}

function propertyChanges(olds: Record<string, unknown>, news: Record<string, unknown>, secretNames: Set<string>, secrets: Set<string>, drift = false): PropertyChange[] {
  const names = [...new Set([...Object.keys(olds), ...Object.keys(news)])].sort();
  const isSecret = (name: string) => secretNames.has(name) || holdsSecret(olds[name]) || holdsSecret(news[name]);
  // A secret's version counter is said on the secret's own line.
  const counters = new Set(names.filter((n) => isSecret(n)).map(versionKey));
  return names.filter((n) => !counters.has(n)).map((name): PropertyChange => {
    const o = olds[name];
    const n = news[name];
    if (isSecret(name)) {
      secretTexts(o, secrets);
      secretTexts(n, secrets);
      const versions = { old: versionOf(olds[versionKey(name)]), new: versionOf(news[versionKey(name)]) };
      // A refresh that cannot tell a secret changed (masked on both sides, no version) does not
      // call it drift either: the read keeps what it cannot see (a write-only value).
      const status = drift && secretStatus(o, n, versions) === "unknown" ? "unchanged" : secretStatus(o, n, versions);
      const kind = status === "unknown" ? "changed" : status;
      return { name, kind, secret: status, ...(versions.old !== undefined || versions.new !== undefined ? { versions } : {}) };
    }
    const kind = o === undefined ? "added" : n === undefined ? "removed" : sameValue(o, n) ? "unchanged" : "changed";
    return { name, kind, old: o, new: n };
  });
}

/**
 * The provider's diff of the inputs as the preview prints them; undefined when they are not what
 * the provider expects (hand-edited JSON, masked values a rule cannot read): then nothing is said.
 */
function plannedReplacement(def: ResourceDefinition, olds: Record<string, unknown>, news: Record<string, unknown>): { replaces: string[]; deleteBeforeReplace: boolean } | undefined {
  try {
    return providerDiff(def, olds, news);
  } catch {
    return undefined;
  }
}

/**
 * Reads the steps of a preview into one change per resource, in the order the engine planned them.
 * With `drift`, the steps are what a refresh read (src/review/drift.ts): their outputs are compared,
 * what the server holds, so a change of an output alone (a key's `latestVersion`) is seen too.
 */
export function reviewModel(preview: Preview, definitions: ReadonlyMap<string, ResourceDefinition> = new Map(), options: { drift?: boolean } = {}): ReviewModel {
  const byUrn = new Map<string, PreviewStep[]>();
  for (const s of preview.steps ?? []) {
    if (s.op === "same" || isStackUrn(s.urn)) continue;
    byUrn.set(s.urn, [...(byUrn.get(s.urn) ?? []), s]);
  }
  const secrets = new Set<string>();
  const seen = [...byUrn].map(([urn, steps]) => ({ urn, ...resourceChange(urn, steps, definitions, secrets, options.drift) }));
  const byUrnChange = new Map(seen.map((c) => [c.urn, c.change]));
  for (const { change, deps } of seen) if (change.op === "replace") explainCascade(change, deps, byUrnChange);
  const inPlan = planValues(preview, definitions);
  const atRisk = seen.flatMap(({ change, def, olds, news }) => {
    const changed = change.properties.filter((p) => p.kind !== "unchanged").map((p) => p.name);
    return riskOf({ ...change, changed }, def, olds, news, inPlan) ?? [];
  });
  // Counted as the CLI counts them ("Resources: 6 unchanged"), the stack included: a review that
  // said one less than the CLI beside it read as a resource gone missing.
  const unchanged = preview.changeSummary?.same ?? 0;
  return { changes: seen.map((c) => c.change), unchanged, secrets, calls: plannedCalls(preview), errors: errorsOf(preview), atRisk };
}

/** One resource's steps as one change, with what the risk and the cascades need of it. */
interface SeenChange {
  change: ResourceChange;
  def: ResourceDefinition | undefined;
  olds: Record<string, unknown>;
  news: Record<string, unknown>;
  /** The inputs of its state that come from other resources, by their URNs. */
  deps: Record<string, string[] | null | undefined>;
}

/**
 * The change of one resource from its steps. With `drift`, the steps are what a refresh read
 * (src/review/drift.ts): their outputs are compared, what the server holds, so a change of an
 * output alone (a key's `latestVersion`) is seen too.
 */
function resourceChange(urn: string, steps: PreviewStep[], definitions: ReadonlyMap<string, ResourceDefinition>, secrets: Set<string>, drift?: boolean): SeenChange {
  const ops = steps.map((s) => s.op);
  const replace = ops.some((o) => REPLACE_OPS.has(o));
  const op = replace ? "replace" : ops[0]!;
  const oldState = steps.find((s) => s.oldState)?.oldState ?? undefined;
  const newState = [...steps].reverse().find((s) => s.newState)?.newState ?? undefined;
  const type = newState?.type ?? oldState?.type ?? urnType(urn);
  const kind = kindOfToken(type);
  const def = kind === undefined ? undefined : definitions.get(kind);
  // The fields this package declares secret are secret by name too, whatever the JSON shows.
  const secretNames = new Set([...(oldState?.additionalSecretOutputs ?? []), ...(newState?.additionalSecretOutputs ?? []), ...(def?.secrets ?? [])]);
  const compared = drift ? "outputs" : "inputs";
  const olds = op === "create" ? {} : inputsOf(oldState, compared);
  const news = op === "delete" ? {} : inputsOf(newState, compared);
  const created = op === "delete" ? undefined : pathFromInputs(def, news);
  const change: ResourceChange = {
    name: urnName(urn), type, group: groupOf(type), op,
    path: op === "create" ? created : pathOfId(def, oldState?.id),
    properties: propertyChanges(olds, news, secretNames, secrets, drift),
    replaceReasons: [...new Set(steps.flatMap((s) => s.replaceReasons ?? []))],
  };
  if (change.replaceReasons.length) change.reasonsFrom = "engine";
  const failed = (oldState?.initErrors ?? []).join("; ").trim();
  if (failed && op !== "delete") change.lastError = failed;
  if (replace) {
    // The provider's own rule (immutable fields; identity or claims kept: delete first) where the
    // preview does not say: the same function decides it during the real diff.
    const planned = def ? plannedReplacement(def, olds, news) : undefined;
    if (!change.replaceReasons.length && planned?.replaces.length) {
      change.replaceReasons = planned.replaces;
      change.reasonsFrom = "immutable";
    }
    // The rule's order holds only where the rule itself asks for this replacement.
    change.deleteFirst = deleteFirst(steps, oldState, newState) ?? (planned?.replaces.length ? planned.deleteBeforeReplace : undefined);
    if (change.path) {
      const moved = created ?? movedPath(change.path, olds, news);
      if (moved !== change.path) change.newPath = moved;
    }
  }
  return { change, def, olds, news, deps: newState?.propertyDependencies ?? oldState?.propertyDependencies ?? {} };
}

/**
 * A replacement none of whose reasons is a changed input, with an input that comes from a resource
 * replaced delete-first: the engine replaces it because of that one (it would point at an object
 * about to be deleted). In plain `--json` it has no reason; with `--show-replacement-steps` its
 * reason is the dependent input, which did not change.
 */
function explainCascade(change: ResourceChange, deps: Record<string, string[] | null | undefined>, byUrn: ReadonlyMap<string, ResourceChange>): void {
  const changed = new Set(change.properties.filter((p) => p.kind !== "unchanged").map((p) => p.name));
  if (change.replaceReasons.some((r) => changed.has(r))) return;
  for (const [property, urns] of Object.entries(deps)) {
    for (const urn of urns ?? []) {
      const root = byUrn.get(urn);
      if (root === undefined || root === change || root.op !== "replace" || root.deleteFirst !== true) continue;
      if (change.cascadeFrom && change.cascadeFrom.name !== root.name) continue;
      change.cascadeFrom ??= { name: root.name, type: root.type, properties: [] };
      change.cascadeFrom.properties.push(property);
    }
  }
  if (change.cascadeFrom) change.deleteFirst = true;
}

/** Each error diagnostic once, in order; the engine's closing "preview failed" line adds nothing. */
function errorsOf(preview: Preview): PreviewError[] {
  const seen = new Set<string>();
  const out: PreviewError[] = [];
  for (const d of preview.diagnostics ?? []) {
    if (d.severity !== "error") continue;
    const message = (d.message ?? "").replace(/^error:\s*/, "").trim();
    const onStack = !d.urn || isStackUrn(d.urn);
    const key = `${d.urn ?? ""}\n${message}`;
    if (seen.has(key) || message === "") continue;
    seen.add(key);
    out.push({ ...(onStack ? {} : { resource: { name: urnName(d.urn!), type: urnType(d.urn!) } }), message });
  }
  return out;
}

/** The calls announced in the preview's diagnostics, in order, identical ones once with a count. */
function plannedCalls(preview: Preview): string[] {
  const counts = new Map<string, number>();
  for (const d of preview.diagnostics ?? []) {
    const at = d.message?.indexOf(PLANNED) ?? -1;
    if (at < 0) continue;
    const call = d.message!.slice(at + PLANNED.length).split("\n")[0]!.trim();
    counts.set(call, (counts.get(call) ?? 0) + 1);
  }
  return [...counts].map(([call, n]) => (n > 1 ? `${call} (${n} times)` : call));
}

/**
 * Whether a replacement deletes the old object first: from the order of its steps when the JSON
 * lists them (`delete-replaced` before `create-replacement`), else from the markers the engine puts
 * on the old state in a preview (`pendingReplacement`: deleted first; `delete`: deleted after its
 * successor is created), else from the resource option.
 */
function deleteFirst(steps: PreviewStep[], oldState: PreviewState | undefined, newState: PreviewState | undefined): boolean | undefined {
  const ops = steps.map((s) => s.op);
  const del = ops.indexOf("delete-replaced");
  const create = ops.indexOf("create-replacement");
  if (del >= 0 && create >= 0) return del < create;
  if (steps.some((s) => s.deleteBeforeReplace === true) || newState?.deleteBeforeReplace === true) return true;
  if (oldState?.pendingReplacement === true) return true;
  if (oldState?.delete === true) return false;
  return undefined;
}
