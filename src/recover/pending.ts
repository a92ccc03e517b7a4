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

/** What the server holds that a pending create may have made, for one kind (see src/core/leftovers.ts). */
export type Finder = (kind: string, inputs: Props) => Promise<string[] | "unknown kind">;

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

const nameOf = (urn: string) => urn.slice(urn.lastIndexOf("::") + 2);

/**
 * Settles the pending creates of `sealed` (the export as stored: secrets encrypted, which is what
 * goes back) using `open` (the same export with secrets shown, for the requests). Returns the new
 * deployment, or undefined when nothing changed, and what happened to each pending operation.
 */
export async function settle(sealed: Deployment, open: Deployment, find: Finder): Promise<{ deployment?: Deployment; outcomes: Outcome[] }> {
  const pending = sealed.pending_operations ?? [];
  const resources = [...(sealed.resources ?? [])];
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
    const name = nameOf(r.urn);
    const inputs = revealed(open.pending_operations?.[i]?.resource.inputs ?? {}) as Props;
    const held = new Set(resources.filter((x) => x.type === r.type && x.id).map((x) => x.id!));
    // A create told to take an object over (adoptId, adopt: true) may take it: the user said so.
    const onPurpose = typeof inputs.adoptId === "string" || inputs.adopt === true;
    const found = typeof inputs.adoptId === "string" ? [inputs.adoptId] : await find(kind, inputs);
    if (found === "unknown kind") {
      kept.push(op);
      outcomes.push({ urn: r.urn, what: "kept", why: `${name}: ${r.type} is not a kind this pulumi-svc knows (is it older than the program's?); left pending` });
      continue;
    }
    const free = found.filter((id) => !held.has(id));
    const before = (inputs[BEFORE_KEY] as Before | undefined)?.ids;
    const made = onPurpose ? free : before ? free.filter((id) => !before.includes(id)) : undefined;
    if (made === undefined && free.length > 0) {
      kept.push(op);
      outcomes.push({ urn: r.urn, what: "kept", why: `${name}: ${oneLine(free.join(", "))} exists, and nothing records whether it was there before the cancelled create: ` +
        "take it over on purpose (adopt: true, or adoptId) if it is this stack's; left pending" });
    } else if (made && made.length > 1) {
      kept.push(op);
      outcomes.push({ urn: r.urn, what: "kept", why: `${name}: ${oneLine(made.join(", "))} each could be what the cancelled create made: take the right one over with adoptId; left pending` });
    } else if (made && made.length === 1) {
      resources.push(recorded(r, made[0]!, now));
      outcomes.push({ urn: r.urn, what: "recorded", id: made[0], why: `${name}: ${oneLine(made[0]!)} recorded; the next pulumi up completes it` });
    } else {
      outcomes.push({ urn: r.urn, what: "dropped", why: free.length > 0
        ? `${name}: the cancelled create made nothing (${oneLine(free.join(", "))} was there before it); the next pulumi up says so`
        : `${name}: the cancelled create made nothing; the next pulumi up creates it` });
    }
  }
  if (outcomes.every((o) => o.what === "kept")) return { outcomes };
  const deployment: Deployment = { ...sealed, resources };
  if (kept.length > 0) deployment.pending_operations = kept;
  else delete deployment.pending_operations;
  return { deployment, outcomes };
}

/**
 * The resource as the stack will hold it: the pending create's own record with the id, its inputs
 * as outputs (secrets stay as stored) and an init error, so the next up updates it and reads back
 * every output (the engine updates a resource with init errors whatever its diff).
 */
function recorded(r: StateResource, id: string, now: string): StateResource {
  return {
    ...r, id, outputs: { ...(r.inputs ?? {}) },
    initErrors: ["created by a pulumi up that was stopped, and recorded by pulumi-svc-recover: the next pulumi up completes it"],
    created: now, modified: now,
  };
}
