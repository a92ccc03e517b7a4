// Vocabulary parity: the emulator reads the seed's words (run statuses, operations, sources,
// notification triggers and destination types) on its own, imports nothing from the provider, and keeps each list in one
// place of its own (src/emulator/runs/vocabulary.ts). The two readings must agree, as the route
// parity test holds their routes together.
import { describe, expect, it } from "vitest";
import {
  COMPLETED_STATUSES, DESTINATION_TYPES as EMULATOR_DESTINATION_TYPES, NOTIFICATION_TRIGGERS as EMULATOR_TRIGGERS, OPERATIONS, RUN_STATUSES as EMULATOR_STATUSES, SOURCES,
} from "../../src/emulator/runs/vocabulary";
import { TRIGGERS } from "../../src/runs/notificationConfiguration";
import { ASSESSMENT_NOTIFICATION_TRIGGERS, RUN_NOTIFICATION_TRIGGERS } from "../../src/runs/receiver";
import { DESTINATION_TYPES, RUN_OPERATIONS, RUN_SOURCES, RUN_STATUSES, TERMINAL_RUN_STATUSES } from "../../src/runs/runVocabulary";

const sorted = (list: Iterable<string>) => [...list].sort();

describe("the emulator and the provider read the seed's words alike", () => {
  it("run statuses, the statuses a run never leaves, operations and sources", () => {
    expect(sorted(EMULATOR_STATUSES)).toEqual(sorted(RUN_STATUSES));
    expect(sorted(COMPLETED_STATUSES)).toEqual(sorted(TERMINAL_RUN_STATUSES));
    expect(sorted(OPERATIONS)).toEqual(sorted(RUN_OPERATIONS));
    expect(sorted(SOURCES)).toEqual(sorted(RUN_SOURCES));
  });

  it("notification triggers: those a configuration takes, and those a notification carries", () => {
    expect(sorted(EMULATOR_TRIGGERS)).toEqual(sorted(TRIGGERS));
    expect(sorted(EMULATOR_TRIGGERS)).toEqual(sorted([...RUN_NOTIFICATION_TRIGGERS, ...ASSESSMENT_NOTIFICATION_TRIGGERS]));
  });

  it("destination types: where a configuration may send", () => {
    expect(sorted(EMULATOR_DESTINATION_TYPES)).toEqual(sorted(DESTINATION_TYPES));
  });
});
