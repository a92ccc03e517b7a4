import { describe, expect, it } from "vitest";
import { keepForm, seconds } from "../../src/secrets/duration";

describe("durations", () => {
  it("reads seconds and duration text, and refuses anything else", () => {
    expect([seconds(86400), seconds("86400"), seconds("24h"), seconds("1d"), seconds("1h0m0s"), seconds("90s"), seconds("1h30m"), seconds("1500ms")]).toEqual([86400, 86400, 86400, 86400, 3600, 90, 5400, 1]);
    expect([seconds(-1), seconds(1.5), seconds("soon"), seconds("1x"), seconds(""), seconds(null)]).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it("keeps the user's form when the server holds the same seconds, else the server's seconds", () => {
    expect(keepForm("24h", 86400)).toBe("24h");
    expect(keepForm(86400, "24h0m0s")).toBe(86400);
    expect(keepForm("24h", 3600)).toBe(3600);
    expect(keepForm(undefined, 60)).toBe(60);
  });
});
