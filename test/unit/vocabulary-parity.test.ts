// Vocabulary parity: the emulator reads the seed's words (run statuses, operations, sources,
// includes, notification triggers and destination types) on its own, imports nothing from the
// provider, and keeps each list in one place of its own (src/emulator/runs/vocabulary.ts; a run's
// includes beside their handling in src/emulator/runs/run.ts). The two readings must agree, as the
// route parity test holds their routes together, and every list of the provider's vocabulary
// (src/runs/runVocabulary.ts) is compared or says why not, so that a new one cannot go unchecked. A
// list both vocabularies export under one name (a new kind's words) is compared with no line here.
import { describe, expect, it } from "vitest";
import * as emulator from "../../src/emulator/runs/vocabulary";
import { INCLUDES } from "../../src/emulator/runs/run";
import { TRIGGERS } from "../../src/runs/notificationConfiguration";
import * as provider from "../../src/runs/runVocabulary";

const sorted = (list: Iterable<string>) => [...list].sort();
const vocabulary: Record<string, unknown> = provider;

/** The provider's lists the emulator reads under another name or in another place, with that reading. */
const ELSEWHERE: Record<string, Iterable<string>> = {
  TERMINAL_RUN_STATUSES: emulator.COMPLETED_STATUSES,
  RUN_OPERATIONS: emulator.OPERATIONS,
  RUN_SOURCES: emulator.SOURCES,
  RUN_INCLUDES: INCLUDES,
  // The emulator keeps one list of triggers; the provider's two make it up (and a configuration's TRIGGERS, below).
  RUN_NOTIFICATION_TRIGGERS: emulator.NOTIFICATION_TRIGGERS.filter((t) => t.startsWith("run:")),
  ASSESSMENT_NOTIFICATION_TRIGGERS: emulator.NOTIFICATION_TRIGGERS.filter((t) => !t.startsWith("run:")),
};

/**
 * Each list of the provider's vocabulary, and the emulator's reading of the same words: the list its
 * vocabulary exports under the same name (RUN_STATUSES, DESTINATION_TYPES, a new kind's words), or
 * the one ELSEWHERE names.
 */
const COMPARED: Record<string, Iterable<string>> = {
  ...Object.fromEntries(Object.entries(emulator).filter(([k, v]) => Array.isArray(v) && Array.isArray(vocabulary[k]))),
  ...ELSEWHERE,
};

/** The provider's lists the emulator has no list of, and why. */
const PROVIDER_ONLY: Record<string, string> = {
  FINAL_RUN_STATUSES: "the seed's word for four of the statuses that end a run; the emulator needs only all of them (TERMINAL_RUN_STATUSES)",
  FAILED_RUN_STATUSES: "the provider's judgement of which ends went wrong, for a Run that waits; the service has no such word",
  URL_DESTINATION_TYPES: "the emulator asks a url of every destination type but email (readUrl), checked by its wire tests",
};

describe("the emulator and the provider read the seed's words alike", () => {
  it.each(Object.keys(COMPARED))("%s", (name) => {
    expect(sorted(COMPARED[name]!), `the emulator's reading of ${name}`).toEqual(sorted(vocabulary[name] as string[]));
  });

  it("the triggers a configuration takes are the emulator's", () => {
    expect(sorted(TRIGGERS)).toEqual(sorted(emulator.NOTIFICATION_TRIGGERS));
  });

  it("every list of the provider's vocabulary is compared, or says why not", () => {
    const lists = Object.entries(vocabulary).filter(([, v]) => Array.isArray(v)).map(([k]) => k);
    expect(lists.filter((k) => !(k in COMPARED) && !(k in PROVIDER_ONLY)), "lists of src/runs/runVocabulary.ts that nothing compares with the emulator's").toEqual([]);
    expect([...Object.keys(COMPARED), ...Object.keys(PROVIDER_ONLY)].filter((k) => !lists.includes(k)), "names here that the vocabulary does not export").toEqual([]);
  });
});
