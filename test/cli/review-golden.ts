// The golden checks of pulumi-svc-review on a real `pulumi preview --json` of an example's step2,
// against the example's cli.json: each changed property old → new (or said secret, never its value),
// each replacement with its reason and order, the path of each created object, no secret of the
// example. Called by the examples' lifecycles (test/cli/lifecycle.ts) on the preview they already run, so no example is deployed twice.
import { expect } from "vitest";
import { kindOfToken } from "../../src/core/token";
import { kindDefinition } from "../../src/kinds";
import { reviewPreview } from "../../src/review/review";
import type { Expectations } from "./expectations";

interface Step { op: string; urn: string; oldState?: { inputs?: Record<string, unknown> }; newState?: { type?: string; inputs?: Record<string, unknown> } }

/** The text of a review block's line for one property (`- \`name\`: …`), or undefined. */
function propertyLine(block: string, property: string): string | undefined {
  return block.split("\n").find((l) => l.startsWith(`- \`${property}\`: `));
}

/**
 * Checks the review of `json` (plain `preview --json`) and of `shown` (with --show-secrets), and
 * returns the path the review gives each created resource, for the caller to hold against the ids
 * after up.
 */
export async function checkReview(exp: Expectations, json: string, shown: string, secrets: [string, string[]][]): Promise<Record<string, string | undefined>> {
  const review = await reviewPreview(json);
  const steps = (JSON.parse(json) as { steps: Step[] }).steps;
  const changed = Object.entries(exp.step2).filter(([, s]) => s.op !== "same");
  expect(changed.length).toBeGreaterThan(0);
  const created: Record<string, string | undefined> = {};
  for (const [resource, s] of changed) {
    const block = review.split("\n#### ").find((b) => b.startsWith(`${s.op}: \`${resource}\``));
    expect(block, `${resource}: ${review}`).toBeDefined();
    const step = steps.find((q) => q.urn.endsWith(`::${resource}`))!;
    if (s.op === "create") {
      created[resource] = /^create: `[^`]+` \([^)]+\) `([^`]+)`\n/.exec(block!)?.[1];
      const kind = kindOfToken(step.newState?.type ?? "");
      if (kind && (await kindDefinition(kind))?.path) expect(created[resource], `${resource}'s path in\n${block}`).toBeDefined();
    }
    for (const p of s.properties ?? []) {
      const line = propertyLine(block!, p);
      expect(line, `${resource}.${p} in\n${block}`).toBeDefined();
      const old = step.oldState?.inputs?.[p];
      const next = step.newState?.inputs?.[p];
      if (line!.includes("(secret")) expect([old, next], `${resource}.${p} is said secret`).toContain("[secret]");
      else expect(line).toContain(`${old === undefined ? "(none)" : `\`${JSON.stringify(old)}\``} → \`${JSON.stringify(next)}\``);
    }
    if (s.op === "replace") {
      // The summary: everything before the first group heading (Data at risk is part of it).
      const head = review.slice(0, review.search(/\n### (?!⚠️)/));
      const order = s.deleteFirst ? "**the old object is deleted first**" : "the new object is created first";
      const reason = s.cascadeFrom ? `because \`${s.cascadeFrom}\` (` : `forced by ${(s.properties ?? []).map((p) => `\`${p}\``).join(", ")}`;
      for (const part of [head, block!]) {
        expect(part).toContain(reason);
        expect(part).toContain(order);
      }
    }
  }
  expect(review.startsWith("## Pulumi preview review\n\n**Plan:** ")).toBe(true);
  expect(review).not.toContain("urn:pulumi");
  expect(review).not.toContain("__provider");

  expect(secrets.length).toBeGreaterThan(0);
  for (const text of [json, shown]) {
    const full = await reviewPreview(text, { full: true });
    const leaked = secrets.filter(([, values]) => values.some((v) => full.includes(v) || full.includes(JSON.stringify(v).slice(1, -1)))).map(([k]) => k);
    expect(leaked, "secrets in the review").toEqual([]);
  }
  // What the example's step 2 puts at risk, and nothing else.
  if (exp.atRisk) {
    const section = review.split("### ⚠️ Data at risk")[1]?.split("\n\n**")[0] ?? "";
    const named = [...section.matchAll(/^- `([^`]+)` \(/gm)].map((m) => m[1]);
    expect(named.sort(), review).toEqual([...exp.atRisk].sort());
  }
  // The functions up will call, which a preview only announces.
  for (const call of exp.plannedCalls ?? []) expect(review, review).toContain(`- \`${call}\``);
  if (!exp.plannedCalls?.length) expect(review).not.toContain("Functions the program calls on `up`");
  return created;
}
