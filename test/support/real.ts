/**
 * Real servers and tools some tests need (PostgreSQL, OpenLDAP, moto, a browser): which tests need
 * one is declared where they are, so a missing one touches those tests and no other.
 */
import { beforeEach } from "vitest";

/**
 * Gates the tests of the enclosing describe (or of the file, at its top level) on a real server.
 * `reason` says why it cannot be had here, or is undefined when it can. When it cannot, each of those
 * tests skips with the reason (printed once), or, with SVC_REQUIRE_REAL=1 (CI), fails with it: one
 * failure per test, while the file's other tests run. (Throwing while the file loads left the file
 * with no test at all; a beforeAll that throws reports its tests as skipped.)
 *
 * Call it first in the describe, so its check runs before the describe's other beforeEach hooks;
 * start the server in a beforeAll only when it returns true (a beforeAll runs before the check).
 */
export function needsReal(what: string, reason: string | undefined): boolean {
  if (!reason) return true;
  const required = process.env.SVC_REQUIRE_REAL === "1";
  if (!required) console.warn(`skipping ${what}: ${reason}`);
  beforeEach((ctx) => {
    if (required) throw new Error(`SVC_REQUIRE_REAL=1 but ${what} cannot run: ${reason}`);
    ctx.skip(reason);
  });
  return false;
}
