// The raw-request factory of test/support/kindCases.ts, which makes the objects the import's seed,
// its untrusted-text test and the emulator's populate start from: a maker for every kind of
// KIND_NAMES, or the reason it has none, so a new kind is made the way the others are.
import { expect, it } from "vitest";
import { KIND_NAMES } from "../../src/kinds";
import { useEmulator } from "../support/emulator";
import { makeObject, RAW_KINDS } from "../support/kindCases";

const { emu } = useEmulator({ env: false });

/** Kinds the factory does not make, each with the reason. */
const NO_MAKER: Record<string, string> = {
  "runs:Run": "the emulator's control endpoint makes runs and walks them to a status (POST /_emulator/runs)",
  "secrets:TransformTransformation": "a transformation is made as the kind of its type (FpeTransformation, MaskingTransformation, TokenizationTransformation)",
  "secrets:TransformStoreSchema": "the service keeps no schema object: a StoreSchema only creates tables in the store's database",
  "secrets:TransformTokenizationKeyConfig": "its object is the keys of a tokenization transformation, made with it",
};

it("has a maker for every kind, or the reason it has none", () => {
  expect([...RAW_KINDS, ...Object.keys(NO_MAKER)].sort()).toEqual([...KIND_NAMES].sort());
  for (const kind of Object.keys(NO_MAKER)) expect(RAW_KINDS, `NO_MAKER names ${kind}, which has a maker`).not.toContain(kind);
});

it("refuses a kind it has no maker of, naming it", async () => {
  await expect(makeObject(emu, "runs:Run")).rejects.toThrow("runs:Run: test/support/kindCases.ts has no raw-request factory for it");
});
