/**
 * A run's attributes: every create attribute of the seed as a field record with its cross-field
 * rules, and the request body of `POST /runs`. A read of a run reports them from the same record
 * (src/runs/runDetails.ts), and a Run resource takes them as its inputs (src/runs/run.ts).
 */
import { z } from "../core/zod";
import type { z as Zod } from "zod";
import { segment } from "../core/segment";
import { field, fieldSet, type PlainArgsOf, type RuleContext } from "../core/fields";
import { isUnknown } from "../core/unknown";
import { relationshipsOf } from "./jsonapi";

/** A run-specific variable; `value` is a literal in the tool's own syntax (strings carry their quotes). */
export interface RunVariable {
  /** The variable's name. */
  key: string;
  /** Its value, a literal in the tool's own syntax (`"\"eu-west-1\""`, `42`, `["a"]`). */
  value: string;
}

const nonEmpty = () => z.string().min(1, "must not be empty");
const flag = () => z.boolean();
const addresses = () => z.array(nonEmpty());

/**
 * Every create attribute of the seed, with camelCase names. A queued run's attributes never change,
 * so each is immutable: on a Run resource, changing one queues a new run.
 */
export const runCreateFields = {
  // Identity: a workspace runs one run at a time, so a Run replaced in the same workspace stops its
  // old run first, or the new run would wait behind the old one's lock.
  /** Workspace (`ws-...`) where the run executes. */
  workspaceId: field(segment, { identity: true, relationship: { name: "workspace", type: "workspaces" } }),
  /**
   * Configuration version (`cv-...`) to plan; default the workspace's most recently used one. It may
   * belong to another workspace (promotion of known good code).
   */
  configurationVersionId: field(nonEmpty, { optional: true, immutable: true, relationship: { name: "configuration-version", type: "configuration-versions" } }),
  /** Why the run was queued; default the service's text for runs queued through the API. */
  message: field(() => z.string(), { optional: true, immutable: true }),
  /** Destroy every object regardless of configuration. Cannot be combined with `refreshOnly`. */
  isDestroy: field(flag, { optional: true, immutable: true }),
  /** Only refresh state. Cannot be combined with `isDestroy`. */
  refreshOnly: field(flag, { optional: true, immutable: true }),
  /** Refresh state before planning; the service's default is true. */
  refresh: field(flag, { optional: true, immutable: true }),
  /** Speculative run that cannot be applied; default from the configuration version. */
  planOnly: field(flag, { optional: true, immutable: true }),
  /** Apply without confirmation; default the workspace's auto-apply setting. */
  autoApply: field(flag, { optional: true, immutable: true }),
  /** Let the run apply although its plan has no changes. */
  allowEmptyApply: field(flag, { optional: true, immutable: true }),
  /** Allow generating resource configuration for import blocks; default false. */
  allowConfigGeneration: field(flag, { optional: true, immutable: true }),
  /** Resource addresses to target (a set: order and duplicates do not matter). */
  targetAddrs: field(addresses, { optional: true, immutable: true, set: true }),
  /** Resource addresses to force replacement of (a set: order and duplicates do not matter). */
  replaceAddrs: field(addresses, { optional: true, immutable: true, set: true }),
  /**
   * Run-specific variables; they override workspace variables (and variable sets) of the same key.
   * Each value is a literal in the tool's own syntax: a string carries its quotes (`"\"eu-west-1\""`).
   * Keys must be unique.
   */
  variables: field((): Zod.ZodType<RunVariable[]> => z.array(z.strictObject({ key: nonEmpty(), value: z.string() })), { optional: true, immutable: true, set: true }),
  /** Tool version for this run; only valid with `planOnly: true`. */
  toolVersion: field(nonEmpty, { optional: true, immutable: true }),
};

/** Every create attribute of the seed, with camelCase names. */
export type RunCreateAttributes = PlainArgsOf<typeof runCreateFields>;

/**
 * The seed's cross-field rules of a run create, as issues at the property that breaks them.
 * @internal
 */
export function refineCreateAttributes(v: Partial<RunCreateAttributes>, ctx: RuleContext): void {
  const known = (x: unknown) => x !== undefined && !isUnknown(x);
  if (known(v.isDestroy) && known(v.refreshOnly) && v.isDestroy === true && v.refreshOnly === true) {
    ctx.addIssue({ code: "custom", path: ["refreshOnly"], message: "cannot be combined with isDestroy: a run is either a destroy or a refresh-only run" });
  }
  if (known(v.toolVersion) && !isUnknown(v.planOnly) && v.planOnly !== true) {
    ctx.addIssue({ code: "custom", path: ["toolVersion"], message: "is only valid for plan-only runs (set planOnly: true)" });
  }
  if (Array.isArray(v.variables)) {
    const seen = new Set<string>();
    v.variables.forEach((variable, i) => {
      const key = (variable as { key?: unknown } | undefined)?.key;
      if (typeof key !== "string" || isUnknown(key)) return;
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["variables", i, "key"], message: `duplicate variable key "${key}"` });
      seen.add(key);
    });
  }
}

/** @internal */
export const runCreateSet = fieldSet(runCreateFields, { case: "kebab", refine: refineCreateAttributes });

/** The JSON:API body of `POST /runs`: only the attributes and relationships the caller set. */
export function createDocument(args: RunCreateAttributes): unknown {
  return { data: { type: "runs", attributes: runCreateSet.body(args), relationships: relationshipsOf(runCreateSet, args) } };
}
