import { afterAll, beforeAll } from "vitest";

/** Environment variables to set, an undefined value to unset; a function for values known only once the file's hooks have run. */
export type EnvVars = Record<string, string | undefined> | (() => Record<string, string | undefined>);

/**
 * Sets (or, for an undefined value, unsets) these environment variables for the tests of the file
 * (or describe block) and puts back what was there before, unset ones unset, once they have run.
 * A function is called in the beforeAll, after the hooks registered before this call (an
 * emulator's start, whose URLs it may name).
 */
export function useEnv(vars: EnvVars): void {
  const saved: Record<string, string | undefined> = {};
  // Assigning undefined would leave the string "undefined" behind.
  const put = (k: string, v: string | undefined) => (v === undefined ? delete process.env[k] : (process.env[k] = v));
  beforeAll(() => {
    const values = typeof vars === "function" ? vars() : vars;
    for (const [k, v] of Object.entries(values)) {
      if (!(k in saved)) saved[k] = process.env[k];
      put(k, v);
    }
  });
  afterAll(() => {
    for (const [k, v] of Object.entries(saved)) put(k, v);
  });
}
