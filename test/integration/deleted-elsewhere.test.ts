// An object deleted outside the stack (another stack's destroy of the same object, or by hand) is
// gone on the stack's next refresh, for every kind: its read answers "gone" (an empty id), so the
// engine drops it from the state and the next up creates it again (docs/adopting.md, "One object,
// one stack"). Through the kind table; a kind whose delete leaves its object is named with why.
import { describe, expect, it } from "vitest";
import { call } from "../../src/runtime";
import { created } from "../support/calls";
import { useEmulator } from "../support/emulator";
import { KIND_CASES } from "../support/kindCases";

const { emu } = useEmulator({ secretsToken: "secretsRoot" });

/** Kinds whose delete leaves the object there, and why. */
const KEPT: Record<string, string> = {
  "runs:Run": "a run is never deleted: its delete discards it, and it stays as it ended",
  "secrets:TransformTokenizationKeyConfig": "its key versions belong to the transformation: its delete sends nothing",
};

describe("every kind's object deleted outside the stack is gone on its next refresh", () => {
  it("the kinds left out say why, and are kinds of the table", () => {
    for (const kind of Object.keys(KEPT)) expect(KIND_CASES.map((c) => c.kind)).toContain(kind);
  });

  it.each(KIND_CASES.filter((c) => !(c.kind in KEPT)).map((c) => [c.kind, c] as const))("%s", async (_kind, c) => {
    await c.setup?.(emu);
    const before = await c.count(emu);
    const { id, outs } = await created(c.kind, c.create(emu));
    // What another stack's destroy does to the same object.
    await call(c.kind, "delete", [id, outs]);
    expect(await c.count(emu), "the delete removed it").toBe(before);
    expect(await call(c.kind, "read", [id, outs])).toEqual({ id: "", props: {} });
  });
});
