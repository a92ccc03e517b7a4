// One wording for a value of the wrong type, whichever field declared its message (issue 31, item 7).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { validate } from "../../src/core/validate";

describe("a value of the wrong type", () => {
  it("is said in the fields' own words (must be a string), never zod's own (Invalid input: expected …)", () => {
    const schema = z.strictObject({ own: z.string({ error: "must be a string" }), plain: z.string(), list: z.array(z.string()), count: z.number(), obj: z.object({}) });
    const failures = validate(schema, { own: 1, list: [2], obj: "x" });
    expect(failures).toEqual([
      { property: "own", reason: "must be a string" },
      { property: "plain", reason: "must be a string" },
      { property: "list[0]", reason: "must be a string" },
      { property: "count", reason: "must be a number" },
      { property: "obj", reason: "must be an object" },
    ]);
  });
});
