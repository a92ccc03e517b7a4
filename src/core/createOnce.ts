/**
 * Creates an object whose id the server assigns, without ever creating it twice. A request that
 * failed ambiguously (connection dropped, timeout, 5xx: the server may have acted) is not repeated
 * blindly: `find` looks for what the attempt may have created first.
 */
import { isSvcError } from "../http";

export interface CreateOnce<T> {
  attempt(): Promise<T>;
  /** Looks for an object the earlier attempts created; undefined when there is none. */
  find(since: number): Promise<T | undefined>;
  log?(message: string): void;
  maxAttempts?: number;
}

function ambiguous(e: unknown): boolean {
  return isSvcError(e, "transport") || isSvcError(e, "server");
}

export async function createOnce<T>(op: CreateOnce<T>): Promise<T> {
  const since = Date.now();
  const max = op.maxAttempts ?? 3;
  let last: unknown;
  for (let i = 1; i <= max; i++) {
    try {
      return await op.attempt();
    } catch (e) {
      last = e;
      if (isSvcError(e, "rate_limited")) {
        // Refused before acting: safe to try again once the server says so.
        const wait = Math.min((e as { retryAfterMs?: number }).retryAfterMs ?? 1000, 30_000);
        op.log?.(`create refused with 429, trying again in ${wait} ms`);
        await new Promise((r) => setTimeout(r, wait));
        continue;
      }
      if (!ambiguous(e)) throw e;
      const found = await op.find(since);
      if (found !== undefined) {
        op.log?.(`create failed ambiguously (${(e as Error).message}) but the object exists: using it`);
        return found;
      }
      op.log?.(`create failed before the server acted (${(e as Error).message}); attempt ${i + 1} of ${max}`);
    }
  }
  throw last;
}
