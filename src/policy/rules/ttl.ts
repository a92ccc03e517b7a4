// Lifetimes of what the directory and registry engines hand out: passwords, borrowed accounts, tokens.
import { Role as DirectoryRole } from "../../secrets/directory/role";
import { LibrarySet } from "../../secrets/directory/librarySet";
import { Role as RegistryRole } from "../../secrets/registry/role";
import { durationSetting, secondsOf } from "../config";
import { resourceRule } from "../rule";

type Ttl = { maximum: string };

/** Why `value` breaks a maximum: above it, or (where 0 means no limit) unlimited; undefined when it keeps it. */
function overLimit(value: unknown, maximum: string, zeroUnlimited: boolean): string | undefined {
  const s = secondsOf(value);
  const max = secondsOf(maximum);
  if (s === undefined || max === undefined) return undefined;
  if (s === 0 && zeroUnlimited) return "0, no limit";
  return s > max ? `${String(value)}, above ${maximum}` : undefined;
}

export const directoryRoleTtl = resourceRule(DirectoryRole, "directory-role-ttl", "advisory", {
  description: "A directory role's password lifetime is within the team's maximum. A role's ttl is how long its service account's password lives before the service rotates it on the next request (secrets service seed B, Directory engine): the longer, the longer a leaked password works. Remediation sets ttl to the maximum, in place.",
  remediationSteps: "Set ttl to at most the maximum (24h unless configured).",
  config: { maximum: durationSetting("Longest password lifetime a directory role may set.", "24h") },
  validate(role, { maximum }: Ttl, reportViolation) {
    const why = role.ttl === undefined ? undefined : overLimit(role.ttl, maximum, false);
    if (why) reportViolation(`role ${role.name}: ttl ${why}`);
  },
  remediate: (role, { maximum }) => (role.ttl !== undefined && overLimit(role.ttl, maximum, false) ? { ttl: maximum } : undefined),
});

export const librarySetTtl = resourceRule(LibrarySet, "library-set-ttl", "advisory", {
  description: "A library set's check-outs end within the team's maximum. A borrowed account stays with its borrower until check-in or until ttl and max_ttl elapse; both default to 24h and 0 means unlimited (secrets service seed B, Library service account and Limits): with 0, an account checked out and forgotten is never returned. Remediation sets each offending value to the maximum, in place.",
  remediationSteps: "Set ttl and maxTtl to at most the maximum (24h unless configured), never 0.",
  config: { maximum: durationSetting("Longest check-out a library set may allow (ttl and maxTtl).", "24h") },
  validate(set, { maximum }: Ttl, reportViolation) {
    for (const key of ["ttl", "maxTtl"] as const) {
      const why = overLimit(set[key] ?? "24h", maximum, true);
      if (why) reportViolation(`library set ${set.name}: ${key} ${why}`);
    }
  },
  remediate(set, { maximum }) {
    const fix: { ttl?: string; maxTtl?: string } = {};
    for (const key of ["ttl", "maxTtl"] as const) if (overLimit(set[key] ?? "24h", maximum, true)) fix[key] = maximum;
    return Object.keys(fix).length > 0 ? fix : undefined;
  },
});

export const registryRoleTtl = resourceRule(RegistryRole, "registry-role-ttl", "advisory", {
  description: "A registry role states its tokens' lifetime, within the team's maximum. Without ttl and max_ttl the engine's default and maximum TTL apply (secrets service seed B, Registry role), which the program does not say and the engine may set far higher; every token the role issues lives that long. Remediation fills ttl in with the maximum where it is absent or above, in place.",
  remediationSteps: "Set ttl (and maxTtl if used) to at most the maximum (24h unless configured).",
  config: { maximum: durationSetting("Longest ttl (and maxTtl) of a registry role's tokens.", "24h") },
  validate(role, { maximum }: Ttl, reportViolation) {
    if (role.ttl === undefined && role.lease === undefined) reportViolation(`registry role ${role.name}: no ttl, so the engine's default applies`);
    for (const key of ["ttl", "maxTtl"] as const) {
      const why = role[key] === undefined ? undefined : overLimit(role[key], maximum, false);
      if (why) reportViolation(`registry role ${role.name}: ${key} ${why}`);
    }
  },
  remediate(role, { maximum }) {
    const fix: { ttl?: string; maxTtl?: string } = {};
    if (role.maxTtl !== undefined && overLimit(role.maxTtl, maximum, false)) fix.maxTtl = maximum;
    // A ttl above the role's own (lower) maxTtl would be refused: the lower of the two.
    const cap = role.maxTtl !== undefined && fix.maxTtl === undefined && (secondsOf(role.maxTtl) ?? Infinity) < (secondsOf(maximum) ?? Infinity) ? String(role.maxTtl) : maximum;
    if ((role.ttl === undefined && role.lease === undefined) || (role.ttl !== undefined && overLimit(role.ttl, maximum, false))) fix.ttl = cap;
    return Object.keys(fix).length > 0 ? fix : undefined;
  },
});
