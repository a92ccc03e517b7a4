/**
 * Queuing a run: every create attribute of the seed as a field record with its cross-field rules,
 * the request body, and the search that keeps a lost `POST /runs` from queuing a second run.
 */
import { z } from "zod";
import { segment } from "../core/segment";
import { createOnce } from "../core/createOnce";
import { field, fieldSet, type PlainArgsOf, type RuleContext } from "../core/fields";
import type { Context } from "../core/definition";
import { isUnknown } from "../core/unknown";
import { isSvcError, type HttpClient } from "../http";
import { many, one } from "./jsonapi";
import { runFromResource, type RunDetails, type RunVariable } from "./runDetails";
import { RUNS_ROUTES } from "./routes";

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
  workspaceId: field(segment, { identity: true }),
  /**
   * Configuration version (`cv-...`) to plan; default the workspace's most recently used one. It may
   * belong to another workspace (promotion of known good code).
   */
  configurationVersionId: field(nonEmpty, { optional: true, immutable: true }),
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
  variables: field((): z.ZodType<RunVariable[]> => z.array(z.strictObject({ key: nonEmpty(), value: z.string() })), { optional: true, immutable: true, set: true }),
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

/** The workspace and the configuration version are relationships; every other field is an attribute. */
const RELATIONSHIPS = ["workspaceId", "configurationVersionId"];

/** The JSON:API body of `POST /runs`: only the attributes the caller set. */
export function createDocument(args: RunCreateAttributes): unknown {
  const attributes = runCreateSet.body(args, RELATIONSHIPS);
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

/** Whether a listed run carries every attribute a `POST /runs` with these arguments sent. */
function matchesCreate(run: RunDetails, args: RunCreateAttributes): boolean {
  if (run.source !== "svc-api") return false;
  const read = run as unknown as Record<string, unknown>;
  const sent = args as Record<string, unknown>;
  for (const k of runCreateSet.inputs) {
    // The runs searched are the workspace's own.
    if (runCreateSet.identity.includes(k)) continue;
    // A list the run was queued without reads back empty or null.
    if (runCreateSet.sets.includes(k)) {
      if (!sameList(read[k] ?? [], sent[k] ?? [])) return false;
    } else if (sent[k] !== undefined && read[k] !== undefined && read[k] !== sent[k]) return false;
  }
  return true;
}

/**
 * The workspace's runs before the first attempt. The list is newest first: the first page holds
 * every run newer than its oldest entry, so a run missing from it is new only if it is newer than
 * that entry (or the page held every run of the workspace).
 */
interface RunsBefore {
  ids: Set<string>;
  /** Creation time of the oldest run on a full first page; undefined when the page held them all. */
  oldest?: number;
}

const PAGE = 100;

/** The workspace's runs of the first page, newest first; undefined when the workspace cannot be listed. */
async function firstPage(client: HttpClient, workspaceId: string): Promise<RunDetails[] | undefined> {
  try {
    const res = await client.request({ route: RUNS_ROUTES.run.list, params: { workspace_id: workspaceId }, query: { "page[number]": 1, "page[size]": PAGE } });
    return many(res.body).data.map(runFromResource);
  } catch (e) {
    if (isSvcError(e, "not_found")) return undefined;
    throw e;
  }
}

/** The workspace's most recent runs (a page of 100, newest first); none when it cannot be listed. */
export async function recentRuns(client: HttpClient, workspaceId: string): Promise<RunDetails[]> {
  return (await firstPage(client, workspaceId)) ?? [];
}

/** Undefined when the workspace cannot be listed: the create then fails with the server's message. */
async function runsBefore(client: HttpClient, workspaceId: string): Promise<RunsBefore | undefined> {
  const runs = await firstPage(client, workspaceId);
  if (!runs) return undefined;
  const full = runs.length >= PAGE;
  return { ids: new Set(runs.map((r) => r.id)), oldest: full ? Math.min(...runs.map((r) => Date.parse(r.createdAt))) : undefined };
}

function isNew(run: RunDetails, before: RunsBefore): boolean {
  if (before.ids.has(run.id)) return false;
  return before.oldest === undefined || Date.parse(run.createdAt) > before.oldest;
}

/**
 * Looks for the run a lost create made: a run that did not exist before the first attempt,
 * carries every attribute sent, and no other create of this process owns. The oldest such run is
 * the one closest to our attempt. Only the pages newer than the snapshot are read.
 */
async function findCreatedRun(client: HttpClient, args: RunCreateAttributes, before: RunsBefore | undefined, owned: (id: string) => boolean): Promise<RunDetails | undefined> {
  if (!before) return undefined;
  let best: RunDetails | undefined;
  for (let page = 1; page <= 50; page++) {
    const res = await client.request({ route: RUNS_ROUTES.run.list, params: { workspace_id: args.workspaceId }, query: { "page[number]": page, "page[size]": PAGE } });
    const { data, pagination } = many(res.body);
    const runs = data.map(runFromResource);
    let reachedOld = false;
    for (const run of runs) {
      if (!isNew(run, before)) { reachedOld = true; continue; }
      if (owned(run.id) || !matchesCreate(run, args)) continue;
      if (!best || Date.parse(run.createdAt) <= Date.parse(best.createdAt)) best = run;
    }
    if (reachedOld) break;
    const next = pagination?.["next-page"];
    if (next === undefined ? data.length < PAGE : !next) break;
  }
  return best;
}

/**
 * Queues a run. A `POST /runs` that failed ambiguously (the server may have acted) is not
 * repeated blindly: the workspace's runs are searched for one it created, never one that existed
 * before the first attempt.
 */
export async function createRunOnce(ctx: Context, args: RunCreateAttributes): Promise<RunDetails> {
  const client = ctx.client("runs");
  const before = await runsBefore(client, args.workspaceId);
  return createOnce({
    scope: `runs:${client.baseUrl}:${args.workspaceId}`,
    attempt: async () => runFromResource(one((await client.request({ route: RUNS_ROUTES.run.create, body: createDocument(args) })).body)),
    find: (owned) => findCreatedRun(client, args, before, owned),
    idOf: (run) => run.id,
    log: (m) => ctx.log(`run on ${args.workspaceId}: ${m}`),
  });
}
