/**
 * What pulumi-svc-recover does to a stack's deployment (the JSON of `pulumi stack export`): each
 * pending create of this package's resources, left by a CLI killed while the create was in flight,
 * is settled against the server. The one object the create made is recorded as the resource (with
 * the reason as its init error, so the next `up` updates it: a Run takes up its wait); a create
 * that made nothing is dropped (the next `up` creates it); anything else stays and is said.
 */
import type { Props } from "../core/definition";
import { BEFORE_KEY, type Before } from "../core/leftovers";
import { SECRET_SIG, SIG_KEY } from "../engine/values";
import { oneLine } from "../core/text";
import { kindOfToken } from "../core/token";
import { urnName } from "../core/urn";

export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  custom?: boolean;
  inputs?: Props;
  outputs?: Props;
  initErrors?: string[];
  created?: string;
  modified?: string;
  [key: string]: unknown;
}

export interface PendingOperation {
  type: string;
  resource: StateResource;
}

export interface Deployment {
  resources?: StateResource[];
  pending_operations?: PendingOperation[];
  [key: string]: unknown;
}

/**
 * What the server holds that a pending create may have made, for one kind (see src/core/leftovers.ts),
 * and whether the kind's id is its path (a replacement made again at the same path has the old id).
 */
export type Finder = (kind: string, inputs: Props) => Promise<{ ids: string[]; byPath: boolean } | "unknown kind">;

/** How one pending operation was settled, as the command says it. */
export interface Outcome {
  urn: string;
  /** recorded: the object is the resource now; dropped: the create made nothing; kept: left pending, `why` says what to do. */
  what: "recorded" | "dropped" | "kept";
  id?: string;
  why: string;
}

/** The inputs as `stack export --show-secrets` shows them, each secret replaced by its value. */
export function revealed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(revealed);
  if (v === null || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  if (o[SIG_KEY] === SECRET_SIG) return "plaintext" in o ? revealed(JSON.parse(String(o.plaintext))) : revealed(o.value);
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, revealed(x)]));
}

/**
 * Settles the pending creates of `sealed` (the export as stored: secrets encrypted, which is what
 * goes back) using `open` (the same export with secrets shown, for the requests). Returns the new
 * deployment, or undefined when nothing changed, and what happened to each pending operation.
 */
export async function settle(sealed: Deployment, open: Deployment, find: Finder): Promise<{ deployment?: Deployment; outcomes: Outcome[] }> {
  const pending = sealed.pending_operations ?? [];
  let resources = [...(sealed.resources ?? [])];
  const kept: PendingOperation[] = [];
  const outcomes: Outcome[] = [];
  const now = new Date().toISOString();
  for (const [i, op] of pending.entries()) {
    const r = op.resource;
    const kind = kindOfToken(r.type);
    if (op.type !== "creating" || kind === undefined) {
      kept.push(op);
      continue;
    }
    const inputs = revealed(open.pending_operations?.[i]?.resource.inputs ?? {}) as Props;
    // A replacement that deleted first: the old object is gone, so it is neither held nor "there before".
    const replaced = resources.filter((x) => x.urn === r.urn && x.pendingReplacement === true);
    const held = new Set(resources.filter((x) => x.type === r.type && x.id && !replaced.includes(x)).map((x) => x.id!));
    // A create told to take an object over (adoptId, adopt: true) may take it: the user said so.
    const onPurpose = typeof inputs.adoptId === "string" || inputs.adopt === true;
    const found = typeof inputs.adoptId === "string" ? { ids: [inputs.adoptId], byPath: false } : await find(kind, inputs);
    if (found === "unknown kind") {
      kept.push(op);
      outcomes.push({ urn: r.urn, what: "kept", why: `${urnName(r.urn)}: ${r.type} is not a kind this pulumi-svc knows (is it older than the program's?); left pending` });
      continue;
    }
    const gone = new Set(found.byPath ? replaced.map((x) => x.id) : []);
    const before = (inputs[BEFORE_KEY] as Before | undefined)?.ids.filter((id) => !gone.has(id));
    const outcome = judge(r.urn, found.ids.filter((id) => !held.has(id)), onPurpose ? undefined : before, onPurpose);
    outcomes.push(outcome);
    if (outcome.what === "kept") kept.push(op);
    if (outcome.what !== "recorded") continue;
    resources = [...resources.filter((x) => !replaced.includes(x)).map((x) => supersede(x, r.urn)), record(r, outcome.id!, now)];
  }
  if (outcomes.every((o) => o.what === "kept")) return { outcomes };
  const deployment: Deployment = { ...sealed, resources };
  if (kept.length > 0) deployment.pending_operations = kept;
  else delete deployment.pending_operations;
  return { deployment, outcomes };
}

/**
 * What to do with a create that may have made one of `free` (what the server holds that no other
 * resource does): with `before`, what check saw before it, the one new object is its; without, only
 * when the user said so (`onPurpose`) can one be taken.
 */
function judge(urn: string, free: string[], before: string[] | undefined, onPurpose: boolean): Outcome {
  const name = urnName(urn);
  const made = onPurpose ? free : before ? free.filter((id) => !before.includes(id)) : undefined;
  if (made === undefined && free.length > 0) {
    return { urn, what: "kept", why: `${name}: ${oneLine(free.join(", "))} exists, and nothing records whether it was there before the cancelled create: ` +
      "take it over on purpose (adopt: true, or adoptId) if it is this stack's; left pending" };
  }
  if (made && made.length > 1) {
    return { urn, what: "kept", why: `${name}: ${oneLine(made.join(", "))} each could be what the cancelled create made: take the right one over with adoptId; left pending` };
  }
  if (made && made.length === 1) return { urn, what: "recorded", id: made[0], why: `${name}: ${oneLine(made[0]!)} recorded; the next pulumi up completes it` };
  return { urn, what: "dropped", why: free.length > 0
    ? `${name}: the cancelled create made nothing (${oneLine(free.join(", "))} was there before it); the next pulumi up says so`
    : `${name}: the cancelled create made nothing; the next pulumi up creates it` };
}

/**
 * The old resource of a replacement made first (create-before-delete) that a recorded create
 * replaces: marked for deletion, as the engine marks it once its successor exists.
 */
function supersede(x: StateResource, urn: string): StateResource {
  return x.urn === urn && x.delete !== true ? { ...x, delete: true } : x;
}

/**
 * The resource as the stack will hold it: the pending create's own record with the id, its inputs
 * as outputs (secrets stay as stored) and an init error, so the next up updates it and reads back
 * every output (the engine updates a resource with init errors whatever its diff).
 */
function record(r: StateResource, id: string, now: string): StateResource {
  return {
    ...r, id, outputs: { ...(r.inputs ?? {}) },
    initErrors: ["created by a pulumi up that was stopped, and recorded by pulumi-svc-recover: the next pulumi up completes it"],
    created: now, modified: now,
  };
}

/** How `pulumi preview --json` shows a secret value, even with --show-secrets. */
const HIDDEN = "[secret]";

/** A create that `pulumi preview --json` plans: the resource as the step's new state gives it. */
export interface PlannedCreate {
  op: string;
  urn: string;
  newState?: StateResource;
}

/**
 * Settles, for a stack whose pending creates were cleared (pulumi refresh --clear-pending-creates),
 * the creates the next `up` would make: what dropped the record also dropped every trace of what
 * the stopped `up` made, so the user's word (`--cleared`) stands for it. Each planned create of this
 * package whose object the server holds (the one no resource of the stack holds) is recorded as the
 * resource, its inputs as planned without the secret ones, which the preview hides and which could
 * not be sealed here anyway (the next `up`, which updates the resource, writes them); two candidates
 * are said, not taken.
 */
export async function settleCleared(sealed: Deployment, planned: PlannedCreate[], find: Finder): Promise<{ deployment?: Deployment; outcomes: Outcome[] }> {
  const resources = [...(sealed.resources ?? [])];
  const outcomes: Outcome[] = [];
  const now = new Date().toISOString();
  for (const step of planned) {
    const r = step.newState;
    const kind = r && kindOfToken(r.type);
    if (!r || !kind || (step.op !== "create" && step.op !== "create-replacement")) continue;
    // A preview hides secret values ("[secret]"): they are left out of the look-up as unknown.
    const inputs = Object.fromEntries(Object.entries(r.inputs ?? {}).filter(([, v]) => v !== HIDDEN)) as Props;
    const found = typeof inputs.adoptId === "string" ? { ids: [inputs.adoptId], byPath: false } : await find(kind, inputs);
    if (found === "unknown kind") continue;
    const replaced = resources.filter((x) => x.urn === r.urn && x.pendingReplacement === true);
    const held = new Set(resources.filter((x) => x.type === r.type && x.id && !replaced.includes(x)).map((x) => x.id!));
    const free = found.ids.filter((id) => !held.has(id));
    if (free.length === 0) {
      outcomes.push({ urn: r.urn, what: "dropped", why: `${urnName(r.urn)}: the server holds nothing it could have made; the next pulumi up creates it` });
      continue;
    }
    const outcome = judge(r.urn, free, [], true);
    outcomes.push(outcome);
    if (outcome.what !== "recorded") continue;
    const shown = Object.fromEntries(Object.entries(r.inputs ?? {}).filter(([k, v]) => k !== BEFORE_KEY && !JSON.stringify(v).includes(HIDDEN)));
    const entry: StateResource = { ...r, inputs: shown };
    for (const x of replaced) resources.splice(resources.indexOf(x), 1);
    resources.push(record(entry, outcome.id!, now));
  }
  if (!outcomes.some((o) => o.what === "recorded")) return { outcomes };
  return { deployment: { ...sealed, resources }, outcomes };
}
