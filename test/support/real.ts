/**
 * Real servers and tools some tests need (PostgreSQL, OpenLDAP, moto, a browser): which tests need
 * one is declared where they are, so a missing one touches those tests and no other.
 */
import { beforeEach } from "vitest";

/**
 * Whether SVC_REQUIRE_REAL asks for every real server and tool (CI sets it): any value but empty,
 * 0, false, no or off. Only "1" counted once, and `true` let the tests skip.
 */
export const requireReal = !["", "0", "false", "no", "off"].includes((process.env.SVC_REQUIRE_REAL ?? "").trim().toLowerCase());

/** The error a test throws instead of skipping under SVC_REQUIRE_REAL. */
export const requiredButMissing = (what: string) => new Error(`SVC_REQUIRE_REAL=${process.env.SVC_REQUIRE_REAL} but ${what}`);

/**
 * Gates the tests of the enclosing describe (or of the file, at its top level) on a real server.
 * `reason` says why it cannot be had here, or is undefined when it can. When it cannot, each of those
 * tests skips with the reason (printed once), or, under SVC_REQUIRE_REAL (CI), fails with it: one
 * failure per test, while the file's other tests run. (Throwing while the file loads left the file
 * with no test at all; a beforeAll that throws reports its tests as skipped.)
 *
 * Call it first in the describe, so its check runs before the describe's other beforeEach hooks;
 * start the server in a beforeAll only when it returns true (a beforeAll runs before the check).
 */
export function needsReal(what: string, reason: string | undefined): boolean {
  if (!reason) return true;
  if (!requireReal) console.warn(`skipping ${what}: ${reason}`);
  beforeEach((ctx) => {
    if (requireReal) throw requiredButMissing(`${what} cannot run: ${reason}`);
    ctx.skip(reason);
  });
  return false;
}
