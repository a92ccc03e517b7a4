import { afterAll, beforeAll } from "vitest";

/**
 * Sets these environment variables for the tests of the file (or describe block) and puts back
 * what was there before, unset ones unset, once they have run.
 */
export function useEnv(vars: Record<string, string>): void {
  const saved: Record<string, string | undefined> = {};
  beforeAll(() => {
    for (const k of Object.keys(vars)) saved[k] = process.env[k];
    Object.assign(process.env, vars);
  });
  afterAll(() => {
    // Assigning undefined would leave the string "undefined" behind.
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  });
}
