/**
 * Creates an object whose id the server assigns, without ever creating it twice and without ever
 * taking an object that existed before. A request that failed ambiguously (connection dropped,
 * timeout, 5xx, and also 429: a proxy may answer it after the server acted) is not repeated
 * blindly: `find` looks for what the attempt may have created first.
 *
 * `find` is given the ids other creates of this process own already. Creates that could make
 * look-alike objects share a `scope` (a workspace's runs, a secrets mount's aliases): while one of
 * them looks, none of them posts, and the lookup waits for posts in flight, so two resources that
 * send the same attributes never end up with one object.
 */
// From errors, not the client: a Check that sends nothing loads no HTTP client (the machinery imports this).
import { isAmbiguous, isSvcError } from "../http/errors";

export interface CreateOnce<T> {
  /** Creates that may produce look-alike objects share a scope (e.g. `runs:<url>:<workspace>`). */
  scope: string;
  attempt(): Promise<T>;
  /**
   * Looks for the object an earlier attempt created: one that was not there before the first
   * attempt, matches every attribute sent, and is not `owned` by another create. Undefined when
   * there is none.
   */
  find(owned: (id: string) => boolean): Promise<T | undefined>;
  /** The id of a created object, recorded as owned by this create. */
  idOf(created: T): string;
  log?(message: string): void;
  maxAttempts?: number;
}

/** One scope: posts run side by side; a lookup runs alone, after the posts in flight. */
class Scope {
  posting = new Set<Promise<unknown>>();
  private lookup: Promise<unknown> = Promise.resolve();
  private looking = 0;

  async post<T>(attempt: () => Promise<T>): Promise<T> {
    while (this.looking > 0) await this.lookup.catch(() => undefined);
    const p = attempt();
    this.posting.add(p);
    try {
      return await p;
    } finally {
      this.posting.delete(p);
    }
  }

  look<T>(find: () => Promise<T>): Promise<T> {
    this.looking++;
    const run = this.lookup.catch(() => undefined).then(async () => {
      await Promise.allSettled([...this.posting]);
      return find();
    });
    // The chain only orders lookups: it must never hold a rejection nobody handles (Node exits on one).
    this.lookup = run.then(settled, settled).finally(() => { this.looking--; });
    return run;
  }
}

const settled = () => undefined;

const scopes = new Map<string, Scope>();
/** Ids created or found by a create of this process: a later lookup must never take one. */
const owned = new Set<string>();

/** Forgets what this process created: the next deployment it serves is another stack's, whose creates own nothing yet. */
export function forgetCreates(): void {
  scopes.clear();
  owned.clear();
}

/** Whether a create of this process made (or found) the object: one program may declare two alike. */
export const ownedHere = (id: string): boolean => owned.has(id);

export async function createOnce<T>(op: CreateOnce<T>): Promise<T> {
  let scope = scopes.get(op.scope);
  if (!scope) scopes.set(op.scope, (scope = new Scope()));
  const max = op.maxAttempts ?? 3;
  let last: unknown;
  for (let i = 1; i <= max; i++) {
    try {
      const created = await scope.post(() => op.attempt());
      owned.add(op.idOf(created));
      return created;
    } catch (e) {
      const failedAt = Date.now();
      last = e;
      if (!isAmbiguous(e)) throw e;
      let found: T | undefined;
      try {
        found = await scope.look(async () => {
          const hit = await op.find((id) => owned.has(id));
          if (hit !== undefined) owned.add(op.idOf(hit));
          return hit;
        });
      } catch (lookErr) {
        // Neither outcome is known: say so, keeping the create's own error type.
        (e as Error).message += `; looking for what it may have created failed too (${(lookErr as Error).message}):` +
          " the object may exist on the server, so check before running pulumi up again";
        throw e;
      }
      if (found !== undefined) {
        op.log?.(`create failed ambiguously (${(e as Error).message}) but its object exists: using ${op.idOf(found)}`);
        return found;
      }
      // After the last attempt there is nothing to announce: the error goes to the engine.
      if (i === max) break;
      if (isSvcError(e, "rate_limited")) {
        // Retry-After counts from the 429: the client's shared pause may have held the lookup for
        // most of it already, and waiting it out again would double every throttled create.
        const wait = Math.max(0, Math.min((e as { retryAfterMs?: number }).retryAfterMs ?? 1000, 30_000) - (Date.now() - failedAt));
        op.log?.(`create refused with 429 and nothing was created; trying again in ${wait} ms`);
        await new Promise((r) => setTimeout(r, wait));
      } else {
        op.log?.(`create failed before the server acted (${(e as Error).message}); attempt ${i + 1} of ${max}`);
      }
    }
  }
  throw last;
}

/**
 * What a `find` looks for among the candidates listed now: the first that was not there before the
 * first attempt (`before`), that no other create of this process owns, and that `matches` every
 * attribute sent. The candidates are checked one at a time, in order, so `matches` may read each:
 * one that existed before is never read.
 */
export async function firstNew<T>(candidates: AsyncIterable<T> | Iterable<T>, idOf: (c: T) => string, before: ReadonlySet<string>,
  owned: (id: string) => boolean, matches: (c: T) => boolean | Promise<boolean>): Promise<T | undefined> {
  for await (const c of candidates) {
    const id = idOf(c);
    if (before.has(id) || owned(id)) continue;
    if (await matches(c)) return c;
  }
  return undefined;
}
