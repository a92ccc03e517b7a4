/**
 * Queuing a run: every create attribute of the seed, their zod shape and cross-field rules, the
 * request body, and the search that keeps a lost `POST /runs` from queuing a second run.
 */
import { z } from "zod";
import { createOnce } from "../core/createOnce";
import type { Context } from "../core/definition";
import { isUnknown } from "../core/unknown";
import type { HttpClient } from "../http";
import { many, one } from "./jsonapi";
import { runFromResource, type RunDetails, type RunVariable } from "./runDetails";
import { RUN_ROUTES } from "./runVocabulary";

/** Every create attribute of the seed, with camelCase names. */
export interface RunCreateAttributes {
  /** Workspace (`ws-...`) where the run executes. */
  workspaceId: string;
  /** Configuration version (`cv-...`) to plan; default: the workspace's most recently used one. It may belong to another workspace (promotion). */
  configurationVersionId?: string;
  /** Why the run was queued; default: the service's text saying it was queued through the API. */
  message?: string;
  /** Destroy every object regardless of configuration. Cannot be combined with `refreshOnly`. */
  isDestroy?: boolean;
  /** Only refresh state. Cannot be combined with `isDestroy`. */
  refreshOnly?: boolean;
  /** Refresh state before planning; default true. */
  refresh?: boolean;
  /** Speculative run that cannot be applied; default from the configuration version. */
  planOnly?: boolean;
  /** Apply without confirmation; default the workspace's setting. */
  autoApply?: boolean;
  /** Let the run apply although the plan has no changes. */
  allowEmptyApply?: boolean;
  /** Allow generating configuration for import blocks; default false. */
  allowConfigGeneration?: boolean;
  /** Resource addresses to target. */
  targetAddrs?: string[];
  /** Resource addresses to force replacement of. */
  replaceAddrs?: string[];
  /** Run-specific variables overriding workspace variables of the same key; values are literals in the tool's syntax (strings with their quotes). */
  variables?: RunVariable[];
  /** Tool version for this run; only valid with `planOnly: true`. */
  toolVersion?: string;
}

/** Create attribute → its kebab-case name in the request body. */
export const CREATE_ATTRIBUTES = {
  message: "message",
  isDestroy: "is-destroy",
  refreshOnly: "refresh-only",
  refresh: "refresh",
  planOnly: "plan-only",
  autoApply: "auto-apply",
  allowEmptyApply: "allow-empty-apply",
  allowConfigGeneration: "allow-config-generation",
  targetAddrs: "target-addrs",
  replaceAddrs: "replace-addrs",
  variables: "variables",
  toolVersion: "tool-version",
} as const satisfies Partial<Record<keyof RunCreateAttributes, string>>;

export const CREATE_KEYS: ReadonlyArray<keyof RunCreateAttributes> = ["workspaceId", "configurationVersionId", ...Object.keys(CREATE_ATTRIBUTES) as (keyof RunCreateAttributes)[]];

const nonEmpty = () => z.string().min(1, "must not be empty");

/**
 * The zod shape of the create attributes; call at run time only (never captured by a provider).
 * @internal zod types stay out of the public declarations (see tsconfig stripInternal).
 */
export function createAttributesShape() {
  return {
    workspaceId: nonEmpty(),
    configurationVersionId: nonEmpty().optional(),
    message: z.string().optional(),
    isDestroy: z.boolean().optional(),
    refreshOnly: z.boolean().optional(),
    refresh: z.boolean().optional(),
    planOnly: z.boolean().optional(),
    autoApply: z.boolean().optional(),
    allowEmptyApply: z.boolean().optional(),
    allowConfigGeneration: z.boolean().optional(),
    targetAddrs: z.array(nonEmpty()).optional(),
    replaceAddrs: z.array(nonEmpty()).optional(),
    variables: z.array(z.object({ key: nonEmpty(), value: z.string() })).optional(),
    toolVersion: nonEmpty().optional(),
  };
}

/**
 * The seed's cross-field rules of a run create, as zod issues at the property that breaks them.
 * @internal
 */
export function refineCreateAttributes(v: Partial<RunCreateAttributes>, ctx: z.RefinementCtx): void {
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

/** The JSON:API body of `POST /runs`: only the attributes the caller set. */
export function createDocument(args: RunCreateAttributes): unknown {
  const attributes: Record<string, unknown> = {};
  for (const [key, wire] of Object.entries(CREATE_ATTRIBUTES)) {
    const value = (args as unknown as Record<string, unknown>)[key];
    if (value !== undefined && value !== null) attributes[wire] = value;
  }
  const relationships: Record<string, unknown> = { workspace: { data: { type: "workspaces", id: args.workspaceId } } };
  if (args.configurationVersionId) {
    relationships["configuration-version"] = { data: { type: "configuration-versions", id: args.configurationVersionId } };
  }
  return { data: { type: "runs", attributes, relationships } };
}

const sameList = (a: unknown, b: unknown) => {
  const norm = (v: unknown) => (Array.isArray(v) ? [...v].map((x) => JSON.stringify(x)).sort().join("\n") : "");
  return norm(a) === norm(b);
};

/** Whether a listed run looks like the one a lost `POST /runs` with these attributes created. */
function matchesCreate(run: RunDetails, args: RunCreateAttributes, since: number): boolean {
  const created = Date.parse(run.createdAt);
  if (!(created >= since - 5 * 60_000)) return false; // clock skew allowance, as for notification configurations
  if (run.source !== "svc-api") return false;
  if (args.message !== undefined && run.message !== args.message) return false;
  if (args.configurationVersionId !== undefined && run.configurationVersionId !== undefined && run.configurationVersionId !== args.configurationVersionId) return false;
  const flags: [keyof RunCreateAttributes, keyof RunDetails][] = [
    ["isDestroy", "isDestroy"], ["refreshOnly", "refreshOnly"], ["planOnly", "planOnly"], ["refresh", "refresh"],
    ["autoApply", "autoApply"], ["allowEmptyApply", "allowEmptyApply"], ["allowConfigGeneration", "allowConfigGeneration"],
  ];
  for (const [arg, attr] of flags) if (args[arg] !== undefined && run[attr] !== args[arg]) return false;
  if (!sameList(run.targetAddrs ?? [], args.targetAddrs ?? [])) return false;
  if (!sameList(run.replaceAddrs ?? [], args.replaceAddrs ?? [])) return false;
  if (!sameList(run.variables, args.variables ?? [])) return false;
  return true;
}

/**
 * Looks through the workspace's runs for one a lost create made: newest first, stopping at a page
 * that is sorted newest first and holds nothing recent enough.
 */
async function findCreatedRun(client: HttpClient, args: RunCreateAttributes, since: number): Promise<RunDetails | undefined> {
  const threshold = since - 5 * 60_000;
  let best: RunDetails | undefined;
  for (let page = 1; page <= 50; page++) {
    const res = await client.request({ route: RUN_ROUTES.list, params: { workspace_id: args.workspaceId }, query: { "page[number]": page, "page[size]": 100 } });
    const { data, pagination } = many(res.body);
    const runs = data.map(runFromResource);
    for (const run of runs) {
      if (matchesCreate(run, args, since) && (!best || Date.parse(run.createdAt) > Date.parse(best.createdAt))) best = run;
    }
    const times = runs.map((r) => Date.parse(r.createdAt));
    const descending = times.every((t, i) => i === 0 || t <= times[i - 1]);
    if (descending && times.length > 0 && times[0] < threshold) break;
    const next = pagination?.["next-page"];
    if (next === undefined ? data.length < 100 : !next) break;
  }
  return best;
}

/**
 * Queues a run. A `POST /runs` that failed ambiguously (the server may have acted) is not
 * repeated blindly: the workspace's recent runs are searched for the one it created first.
 */
export async function createRunOnce(ctx: Context, args: RunCreateAttributes): Promise<RunDetails> {
  const client = ctx.client("runs");
  return createOnce({
    attempt: async () => runFromResource(one((await client.request({ route: RUN_ROUTES.create, body: createDocument(args) })).body)),
    find: (since) => findCreatedRun(client, args, since),
    log: (m) => ctx.log(`run on ${args.workspaceId}: ${m}`),
  });
}
