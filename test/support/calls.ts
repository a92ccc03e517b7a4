// Check-then-create through the in-process runtime, as the engine calls a dynamic provider.
import { expect } from "vitest";
import { call } from "../../src/runtime";

export type Props = Record<string, unknown>;
export type Res = { id: string; outs: Props };

/** Check for inputs the test expects to pass; tests of check failures call `call` themselves. */
export async function checked(kind: string, news: Props, olds: Props = {}): Promise<Props> {
  const { inputs, failures } = (await call(kind, "check", [olds, news])) as { inputs: Props; failures: unknown[] };
  expect(failures).toEqual([]);
  return inputs;
}

export async function created(kind: string, news: Props): Promise<Res> {
  return (await call(kind, "create", [await checked(kind, news)])) as Res;
}
