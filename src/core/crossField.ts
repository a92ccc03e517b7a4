/**
 * Object-level rules (required-when, mutually exclusive fields) that run even when a field already
 * failed, so check reports every failure in one pass instead of one round per fix. A field of the
 * wrong type has its own failure; a rule that trips over it says nothing more.
 */
import type { z } from "zod";

/** @internal */
export const CROSS_FIELD = { when: (payload: { value: unknown }) => typeof payload.value === "object" && payload.value !== null };

/** @internal */
export function crossField<T>(rule: (value: T, ctx: z.RefinementCtx<T>) => void): (value: T, ctx: z.RefinementCtx<T>) => void {
  return (value, ctx) => {
    try {
      rule(value, ctx);
    } catch {
      // The field that made the rule throw is already reported by its own schema.
    }
  };
}
