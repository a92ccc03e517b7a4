// Expected failures print as one line (Pulumi's runners print `err.stack`, or `${e}: ${e.stack}` in
// the dynamic-provider host); an unexpected error, and any error when debugging, keeps its stack.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConfigError } from "../../src/core/config";
import { ForbiddenError, TransportError } from "../../src/http";
import { quietHostLine } from "../../src/http/quiet";

const FRAME = /\n\s+at /;

afterEach(() => {
  delete process.env.SVC_DEBUG;
  vi.restoreAllMocks();
});

describe("expected errors print as one line", () => {
  it("a service error's stack is its first line, kept current when a caller prefixes the message", () => {
    const e = new ForbiddenError({ service: "secrets", method: "GET", path: "/transform/alphabet/x", status: 403, messages: ["permission denied"] });
    expect(e.stack).toBe("ForbiddenError: GET /transform/alphabet/x: 403 Forbidden: permission denied");
    e.message = `getAlphabet: ${e.message}`;
    expect(e.stack).toBe("ForbiddenError: getAlphabet: GET /transform/alphabet/x: 403 Forbidden: permission denied");
    // The SDK's RunError brand: its program runner prints the message alone, no object dump.
    expect((e as unknown as Record<string, unknown>).__pulumiRunError).toBe(true);
    expect(Object.keys(e)).not.toContain("__pulumiRunError");
    expect(JSON.stringify(e)).not.toContain("__pulumiRunError");
  });

  it("transport and configuration errors too", () => {
    expect(new TransportError({ service: "runs", method: "GET", path: "/runs/x", causeCode: "ECONNREFUSED", causeMessage: "connect ECONNREFUSED" }).stack).not.toMatch(FRAME);
    expect(new ConfigError("missing run service token").stack).toBe("Error: missing run service token");
  });

  it("captures no frames for an expected error (none would be shown), and leaves the limit as it was", () => {
    const prepare = Error.prepareStackTrace;
    const counts: number[] = [];
    Error.prepareStackTrace = (e, frames) => { counts.push(frames.length); return String(e); };
    try {
      void new ForbiddenError({ service: "secrets", method: "GET", path: "/x", status: 403 }).stack;
      void new TransportError({ service: "runs", method: "GET", path: "/runs/x", causeCode: "ECONNREFUSED", causeMessage: "connect ECONNREFUSED" }).stack;
      void new TypeError("not expected").stack;
    } finally {
      Error.prepareStackTrace = prepare;
    }
    expect(counts[0]).toBe(0);
    expect(counts[1]).toBe(0);
    expect(counts[2]).toBeGreaterThan(0);
    expect(Error.stackTraceLimit).toBeGreaterThan(0);
  });

  it("with SVC_DEBUG=1 every error keeps its stack frames", () => {
    process.env.SVC_DEBUG = "1";
    const e = new ForbiddenError({ service: "secrets", method: "GET", path: "/x", status: 403 });
    expect(e.stack).toMatch(FRAME);
    expect((e as unknown as Record<string, unknown>).__pulumiRunError).toBeUndefined();
  });

  it("the host's own line for an expected error is dropped; every other line is printed", () => {
    const printed: unknown[][] = [];
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => { printed.push(args); });
    const expected = new ForbiddenError({ service: "secrets", method: "GET", path: "/x", status: 403 });
    quietHostLine(expected);
    const bug = new TypeError("cannot read properties of undefined");
    // What the dynamic-provider host prints for a failed read or delete.
    console.error(`${expected}: ${expected.stack}`);
    console.error(`${bug}: ${bug.stack}`);
    console.error("another line");
    expect(printed.map((a) => String(a[0]).split("\n")[0])).toEqual(["TypeError: cannot read properties of undefined: TypeError: cannot read properties of undefined", "another line"]);
  });
});
