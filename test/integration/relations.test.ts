// Relations once (docs/architecture.md): a field that `refers` to another kind is the one place a
// relation is written. The delete guard and the review's "used by" are read from those fields
// (src/core/relations.ts, written into src/kindUsers.ts by npm run docs). This file reads every
// kind's fields itself and holds both to what it finds, so a new kind whose field names another is
// covered by that field alone, with no list in the kind it names to edit.
import { describe, expect, it } from "vitest";
import type { ResourceDefinition } from "../../src/core/definition";
import { field } from "../../src/core/fields";
import { routeParams } from "../../src/http/route";
import { usedByOf, usersOf } from "../../src/core/relations";
import { KIND_NAMES, kindDefinition } from "../../src/kinds";
import { USERS } from "../../src/kindUsers";
import { parsePreview } from "../../src/review/preview";
import { review } from "../../src/review/review";
import { planValues, riskOf } from "../../src/review/risk";
import { call } from "../../src/runtime";
import { reference } from "../../src/secrets/transform/fields";
import { created, type Res } from "../support/calls";
import { control, requests, useEmulator } from "../support/emulator";
import { KIND_CASES } from "../support/kindCases";

/** A field of `kind` that names objects of `named`, as this file reads the kinds' fields. */
interface Relation { named: string; kind: string; field: string; dependent: boolean; list: boolean }

async function definitions(): Promise<ResourceDefinition[]> {
  return Promise.all(KIND_NAMES.map(async (k) => (await kindDefinition(k))!));
}

/**
 * Every field of every kind that refers to another kind, but for those that say where their own
 * object lives (an identity input or a path parameter): a role's mount, a key config's transformation.
 */
function relations(defs: readonly ResourceDefinition[]): Relation[] {
  const out: Relation[] = [];
  for (const def of defs) {
    const inPath = def.path ? routeParams(def.path.route).map((p) => def.path!.inputs?.[p] ?? p) : [];
    for (const [name, f] of Object.entries(def.fields ?? {})) {
      if (inPath.includes(name) || def.identity?.includes(name)) continue;
      for (const named of f.refers ?? []) {
        if (named !== def.kind) out.push({ named, kind: def.kind, field: name, dependent: f.dependent === true, list: Array.isArray(f.default) });
      }
    }
  }
  return out;
}

const line = (r: Relation) => `${r.named} <- ${r.kind}.${r.field}${r.dependent ? " (dependent)" : ""}`;

describe("who uses an object, from the fields that name it", () => {
  const { emu } = useEmulator();

  it("src/kindUsers.ts holds every field of another kind that names a kind's objects, and nothing else", async () => {
    const found = relations(await definitions());
    expect(found.length).toBeGreaterThan(8);
    const table = Object.entries(USERS).flatMap(([named, users]) => users.map((u) => line({ named, kind: u.kind, field: u.field, dependent: u.dependent === true, list: false })));
    expect(table.sort()).toEqual(found.map(line).sort());
  });

  // A name in a user's field can be any object the service lists where the one it names is listed:
  // the role's transformations, of every type. A new kind listed there is a user's only if that
  // field refers to it too; else its delete guard would not know the user (before the guard was
  // read from the fields, transformationObject gave every transformation type the roles' guard).
  it("a user's field refers to every kind listed where a kind it refers to is listed", async () => {
    const defs = await definitions();
    const listOf = (kind: string) => defs.find((d) => d.kind === kind)?.routes?.list;
    const missing = new Set(relations(defs).flatMap((r) => {
      const refers = defs.find((d) => d.kind === r.kind)!.fields![r.field]!.refers!;
      return defs.filter((d) => d.routes?.list !== undefined && d.routes.list === listOf(r.named) && !refers.includes(d.kind))
        .map((d) => `${r.kind}.${r.field} refers to ${r.named} but not to ${d.kind}, listed with it at ${d.routes!.list}`);
    }));
    expect([...missing]).toEqual([]);
  });

  it("refuses the delete of an object while an object of any kind whose field refers to it names it, before the DELETE", async () => {
    const caseOf = (kind: string) => KIND_CASES.find((c) => c.kind === kind)!;
    const found = relations(await definitions());
    const outcomes: string[] = [];
    for (const r of found) {
      await control(emu, "POST", "/reset");
      for (const k of [r.named, r.kind]) await caseOf(k).setup?.(emu);
      const target = await created(r.named, caseOf(r.named).create(emu));
      const name = String(target.outs.name);
      const user = await created(r.kind, { ...caseOf(r.kind).create(emu), [r.field]: r.list ? [name] : name });
      outcomes.push(`${line(r)}: ${await deleteOutcome(r.named, target, String(user.outs.name))}`);
    }
    expect(outcomes).toEqual(found.map((r) => `${line(r)}: refused before its DELETE, naming its user`));
  });

  /** How the delete of `target` ended: refused by the provider (a ConflictError, no DELETE sent) naming `user`, or otherwise. */
  async function deleteOutcome(kind: string, target: Res, user: string): Promise<string> {
    const before = (await requests(emu)).length;
    let error: (Error & { code?: string }) | undefined;
    try {
      await call(kind, "delete", [target.id, target.outs]);
    } catch (e) {
      error = e as Error & { code?: string };
    }
    const sent = (await requests(emu)).slice(before).some((q) => q.method === "DELETE");
    if (!error) return "deleted";
    if (sent || error.code !== "conflict") return `refused by the service: ${error.message}`;
    return error.message.includes(` is used by `) && error.message.includes(` ${user}:`) ? "refused before its DELETE, naming its user" : `refused: ${error.message}`;
  }
});

const STACK = "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev";
const typeOf = (kind: string) => `pulumi-nodejs:dynamic/${kind}`;

/** A preview step: `kind`'s resource `name` with these inputs, old and new. */
function step(op: string, kind: string, name: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
  const type = typeOf(kind);
  return { op, urn: `urn:pulumi:dev::p::${type}::${name}`, oldState: { type, id: `x/${name}`, inputs: olds, outputs: olds }, newState: { type, inputs: news } };
}

const preview = (steps: object[]) => JSON.stringify({ config: {}, steps: [{ op: "same", urn: STACK }, ...steps], diagnostics: [], changeSummary: { same: steps.length } });

describe("the review's data at risk of an object at risk only while used", () => {
  /**
   * A preview where an object of `r.named` changes as its risk declares, `r`'s user names it (and,
   * where the user kind is itself at risk only while used, a user depending on that names it in turn).
   */
  function usedPreview(r: Relation, all: Relation[], defs: readonly ResourceDefinition[]): object[] {
    const def = defs.find((d) => d.kind === r.named)!;
    const changed = Object.keys(def.risk!.changes!)[0]!;
    const steps: object[] = [step("update", r.named, "target", { name: "target", [changed]: "a" }, { name: "target", [changed]: "b" })];
    let user = r;
    for (let i = 0; ; i++) {
      const inputs = { name: `user${i}`, [user.field]: user.list ? [i === 0 ? "target" : `user${i - 1}`] : i === 0 ? "target" : `user${i - 1}` };
      steps.push(step("same", user.kind, `user${i}`, inputs, inputs));
      if (!defs.find((d) => d.kind === user.kind)!.risk?.whileUsed) return steps;
      user = all.find((u) => u.named === user.kind && u.dependent)!;
    }
  }

  it("counts as used exactly where a field that depends on it names it", async () => {
    const defs = await definitions();
    const all = relations(defs);
    const watched = all.filter((r) => defs.find((d) => d.kind === r.named)!.risk?.whileUsed);
    expect(watched.filter((r) => r.dependent).length).toBeGreaterThan(1);
    expect(watched.filter((r) => !r.dependent).length).toBeGreaterThan(0);
    const outcomes: string[] = [];
    for (const r of watched) outcomes.push(`${line(r)}: ${(await review(preview(usedPreview(r, all, defs)))).atRisk === 1 ? "at risk" : "not at risk"}`);
    expect(outcomes).toEqual(watched.map((r) => `${line(r)}: ${r.dependent ? "at risk" : "not at risk"}`));
  });

  it("covers a new transformation kind by its own template field, with no edit of the template's or the alphabet's file", async () => {
    const defs = await definitions();
    const fpe = defs.find((d) => d.kind === "secrets:TransformFpeTransformation")!;
    const added: ResourceDefinition = {
      ...fpe, kind: "secrets:TransformNewTransformation",
      fields: { ...fpe.fields, template: field(reference, { refers: "secrets:TransformTemplate", readAs: "templates", dependent: true }) },
    };
    const users = usersOf([...defs, added]);
    expect(users["secrets:TransformTemplate"]!.map((u) => u.kind)).toContain(added.kind);
    // A user the guard could not find (no list route) is refused, naming what it needs.
    const { list: _list, ...unlisted } = added.routes!;
    expect(() => usersOf([...defs, { ...added, routes: unlisted }])).toThrow(
      "secrets:TransformNewTransformation.template names objects of secrets:TransformTemplate, whose delete guard looks for such users by listing them on a mount");
    const byKind = new Map([...defs, added].map((d) => [d.kind, d]));
    const alphabet = byKind.get("secrets:TransformAlphabet")!;
    expect(usedByOf(alphabet, users, (k) => byKind.get(k)).uses[0]!.usedBy!.uses.map((u) => u.kind)).toContain(added.kind);
    // The alphabet changes; a template names it; only the new kind's transformation names the template.
    const steps = [
      step("update", alphabet.kind, "digits", { name: "digits", alphabet: "0123" }, { name: "digits", alphabet: "01234" }),
      step("same", "secrets:TransformTemplate", "ssn", { name: "ssn", alphabet: "digits" }, { name: "ssn", alphabet: "digits" }),
      step("same", added.kind, "card", { name: "card", template: "ssn" }, { name: "card", template: "ssn" }),
    ];
    const inPlan = planValues(parsePreview(preview(steps)), byKind, users);
    const risk = riskOf({ name: "digits", type: typeOf(alphabet.kind), op: "update", changed: ["alphabet"] }, alphabet, { name: "digits", alphabet: "0123" }, { name: "digits", alphabet: "01234" }, inPlan);
    expect(risk?.what).toEqual([`\`alphabet\` changed: ${alphabet.risk!.changes!.alphabet}`]);
    // Without the new kind's field among the users, nothing in the plan uses the alphabet.
    expect(riskOf({ name: "digits", type: typeOf(alphabet.kind), op: "update", changed: ["alphabet"] }, alphabet, { name: "digits", alphabet: "0123" }, { name: "digits", alphabet: "01234" },
      planValues(parsePreview(preview(steps)), byKind, usersOf(defs)))).toBeUndefined();
  });
});
