import { describe, expect, it } from "vitest";
import { backoffDelay, isRetryableStatus, isRetryableTransport, isSafeRequest, parseRetryAfter } from "../../src/http";

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");

  it("reads delay-seconds", () => {
    expect(parseRetryAfter("5", now)).toBe(5000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter(["3", "9"], now)).toBe(3000);
  });

  it("reads an HTTP-date relative to now, past dates as 0", () => {
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:12 GMT", now)).toBe(12000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 23:59:00 GMT", now)).toBe(0);
  });

  it("ignores absent or unreadable values", () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
    expect(parseRetryAfter("1.5", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });
});

describe("backoffDelay", () => {
  it("grows exponentially from the base with full jitter", () => {
    expect(backoffDelay(1, 100, 10000, () => 0.5)).toBe(50);
    expect(backoffDelay(2, 100, 10000, () => 0.5)).toBe(100);
    expect(backoffDelay(4, 100, 10000, () => 0.5)).toBe(400);
    expect(backoffDelay(3, 100, 10000, () => 0)).toBe(0);
    expect(backoffDelay(1, 100, 10000, () => 0.9999)).toBe(99);
  });

  it("never exceeds the cap", () => {
    expect(backoffDelay(20, 250, 1000, () => 0.5)).toBe(500);
    for (let attempt = 1; attempt <= 40; attempt++) {
      const d = backoffDelay(attempt, 250, 30000);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(30000);
    }
  });
});

describe("policy", () => {
  it("treats GET, LIST, PUT, DELETE as safe and POST, PATCH as not, unless overridden", () => {
    for (const m of ["GET", "LIST", "PUT", "DELETE"]) expect(isSafeRequest(m)).toBe(true);
    for (const m of ["POST", "PATCH"]) expect(isSafeRequest(m)).toBe(false);
    expect(isSafeRequest("POST", "safe")).toBe(true);
    expect(isSafeRequest("GET", "never")).toBe(false);
  });

  it("retries transient statuses and transport codes only", () => {
    expect([429, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 404, 409, 500, 501].some(isRetryableStatus)).toBe(false);
    expect(["ECONNRESET", "UND_ERR_SOCKET", "UND_ERR_HEADERS_TIMEOUT"].every(isRetryableTransport)).toBe(true);
    expect(["DEPTH_ZERO_SELF_SIGNED_CERT", "UND_ERR_INVALID_ARG", "UNKNOWN"].some(isRetryableTransport)).toBe(false);
  });
});
