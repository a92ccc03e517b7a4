/** What a failing call rejected with, typed for assertions; a call that succeeds fails the test. */
export async function rejectionOf(p: Promise<unknown>): Promise<Error & { code?: string; [key: string]: any }> {
  try {
    await p;
  } catch (e) {
    return e as Error & { code?: string };
  }
  throw new Error("expected the call to fail, but it succeeded");
}
