// Vocabulary parity: the emulator reads the seed's words (run statuses, operations, sources,
// includes, notification triggers and destination types) on its own, imports nothing from the
// provider, and keeps each list in one place of its own (src/emulator/runs/vocabulary.ts; a run's
// includes beside their handling in src/emulator/runs/run.ts). The two readings must agree, as the
// route parity test holds their routes together, and every list the provider's modules export
// (its vocabulary, src/runs/runVocabulary.ts, and a kind's own words in its declaration) is compared
// or says why not, so that a new one cannot go unchecked. A list both sides export under one name
// (a new kind's words, in its declaration and in its emulator model) is compared with no line here.
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

type Lists = Record<string, readonly string[]>;

/**
 * The string lists and sets (UPPER_CASE names) the modules of `dir` export: the provider's of
 * src/runs (its vocabulary and a kind's own words in its declaration), the emulator's of
 * src/emulator/runs (its vocabulary and a kind's own words in its model).
 */
async function listsOf(dir: string): Promise<Lists> {
  const out: Record<string, readonly string[]> = {};
  // An index re-exports a kind's list: the same value, one home.
  const seen = new Map<string, unknown>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".ts")).sort()) {
    const m = (await import(path.join(dir, file))) as Record<string, unknown>;
    for (const [name, v] of Object.entries(m)) {
      const list = Array.isArray(v) ? v : v instanceof Set ? [...v] : undefined;
      if (!/^[A-Z][A-Z0-9_]*$/.test(name) || !list?.every((x) => typeof x === "string")) continue;
      if (seen.has(name) && seen.get(name) !== v) throw new Error(`${name} is exported by two modules of ${dir} (the second: ${file}): a list has one home`);
      seen.set(name, v);
      out[name] = list;
    }
  }
  return out;
}

const src = path.resolve(__dirname, "../../src");
let vocabulary: Lists = {};
let emulator: Lists = {};
beforeAll(async () => {
  vocabulary = await listsOf(path.join(src, "runs"));
  emulator = await listsOf(path.join(src, "emulator/runs"));
});

const sorted = (list: Iterable<string>) => [...list].sort();
const their = (name: string) => {
  const list = emulator[name];
  if (!list) throw new Error(`the emulator exports no ${name}`);
  return list;
};

/** The provider's lists the emulator reads under another name, with that reading. */
const ELSEWHERE: Record<string, () => Iterable<string>> = {
  TERMINAL_RUN_STATUSES: () => their("COMPLETED_STATUSES"),
  RUN_OPERATIONS: () => their("OPERATIONS"),
  RUN_SOURCES: () => their("SOURCES"),
  RUN_INCLUDES: () => their("INCLUDES"),
  // The emulator keeps one list of triggers; the provider's two make it up, and a configuration takes them all.
  RUN_NOTIFICATION_TRIGGERS: () => their("NOTIFICATION_TRIGGERS").filter((t) => t.startsWith("run:")),
  ASSESSMENT_NOTIFICATION_TRIGGERS: () => their("NOTIFICATION_TRIGGERS").filter((t) => !t.startsWith("run:")),
  TRIGGERS: () => their("NOTIFICATION_TRIGGERS"),
};

/**
 * Each list of the provider's, and the emulator's reading of the same words: the list the
 * emulator exports under the same name (RUN_STATUSES, DESTINATION_TYPES, a new kind's words), or
 * the one ELSEWHERE names.
 */
const compared = (): Record<string, () => Iterable<string>> => ({
  ...Object.fromEntries(Object.keys(emulator).filter((k) => k in vocabulary).map((k) => [k, () => emulator[k]!])),
  ...ELSEWHERE,
});

/** The provider's lists the emulator has no list of, and why. */
const PROVIDER_ONLY: Record<string, string> = {
  FINAL_RUN_STATUSES: "the seed's word for four of the statuses that end a run; the emulator needs only all of them (TERMINAL_RUN_STATUSES)",
  FAILED_RUN_STATUSES: "the provider's judgement of which ends went wrong, for a Run that waits; the service has no such word",
  URL_DESTINATION_TYPES: "the emulator asks a url of every destination type but email (readUrl), checked by its wire tests",
  WAIT_FOR: "a Run's own input (how long the resource waits), never sent to the service",
};

describe("the emulator and the provider read the seed's words alike", () => {
  it("every list both read is the same words (each named where it differs)", () => {
    const lists = compared();
    const differ = Object.keys(lists).filter((name) => sorted(lists[name]!()).join() !== sorted(vocabulary[name]!).join());
    expect(Object.fromEntries(differ.map((n) => [n, { emulator: sorted(lists[n]!()), provider: sorted(vocabulary[n]!) }])), "lists the emulator reads otherwise").toEqual({});
    expect(Object.keys(lists).length).toBeGreaterThan(8);
  });

  it("every list of the provider's is compared, or says why not", () => {
    const lists = Object.keys(vocabulary);
    const COMPARED = compared();
    expect(lists.filter((k) => !(k in COMPARED) && !(k in PROVIDER_ONLY)), "lists of src/runs that nothing compares with the emulator's").toEqual([]);
    expect([...Object.keys(COMPARED), ...Object.keys(PROVIDER_ONLY)].filter((k) => !lists.includes(k)), "names here that src/runs does not export").toEqual([]);
  });
});
