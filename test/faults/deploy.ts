// Deployments as `pulumi up` plays them, for the fault suites: a partial failure keeps its object
// (and, as the engine does, makes the next up update it even without a diff), any other failure
// leaves state as it was and the next up tries again. A replacement that keeps the object's identity
// deletes first; once the delete is done the old object is gone from state whatever the create does.
import { expect } from "vitest";
import { call } from "../../src/runtime";
import { PartialFailure } from "../../src/core/definition";
import { checked, type Props } from "../support/calls";

export type State = { id: string; outs: Props; initErrors?: boolean } | undefined;

type Diff = { changes: boolean; replaces: string[]; deleteBeforeReplace: boolean };

/** A plan this double does not play: the test itself is wrong, so it fails instead of passing as "nothing recorded". */
class Unmodelled extends Error {}

/**
 * One `pulumi up` of the resource toward `inputs`: the state the engine would record, and whether
 * the up did nothing (state and program agree: no call but check and diff).
 */
async function play(kind: string, state: State, inputs: Props): Promise<{ state: State; idle: boolean }> {
  try {
    if (!state) return { state: (await call(kind, "create", [await checked(kind, inputs)])) as { id: string; outs: Props }, idle: false };
    const news = await checked(kind, inputs, state.outs);
    const d = (await call(kind, "diff", [state.id, state.outs, news])) as Diff;
    if (d.replaces.length > 0) {
      if (!d.deleteBeforeReplace) throw new Unmodelled(`${kind}: create-before-delete replacements are not modelled here`);
      await call(kind, "delete", [state.id, state.outs]);
      state = undefined;
      return { state: (await call(kind, "create", [news])) as { id: string; outs: Props }, idle: false };
    }
    if (!d.changes && !state.initErrors) return { state, idle: true };
    return { state: { id: state.id, outs: ((await call(kind, "update", [state.id, state.outs, news])) as { outs: Props }).outs }, idle: false };
  } catch (e) {
    if (e instanceof PartialFailure) return { state: { id: e.id, outs: e.properties, initErrors: true }, idle: false };
    if (e instanceof Unmodelled) throw e;
    return { state, idle: false }; // nothing recorded: the next up tries again
  }
}

/**
 * `pulumi up --replace` as the engine plays it on a resource of this package (docs/behaviour.md,
 * "Replaced on request"): a check without the old inputs, no diff, and, the resource option being
 * delete-first, the old object deleted before the new one is created.
 */
export async function replaceOnRequest(kind: string, state: State, inputs: Props): Promise<State> {
  const news = await checked(kind, inputs);
  await call(kind, "delete", [state!.id, state!.outs]);
  return (await call(kind, "create", [news])) as { id: string; outs: Props };
}

/** One `pulumi up` of the resource toward `inputs`; returns the state the engine would record. */
export async function up(kind: string, state: State, inputs: Props): Promise<State> {
  return (await play(kind, state, inputs)).state;
}

/**
 * Ups until one does nothing, seven at most: the faults a cell injects are spent by then. An up
 * that does nothing leaves state and program as they were, so every later one would do nothing too.
 */
export async function settle(kind: string, state: State, inputs: Props): Promise<State> {
  for (let i = 0; i < 7; i++) {
    const r = await play(kind, state, inputs);
    state = r.state;
    if (r.idle) break;
  }
  return state;
}

/** The outputs as the server holds them now, without the engine's and the connection's keys. */
export function held(outs: Props): Props {
  return Object.fromEntries(Object.entries(outs).filter(([k]) => !k.startsWith("__")));
}

export async function inSync(kind: string, state: State, inputs: Props): Promise<void> {
  expect(state, "state holds the object").toBeDefined();
  const news = await checked(kind, inputs, state!.outs);
  expect(await call(kind, "diff", [state!.id, state!.outs, news]), "state matches the program").toMatchObject({ changes: false });
  const read = (await call(kind, "read", [state!.id, state!.outs])) as { id: string; props: Props };
  expect(read.id, "the object exists on the server").toBe(state!.id);
  expect(await call(kind, "diff", [state!.id, read.props, news]), "the server matches the program").toMatchObject({ changes: false });
}

/** State holds what the server holds: a read (refresh) now would change nothing, and the last up finished. */
export async function sameAsServer(kind: string, state: State): Promise<void> {
  expect(state, "state holds the object").toBeDefined();
  expect(state!.initErrors, "the last up finished").toBeFalsy();
  const read = (await call(kind, "read", [state!.id, state!.outs])) as { id: string; props: Props };
  expect(read.id, "the object exists on the server").toBe(state!.id);
  expect(held(read.props), "state is what the server holds").toEqual(held(state!.outs));
}
