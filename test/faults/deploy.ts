// Deployments as `pulumi up` plays them, for the fault suites: a partial failure keeps its object,
// any other failure leaves state as it was and the next up tries again.
import { expect } from "vitest";
import { call } from "../../src/core/runtime";
import { PartialFailure } from "../../src/core/definition";
import { checked, type Props } from "../support/calls";

export type State = { id: string; outs: Props } | undefined;

/** One `pulumi up` of the resource toward `inputs`; returns the state the engine would record. */
async function up(kind: string, state: State, inputs: Props): Promise<State> {
  try {
    if (!state) return (await call(kind, "create", [await checked(kind, inputs)])) as { id: string; outs: Props };
    const news = await checked(kind, inputs, state.outs);
    const d = (await call(kind, "diff", [state.id, state.outs, news])) as { changes: boolean };
    if (!d.changes) return state;
    return { id: state.id, outs: ((await call(kind, "update", [state.id, state.outs, news])) as { outs: Props }).outs };
  } catch (e) {
    if (e instanceof PartialFailure) return { id: e.id, outs: e.properties };
    return state; // nothing recorded: the next up tries again
  }
}

export async function settle(kind: string, state: State, inputs: Props): Promise<State> {
  for (let i = 0; i < 7; i++) state = await up(kind, state, inputs);
  return state;
}

export async function inSync(kind: string, state: State, inputs: Props): Promise<void> {
  expect(state, "state holds the object").toBeDefined();
  const news = await checked(kind, inputs, state!.outs);
  expect(await call(kind, "diff", [state!.id, state!.outs, news]), "state matches the program").toMatchObject({ changes: false });
  const read = (await call(kind, "read", [state!.id, state!.outs])) as { id: string; props: Props };
  expect(read.id, "the object exists on the server").toBe(state!.id);
  expect(await call(kind, "diff", [state!.id, read.props, news]), "the server matches the program").toMatchObject({ changes: false });
}

