// Check-then-create through the in-process runtime, as the engine calls a dynamic provider.
import { expect } from "vitest";
import { check } from "../../src/core/provider";
import { call } from "../../src/runtime";
import { kindDefinition } from "../../src/kinds";

export type Props = Record<string, unknown>;
export type Res = { id: string; outs: Props };

/** Check for inputs the test expects to pass; tests of check failures use `failures` or `failureLines`. */
export async function checked(kind: string, news: Props, olds: Props = {}): Promise<Props> {
  const { inputs, failures } = (await call(kind, "check", [olds, news])) as { inputs: Props; failures: unknown[] };
  expect(failures).toEqual([]);
  return inputs;
}

export async function created(kind: string, news: Props): Promise<Res> {
  return (await call(kind, "create", [await checked(kind, news)])) as Res;
}

/** What check says of inputs a test expects it to refuse, property → reason. */
export async function failures(kind: string, news: Props): Promise<Record<string, string>> {
  return Object.fromEntries((await checkFailures(kind, news)).map((f) => [f.property, f.reason]));
}

/** The same failures as `property: reason` lines, in the order check gives them. */
export async function failureLines(kind: string, news: Props): Promise<string[]> {
  return (await checkFailures(kind, news)).map((f) => `${f.property}: ${f.reason}`);
}

/** What check says of inputs, as it says it: each failure's property and reason, in order. */
export async function checkFailures(kind: string, news: Props): Promise<{ property: string; reason: string }[]> {
  return ((await call(kind, "check", [{}, news])) as { failures: { property: string; reason: string }[] }).failures;
}

/** A definition's check failures, without the runtime (unit tests): property → reason. */
export function failuresOf(def: Parameters<typeof check>[0], news: Props): Record<string, string> {
  return Object.fromEntries(check(def, news).failures.map((f) => [f.property, f.reason]));
}

/** A definition's check failures as `property: reason` lines, in the order check gives them. */
export function failureLinesOf(def: Parameters<typeof check>[0], news: Props): string[] {
  return check(def, news).failures.map((f) => `${f.property}: ${f.reason}`);
}

/** The lists a kind's definition derives from its field record, sorted: what a move of its fields must keep. */
export async function kindLists(kind: string) {
  const d = (await kindDefinition(kind))!;
  const sorted = (l?: ReadonlyArray<string>) => [...(l ?? [])].sort();
  return {
    defaults: d.defaults ?? {}, sets: sorted(d.sets), immutable: sorted(d.immutable), identity: sorted(d.identity),
    secrets: sorted(d.secrets), writeOnly: sorted(d.writeOnly), local: sorted(d.local), outputs: sorted(d.outputs),
  };
}

/** kindLists of a kind that declares none of them. */
export const NO_LISTS = { defaults: {}, sets: [], immutable: [], identity: [], secrets: [], writeOnly: [], local: [], outputs: [] };
