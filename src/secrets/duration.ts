/**
 * Durations of the secrets service: integer seconds or text with unit suffixes ("90s", "1h30m",
 * "24h", "2d"). Servers read some back as seconds and some as text, so state keeps the user's own
 * form whenever it means the same number of seconds (no perpetual diff between "24h" and 86400).
 */
import { z } from "../core/zod";
import { isUnknown } from "../core/unknown";

const UNIT: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };
const TEXT = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;

export type Duration = number | string;

/** Whole seconds, or undefined when `value` is not a duration. */
export function seconds(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (!TEXT.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) total += Number(m[1]) * UNIT[m[2]];
  return Math.floor(total);
}

/** A duration input: non-negative integer seconds or duration text. @internal */
export const duration = () =>
  z.union([z.number(), z.string()], { error: 'must be integer seconds or a duration such as "90s", "1h30m" or "24h"' })
    .refine((v) => isUnknown(v) || seconds(v) !== undefined, 'must be integer seconds (≥ 0) or a duration such as "90s", "1h30m" or "24h"');

/**
 * The value for state: the user's form when it means what the server holds, else the server's
 * value as seconds (a change made elsewhere then shows up as a diff).
 */
export function keepForm(input: unknown, server: unknown): Duration | undefined {
  const held = seconds(server);
  if (held === undefined) return input === undefined ? undefined : (input as Duration);
  if (input !== undefined && seconds(input) === held) return input as Duration;
  return held;
}

/**
 * A duration field's decoding for a field record (src/core/fields.ts): the server's value in the
 * form the program wrote while they mean the same seconds.
 */
export const sameForm = (wire: unknown, prior: Duration | undefined): Duration | undefined => keepForm(prior, wire);
