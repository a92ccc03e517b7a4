/**
 * The policy packs' findings of a preview. `pulumi preview --json` leaves every policy event out of
 * its document (pkg/backend/display/json.go, "we don't handle policy events in JSON serialization",
 * in v3.259.0 and v3.277.0 alike), so they are read from the engine's event log of the same
 * preview (`--event-log FILE`, which the CLI offers with PULUMI_DEBUG_COMMANDS=true): one
 * `policyEvent` per violation, one `policyRemediationEvent` per remediation with the inputs before
 * and after.
 */
import { shortToken } from "../core/token";
import { urnName, urnType } from "../core/urn";

export interface PolicyFinding {
  level: "mandatory" | "advisory";
  policy: string;
  pack: string;
  version: string;
  /** The resource's name and type; the stack's for a stack policy that named no resource. */
  name: string;
  type: string;
  /** The policy's description, then what it reported (CrossGuard joins them with a line end). */
  message: string;
}

export interface PolicyRemediationFinding {
  policy: string;
  pack: string;
  name: string;
  type: string;
  /** Each top-level input the remediation changed, old → new (secrets as the event log masks them). */
  changes: { property: string; old: unknown; new: unknown }[];
}

export interface PolicyFindings {
  violations: PolicyFinding[];
  remediations: PolicyRemediationFinding[];
}

interface PolicyEventLine {
  policyEvent?: { resourceUrn?: string; message?: string; policyName?: string; policyPackName?: string; policyPackVersion?: string; enforcementLevel?: string };
  policyRemediationEvent?: { resourceUrn?: string; policyName?: string; policyPackName?: string; before?: Record<string, unknown>; after?: Record<string, unknown> };
}

const nameAndType = (urn = "") => ({ name: urnName(urn), type: shortToken(urnType(urn)) });

/** The findings of an event log: mandatory violations first, each kind in the order the engine met them. */
export function policyFindings(text: string, file = "the event log"): PolicyFindings {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) => l !== "");
  const events: PolicyEventLine[] = [];
  for (const [i, l] of lines.entries()) {
    try {
      events.push(JSON.parse(l) as PolicyEventLine);
    } catch {
      throw new Error(`${file}, line ${i + 1}: not JSON: pass the file \`pulumi preview --event-log FILE\` wrote`);
    }
  }
  const violations: PolicyFinding[] = [];
  const remediations: PolicyRemediationFinding[] = [];
  for (const e of events) {
    const v = e.policyEvent;
    if (v) {
      violations.push({ level: v.enforcementLevel === "mandatory" ? "mandatory" : "advisory", policy: v.policyName ?? "", pack: v.policyPackName ?? "", version: v.policyPackVersion ?? "", message: (v.message ?? "").trim(), ...nameAndType(v.resourceUrn) });
    }
    const r = e.policyRemediationEvent;
    if (r) {
      const before = r.before ?? {};
      const after = r.after ?? {};
      const changes = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !k.startsWith("__") && JSON.stringify(before[k]) !== JSON.stringify(after[k]))
        .map((k) => ({ property: k, old: before[k], new: after[k] }));
      remediations.push({ policy: r.policyName ?? "", pack: r.policyPackName ?? "", changes, ...nameAndType(r.resourceUrn) });
    }
  }
  return { violations: [...violations.filter((v) => v.level === "mandatory"), ...violations.filter((v) => v.level === "advisory")], remediations };
}
