/**
 * The version of a secret input: a sibling that is not secret (`token` → `tokenVersion`), which
 * check sets to 1 when the secret is first given and raises by one each time its value changes.
 *
 * Why: a dynamic provider's update carries no detailed diff, and the CLI prints a secret as
 * `[secret]` on both sides, so a change of a secret alone is an update that names nothing
 * (pulumi/pulumi#16687). `pulumi preview --diff` shows `~ tokenVersion: 1 => 2` instead.
 *
 * Why a counter and not a digest: a digest of a short password can be guessed offline, and a keyed
 * one needs a key kept somewhere the provider can read on every run. A counter is computed from the
 * old and new values check already holds, and tells only how many times the program changed the
 * secret, which the history of updates tells anyway.
 */
import type { Fields } from "./fields";
import type { Props } from "./props";
import { containsUnknown, UNKNOWN } from "./unknown";

export const VERSION_SUFFIX = "Version";

/** The version keys of a record's secret inputs, in declaration order. */
export function versionKeys(fields: Fields | undefined): readonly string[] {
  if (fields === undefined) return NONE;
  let out = known.get(fields);
  if (out === undefined) {
    const keys: string[] = [];
    for (const k in fields) {
      const flags = fields[k]!.flags;
      if (flags.secret && !flags.output) keys.push(k + VERSION_SUFFIX);
    }
    known.set(fields, (out = keys));
  }
  return out;
}

// Every operation strips and carries the versions, several times: a record's keys are listed once.
const known = new WeakMap<Fields, readonly string[]>();
const NONE: readonly string[] = [];

/**
 * Adds the version of every secret input to checked `inputs`. `same(k)` says whether the input
 * `k` kept its value since `olds` (as diff would compare it). A secret that is not set has no
 * version; one not known yet in a preview has an unknown version.
 */
export function withVersions(fields: Fields | undefined, olds: Props, inputs: Props, same: (key: string) => boolean): Props {
  for (const vk of versionKeys(fields)) {
    const k = vk.slice(0, -VERSION_SUFFIX.length);
    const value = inputs[k];
    if (value === undefined || value === null) continue;
    if (containsUnknown(value)) {
      inputs[vk] = UNKNOWN;
      continue;
    }
    const was = typeof olds[vk] === "number" ? (olds[vk] as number) : undefined;
    const had = olds[k] !== undefined && olds[k] !== null;
    // A state from before versions has none: its secret counts as version 1.
    if (had && same(k)) inputs[vk] = was ?? 1;
    else inputs[vk] = (was ?? (had ? 1 : 0)) + 1;
  }
  return inputs;
}

/** Copies the versions from `from` (inputs, or the state before a read) into `result`. */
export function carryVersions(fields: Fields | undefined, from: Props, result: Props): Props {
  for (const vk of versionKeys(fields)) if (from[vk] !== undefined) result[vk] = from[vk];
  return result;
}
