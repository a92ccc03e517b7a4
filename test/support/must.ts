/**
 * A check for shared setup (beforeEach, beforeAll): it fails the test like an assertion but is not
 * one, so a test whose own body asserts nothing still fails expect.hasAssertions()
 * (test/support/setup.ts). An `expect` in a beforeEach counted for every test of its file.
 */
export function mustStatus(got: number, want: number, what: string): void {
  if (got !== want) throw new Error(`setup: ${what} answered HTTP ${got}, expected ${want}`);
}

/** The body of a setup request that must succeed (seeding is setup, not a test): any other answer fails the test. */
export async function mustSucceed(r: Promise<{ status: number; body: any }>, what: string): Promise<any> {
  const res = await r;
  if (res.status >= 300) throw new Error(`setup: ${what} answered HTTP ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}
