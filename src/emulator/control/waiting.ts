import { jsonReply, type Incoming, type Reply } from "../transport/http";
import type { Runtime } from "../clusterRuntime";

/**
 * How a control endpoint waits for a state a test needs (`?wait=N` deliveries, held requests, no
 * delivery in flight): it checks every few ms and answers once the state is reached, or after
 * `timeoutMs` with `timedOut: true`. The deadline only keeps a broken test from hanging: tests wait
 * on the state, never on a sleep.
 */

const DEFAULT_TIMEOUT_MS = 5_000;
export const MAX_TIMEOUT_MS = 60_000;
const POLL_MS = 5;

/** A non-negative integer query parameter, `fallback` when absent, undefined when malformed. */
export function count(raw: string | null, fallback: number): number | undefined {
  if (raw === null) return fallback;
  return /^\d+$/.test(raw) && Number.isSafeInteger(Number(raw)) ? Number(raw) : undefined;
}

/** `?timeoutMs=`, or the 400 to answer. */
export function timeoutOf(req: Incoming): number | Reply {
  const timeoutMs = count(req.query.get("timeoutMs"), DEFAULT_TIMEOUT_MS);
  if (timeoutMs === undefined || timeoutMs > MAX_TIMEOUT_MS) return jsonReply(400, { error: `timeoutMs must be an integer from 0 to ${MAX_TIMEOUT_MS}` });
  return timeoutMs;
}

/** Resolves true once `reached()` holds, false when `timeoutMs` passed (or the emulator closes) first. */
export async function waitUntil(rt: Runtime, reached: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!reached()) {
    if (Date.now() >= deadline || rt.closing.aborted) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}
