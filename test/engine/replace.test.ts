// `pulumi up --replace` of every kind, through testStack's engine double (the engine's forced
// replacement: a check without the old inputs, no diff, the order from the deleteBeforeReplace
// option alone), kind by kind from the kind table: the replacement ends with exactly one object,
// holding the program's values, and a preview of no change. test/cli/replace.test.ts plays one kind
// of each sort under the real CLI.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../support/dist";
import { KIND_NAMES } from "../../src/kinds";
import { useEmulator, runApi } from "../support/emulator";
import { KIND_CASES, type KindCase } from "../support/kindCases";
import { classOf, openStacks, testStack } from "../support/testing";

const { emu } = useEmulator({ secretsToken: "secretsRoot" });
const open = openStacks();

/** Kinds whose forced replacement is played elsewhere, and where (they need two clusters or PostgreSQL). */
const ELSEWHERE: Record<string, string> = {
  "secrets:TransformStoreSchema": "test/faults/matrix-postgres.test.ts",
  "secrets:ReplicationPerformancePrimary": "test/faults/replication.test.ts",
  "secrets:ReplicationPerformanceSecondary": "test/faults/replication.test.ts",
  "secrets:ReplicationSecondaryToken": "test/faults/replication.test.ts",
  "secrets:ReplicationPathsFilter": "test/faults/replication.test.ts",
};

/** A run is never deleted: a Run replaced leaves its old run ended and one run of its own active. */
const ACTIVE = ["pending", "planning", "planned", "cost_estimating", "policy_checking", "applying", "apply_queued", "confirmed"];
async function objects(c: KindCase): Promise<number> {
  if (c.kind !== "runs:Run") return c.count(emu);
  const runs = (await runApi(emu, "GET", `/workspaces/${emu.workspaceId}/runs?page[size]=100`)).body.data as { attributes: { status: string } }[];
  return runs.filter((r) => ACTIVE.includes(r.attributes.status)).length;
}

describe("every kind is replaced on request, through the kind table", () => {
  it.each(KIND_NAMES.map((k) => [k]))("%s has a case here or a suite of its own", (kind) => {
    const there = ELSEWHERE[kind];
    expect(KIND_CASES.some((c) => c.kind === kind) || there !== undefined, `${kind}: no case in test/support/kindCases.ts`).toBe(true);
    if (there === undefined) return;
    const text = fs.readFileSync(path.join(root, there), "utf8");
    expect(text, `${there} covers ${kind}`).toContain(`"${kind}"`);
    expect(text, `${there} replaces on request`).toContain("replaceOnRequest(");
  });
});

describe("the program's own deleteBeforeReplace, and an adoptId that names nothing", { timeout: 120_000 }, () => {
  it("deleteBeforeReplace: false makes a replacement on request create first, which the path refuses, changing nothing; true replaces", async () => {
    const alphabet = (opts: object) => () => { new (classOf("secrets:TransformAlphabet"))("digits", { name: "digits", alphabet: "0123456789" }, opts); };
    const stack = await testStack({ emulator: emu, program: alphabet({ deleteBeforeReplace: false }) });
    open.push(stack);
    await stack.up();
    const refused = (await stack.up({ replace: ["digits"] }).catch((e: Error) => e)) as Error & { result: { steps: { deleteBeforeReplace: boolean }[] } };
    expect(refused.message).toMatch(/^replace digits: .*transform\/alphabet\/digits already exists\. .*If this resource is being replaced with deleteBeforeReplace: false, remove that option/);
    expect(refused.result.steps[0]!.deleteBeforeReplace).toBe(false);
    expect((await stack.preview()).changes).toEqual({ same: 1 });
    stack.setProgram(alphabet({ deleteBeforeReplace: true }));
    expect((await stack.up({ replace: ["digits"] })).steps.map((s) => [s.op, s.deleteBeforeReplace])).toEqual([["replace", true]]);
    // With a take-over, creating first would take the object it replaces: refused when the program is built.
    stack.setProgram(() => { new (classOf("secrets:TransformAlphabet"))("digits", { name: "digits", alphabet: "0123456789", adopt: true }, { deleteBeforeReplace: false }); });
    expect(((await stack.preview().catch((e: Error) => e)) as Error).message).toContain("deleteBeforeReplace: false cannot go with adopt: true");
    await stack.close();
  });

  it("a preview fails on an adoptId that names nothing, with the id and the way on, before any create", async () => {
    const stack = await testStack({ emulator: emu, program: () => {
      new (classOf("runs:NotificationConfiguration"))("hook", { ...KIND_CASES.find((c) => c.kind === "runs:NotificationConfiguration")!.create(emu), adoptId: "nc-deletedbyhand001" });
    } });
    open.push(stack);
    const failed = (await stack.preview().catch((e: Error) => e)) as Error;
    expect(failed.message).toContain("has a problem: adoptId: adoptId nc-deletedbyhand001: there is no NotificationConfiguration with this id on the server");
    expect(failed.message).toContain("remove adoptId from this resource to create a new one");
    await stack.close();
  });
});

describe("pulumi up --replace under the engine double", { timeout: 120_000 }, () => {
  it.each(KIND_CASES.map((c) => [c.kind, c] as const))("%s: one object, the program's values, then no change", async (_kind, c) => {
    await c.setup?.(emu);
    const inputs = c.create(emu);
    const stack = await testStack({ emulator: emu, program: () => { new (classOf(c.kind))("it", inputs); } });
    open.push(stack);
    await stack.up();
    const made = await objects(c);
    expect(made).toBeGreaterThan(0);
    const replaced = await stack.up({ replace: ["it"] });
    expect(replaced.steps.map((s) => [s.name, s.op, s.replaceReasons, s.deleteBeforeReplace, s.error])).toEqual([["it", "replace", ["id"], true, undefined]]);
    expect(await objects(c), "exactly one object").toBe(made);
    expect((await stack.preview()).changes).toEqual({ same: 1 });
    await stack.destroy();
    await stack.close();
  });
});
