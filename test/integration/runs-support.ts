// Shared helpers of the runs integration tests: run documents and the emulator's
// run control endpoints (docs/emulator.md, "Run path").
import type { Emulator } from "../../src/emulator";
import { control, runApi } from "../support/emulator";

export type Doc = { id: string; type: string; attributes: Record<string, any>; relationships?: Record<string, any> };

export async function runDoc(emu: Emulator, id: string): Promise<Doc> {
  const r = await runApi(emu, "GET", `/runs/${id}`);
  if (r.status !== 200) throw new Error(`GET /runs/${id}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
}

/** Queues a run with a raw POST /runs; returns its id. */
export async function queueRaw(emu: Emulator, workspaceId = emu.workspaceId, attributes: Record<string, unknown> = {}): Promise<string> {
  const r = await runApi(emu, "POST", "/runs", { data: { type: "runs", attributes, relationships: { workspace: { data: { type: "workspaces", id: workspaceId } } } } });
  if (r.status !== 201) throw new Error(`POST /runs: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data.id;
}

export async function advance(emu: Emulator, id: string, to?: string): Promise<Doc> {
  return (await control<{ data: Doc }>(emu, "POST", `/runs/${id}/advance`, to === undefined ? {} : { to })).data;
}

/** Moves a run one step at a time until `done` holds; fails if it stops moving first. */
export async function advanceUntil(emu: Emulator, id: string, done: (d: Doc) => boolean): Promise<Doc> {
  let doc = await runDoc(emu, id);
  for (let i = 0; i < 30 && !done(doc); i++) doc = await advance(emu, id);
  if (!done(doc)) throw new Error(`run ${id} did not get there: ${doc.attributes.status}`);
  return doc;
}

export const confirmable = (d: Doc) => d.attributes.actions?.["is-confirmable"] === true;

export async function outcome(emu: Emulator, id: string, o: { hasChanges?: boolean; policy?: string; error?: "plan" | "apply" }): Promise<void> {
  await control(emu, "POST", `/runs/${id}/outcome`, o);
}

/** Runs created directly by the emulator (bulk, or already in a final status). */
export async function bulkRuns(emu: Emulator, body: Record<string, unknown>): Promise<string[]> {
  return (await control<{ ids: string[] }>(emu, "POST", "/runs", { workspaceId: emu.workspaceId, ...body })).ids;
}

export async function seedWorkspace(emu: Emulator, ws: Record<string, unknown> & { id: string }): Promise<string> {
  await control(emu, "POST", "/seed", { workspaces: [{ name: ws.id, ...ws }], configurationVersions: [{ workspaceId: ws.id }] });
  return ws.id;
}

export async function clock(emu: Emulator, autoAdvanceMs: number): Promise<void> {
  await control(emu, "PUT", "/clock", { autoAdvanceMs });
}

export async function until<T>(what: string, get: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function workspaceRuns(emu: Emulator, workspaceId = emu.workspaceId): Promise<Doc[]> {
  const r = await runApi(emu, "GET", `/workspaces/${workspaceId}/runs?page%5Bsize%5D=100`);
  return r.body.data;
}

/**
 * The polls of `/runs/{id}` the emulator logged more than `seconds` after the first one, up to the
 * first action on the run (a timed-out Run reads it afresh to stop it). A wait that honours its
 * deadline (taken before its first poll) checks it after every poll and stops, so at most one poll
 * comes after it, however slow the machine: no clock decides this count.
 */
export async function pollsPastDeadline(emu: Emulator, id: string, seconds: number): Promise<number> {
  const logged = (await control<{ requests: { method: string; path: string; at: string }[] }>(emu, "GET", "/requests")).requests;
  const acted = logged.findIndex((r) => r.path.startsWith(`/api/v2/runs/${id}/actions/`));
  const polls = (acted < 0 ? logged : logged.slice(0, acted)).filter((r) => r.method === "GET" && r.path === `/api/v2/runs/${id}`).map((r) => Date.parse(r.at));
  // The read just before the action is the stop's own (it chooses discard or cancel), not a poll:
  // counted, it made two reads past a deadline that a slow machine's late timer put after the first.
  if (acted >= 0) polls.pop();
  if (polls.length === 0) throw new Error(`no read of run ${id} was logged`);
  return polls.filter((at) => at > polls[0] + seconds * 1000).length;
}
