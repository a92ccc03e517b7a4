// What every fault suite's cells share: the faults, when they strike, and a refresh under them.
import { expect } from "vitest";
import type { Emulator } from "../../src/emulator";
import { call } from "../../src/runtime";
import { control } from "../support/emulator";
import type { State } from "./deploy";

export const FAULTS: [string, Record<string, unknown>][] = [
  ["429 with Retry-After", { status: 429, retryAfter: 0 }],
  ["429 without Retry-After", { status: 429 }],
  ["503", { status: 503 }],
  ["a dropped connection", { drop: true }],
];
export const WHEN = ["before", "after"] as const;

/** Each fault of `faults`, before and after the server acts: a cell each. */
export const cellsOf = (faults: typeof FAULTS) => faults.flatMap(([name, how]) => WHEN.map((when) => [name, when, how] as const));

export const CELLS = cellsOf(FAULTS);

/**
 * Clears the faults of a cell after checking that its fault was met: a wrong method or path would
 * turn the cell into a happy path that passes. Each fault was installed with `count` requests.
 */
export async function clearMetFaults(emu: Emulator, count = 3): Promise<void> {
  const left = (await control<{ faults: { remaining: number; path: string }[] }>(emu, "GET", "/faults")).faults;
  await control(emu, "DELETE", "/faults");
  expect(left.filter((f) => f.remaining >= count), `a fault no request met: ${JSON.stringify(left)}`).toEqual([]);
}

/**
 * `pulumi refresh` four times while the reads of `prefix` fail (more faults than the client
 * retries, so the first refresh sees one): each refresh either fails, and the engine keeps the
 * state, or reads the object under its id. An empty id would drop it from state (the next up
 * would create a second one).
 */
export async function refreshUnderFault(emu: Emulator, kind: string, state: State, prefix: string, how: Record<string, unknown>, when: string): Promise<void> {
  // No method: a read may be a GET or a LIST, and a refresh sends nothing else.
  await control(emu, "POST", "/faults", { path: prefix, ...how, when, count: 3 });
  const outcomes: string[] = [];
  for (let i = 0; i < 4; i++) {
    outcomes.push(await (call(kind, "read", [state!.id, state!.outs]) as Promise<{ id: string }>).then((r) => r.id, () => "(failed)"));
  }
  const left = (await control<{ faults: unknown[] }>(emu, "GET", "/faults")).faults;
  await control(emu, "DELETE", "/faults");
  expect(left, "the refreshes met every fault").toEqual([]);
  expect(outcomes[0], "the first refresh met more faults than the client retries").toBe("(failed)");
  for (const id of outcomes) expect(["(failed)", state!.id], `refresh outcomes ${JSON.stringify(outcomes)}`).toContain(id);
  expect(outcomes.at(-1), "once the faults are over, refresh reads the object").toBe(state!.id);
}

