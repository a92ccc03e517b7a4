/**
 * From the steps of a preview to what changes per resource: the operation, each property's old and
 * new input (the dynamic-provider host sends no property diff, so the inputs are compared here),
 * the reason and order of a replacement, and for objects of this package their path on the service.
 */
import type { Preview, PreviewState, PreviewStep } from "./preview";
import { holdsSecret, sameValue, secretStatus, secretTexts, type SecretStatus } from "./secret";

/** The engine's key for the serialized dynamic provider: in every input, never a change a reviewer wants. */
const PROVIDER_KEY = "__provider";
/** The value of an input the preview cannot know yet. */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const DYNAMIC = /^pulumi-nodejs:dynamic\/(runs|secrets):([A-Za-z]+)$/;

export interface PropertyChange {
  name: string;
  kind: "changed" | "added" | "removed" | "unchanged";
  old?: unknown;
  new?: unknown;
  /** Set for a secret property: what may be said about it. Its values are never kept. */
  secret?: SecretStatus;
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
  /** Of a replacement: whether the old object is deleted before the new one is created (undefined: not said). */
  deleteFirst?: boolean;
}

export interface ReviewModel {
  changes: ResourceChange[];
  /** Resources the preview leaves as they are (the stack itself not counted). */
  unchanged: number;
  /** Texts found inside secret properties: never to be printed. */
  secrets: Set<string>;
}

const REPLACE_OPS = new Set(["replace", "create-replacement", "delete-replaced", "discard-replaced", "read-replacement", "import-replacement"]);
const nameOf = (urn: string) => urn.split("::").pop() ?? urn;

/** The heading of a type token: service and engine for this package, the package for others. */
export function groupOf(type: string): string {
  const m = DYNAMIC.exec(type);
  if (m) {
    if (m[1] === "runs") return "runs";
    const engine = /^[A-Z][a-z]+/.exec(m[2])?.[0].toLowerCase() ?? m[2];
    return `secrets · ${engine}`;
  }
  if (type.startsWith("pulumi:providers:")) return "providers";
  return type.split(":")[0] || type;
}

/** The path of an object of this package on its service, from its type and id. */
export function pathOf(type: string, id: string | undefined): string | undefined {
  const m = DYNAMIC.exec(type);
  if (!m || !id || id === UNKNOWN) return undefined;
  if (m[1] === "secrets") return id.includes("/") ? id : undefined;
  if (m[2] === "Run") return `runs/${id}`;
  if (m[2] === "NotificationConfiguration") return `notification-configurations/${id}`;
  return undefined;
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

function inputsOf(s: PreviewState | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s?.inputs ?? {})) if (k !== PROVIDER_KEY) out[k] = v;
  return out;
}

function propertyChanges(olds: Record<string, unknown>, news: Record<string, unknown>, secretNames: Set<string>, secrets: Set<string>): PropertyChange[] {
  const names = [...new Set([...Object.keys(olds), ...Object.keys(news)])].sort();
  return names.map((name): PropertyChange => {
    const o = olds[name];
    const n = news[name];
    const kind = o === undefined ? "added" : n === undefined ? "removed" : sameValue(o, n) ? "unchanged" : "changed";
    if (secretNames.has(name) || holdsSecret(o) || holdsSecret(n)) {
      secretTexts(o, secrets);
      secretTexts(n, secrets);
      const status = secretStatus(o, n);
      return { name, kind: status === "unchanged" ? "unchanged" : status === "added" ? "added" : status === "removed" ? "removed" : "changed", secret: status };
    }
    return { name, kind, old: o, new: n };
  });
}

/** Reads the steps of a preview into one change per resource, in the order the engine planned them. */
export function reviewModel(preview: Preview): ReviewModel {
  const byUrn = new Map<string, PreviewStep[]>();
  for (const s of preview.steps ?? []) {
    if (s.op === "same" || s.urn.includes("::pulumi:pulumi:Stack::")) continue;
    byUrn.set(s.urn, [...(byUrn.get(s.urn) ?? []), s]);
  }
  const secrets = new Set<string>();
  const changes: ResourceChange[] = [];
  for (const [urn, steps] of byUrn) {
    const ops = steps.map((s) => s.op);
    const replace = ops.some((o) => REPLACE_OPS.has(o));
    const op = replace ? "replace" : ops[0];
    const oldState = steps.find((s) => s.oldState)?.oldState ?? undefined;
    const newState = [...steps].reverse().find((s) => s.newState)?.newState ?? undefined;
    const type = newState?.type ?? oldState?.type ?? urn.split("::")[2] ?? "";
    const secretNames = new Set([...(oldState?.additionalSecretOutputs ?? []), ...(newState?.additionalSecretOutputs ?? [])]);
    const olds = op === "create" ? {} : inputsOf(oldState);
    const news = op === "delete" ? {} : inputsOf(newState);
    const change: ResourceChange = {
      name: nameOf(urn),
      type,
      group: groupOf(type),
      op,
      path: pathOf(type, oldState?.id),
      properties: propertyChanges(olds, news, secretNames, secrets),
      replaceReasons: [...new Set(steps.flatMap((s) => s.replaceReasons ?? []))],
    };
    if (replace) {
      change.deleteFirst = deleteFirst(steps, oldState, newState);
      if (change.path) {
        const moved = movedPath(change.path, olds, news);
        if (moved !== change.path) change.newPath = moved;
      }
    }
    changes.push(change);
  }
  // The stack's `same` step counts too in the engine's summary.
  const stackSame = (preview.steps ?? []).some((s) => s.op === "same" && s.urn.includes("::pulumi:pulumi:Stack::"));
  const unchanged = Math.max(0, (preview.changeSummary?.same ?? 0) - (stackSame ? 1 : 0));
  return { changes, unchanged, secrets };
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
