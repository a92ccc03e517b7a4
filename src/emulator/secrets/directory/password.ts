import { randomBytes } from "node:crypto";
import type { DirectoryConfig } from "./state";

const BASE62 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
/** Without a formatter, generated passwords start with this so they meet common complexity rules. */
export const PREFIX = "?@09AZ";
export const PLACEHOLDER = "{{PASSWORD}}";
export const DEFAULT_LENGTH = 64;
export const MIN_LENGTH = 14;
/** Length used for a named password policy: the emulator keeps no policies (README, Assumptions). */
export const POLICY_LENGTH = 20;

export function randomText(length: number, alphabet = BASE62): string {
  let out = "";
  // Rejecting bytes at or above the largest multiple of the alphabet size keeps every character equally likely.
  const limit = 256 - (256 % alphabet.length);
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) if (byte < limit && out.length < length) out += alphabet[byte % alphabet.length];
  }
  return out;
}

/** Characters of the formatter that are not the placeholder. */
export const fixedLength = (formatter: string) => formatter.length - PLACEHOLDER.length;

/** A new password per the config: policy, or length with the prefix, or length through the formatter. */
export function generatePassword(cfg: Pick<DirectoryConfig, "password_policy" | "length" | "formatter">): string {
  if (cfg.password_policy) return randomText(POLICY_LENGTH);
  const length = cfg.length || DEFAULT_LENGTH;
  if (cfg.formatter) return cfg.formatter.replace(PLACEHOLDER, randomText(length - fixedLength(cfg.formatter)));
  return PREFIX + randomText(length - PREFIX.length);
}
