import { jsonReply, type Incoming, type Reply } from "../http";
import type { Runtime } from "../runtime";
import { fail } from "./control-body";

/**
 * GET /_emulator/deliveries[?wait=N[&timeoutMs=T]]: the deliveries log; with `wait`, answers once
 * at least N entries exist or T ms (default 5000, at most 60000) have passed, with `timedOut`
 * saying which. Notifications are sent after the API answers, so this is how tests wait for them.
 */

const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_TIMEOUT_MS = 60_000;
const POLL_MS = 5;

function count(raw: string | null, fallback: number): number | undefined {
  if (raw === null) return fallback;
  return /^\d+$/.test(raw) && Number.isSafeInteger(Number(raw)) ? Number(raw) : undefined;
}

export async function listDeliveries(rt: Runtime, req: Incoming): Promise<Reply> {
  const wait = count(req.query.get("wait"), 0);
  const timeoutMs = count(req.query.get("timeoutMs"), DEFAULT_TIMEOUT_MS);
  if (wait === undefined) return fail(400, "wait must be a non-negative integer");
  if (timeoutMs === undefined || timeoutMs > MAX_TIMEOUT_MS) return fail(400, `timeoutMs must be an integer from 0 to ${MAX_TIMEOUT_MS}`);
  const deadline = Date.now() + timeoutMs;
  let deliveries = rt.deliveries.all();
  while (deliveries.length < wait && Date.now() < deadline && !rt.closing.aborted) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    deliveries = rt.deliveries.all();
  }
  return jsonReply(200, { deliveries, ...(wait > 0 ? { timedOut: deliveries.length < wait } : {}) });
}
