// Performance replication rules: what a secondary receives, and that one primary leads.
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { PathsFilter } from "../../secrets/replication/pathsFilter";
import { PerformancePrimary } from "../../secrets/replication/performancePrimary";
import { configOf, namesSetting } from "../config";
import { validateResourceOfType } from "../typed";

const filterSchema = { properties: { neverReplicate: namesSetting("Mount paths (transform/, keymgmt/) no secondary may receive.") } };

/** Mount paths as the filter writes them: with their trailing slash. */
const mountPath = (p: string) => (p.endsWith("/") ? p : `${p}/`);

export const replicationPathsFilter: ResourceValidationPolicy = {
  name: "replication-paths-filter",
  description: "A secondary's paths filter keeps out the mounts it must not have, and an allow filter lists something. In allow mode only the listed mounts replicate to the secondary, in deny mode all but those (secrets service seed A, Paths filter): an allow filter with no paths replicates nothing, and a mount named in neverReplicate reaches the secondary unless a deny filter lists it or an allow filter leaves it out.",
  enforcementLevel: "advisory",
  configSchema: filterSchema,
  remediationSteps: "List the mounts in a deny filter, or leave them out of an allow filter.",
  validateResource: validateResourceOfType(PathsFilter, (f, args, reportViolation) => {
    const { neverReplicate } = configOf<{ neverReplicate: string[] }>(filterSchema, args.getConfig());
    const mode = f.mode ?? "allow";
    const paths = (f.paths ?? []).map(mountPath);
    if (mode === "allow" && paths.length === 0) reportViolation(`filter of ${f.secondaryClusterId}: allow mode with no paths replicates nothing`);
    const reaching = neverReplicate.map(mountPath).filter((m) => (mode === "allow" ? paths.includes(m) : !paths.includes(m)));
    if (reaching.length > 0) reportViolation(`filter of ${f.secondaryClusterId}: ${reaching.join(", ")} would replicate to the secondary`);
  }),
};

export const replicationSinglePrimary: StackValidationPolicy = {
  name: "replication-single-primary",
  description: "One performance primary per cluster. Only one primary may be active, and several primaries can cause data loss (secrets service seed A, Performance replication and Limits): a stack that enables replication twice on one server has two resources each believing it leads.",
  enforcementLevel: "mandatory",
  configSchema: { properties: {} },
  remediationSteps: "Declare one PerformancePrimary per server.",
  validateStack: (args, reportViolation) => {
    const primaries = args.resources.filter((r) => r.isType(PerformancePrimary));
    if (primaries.length === 0) return args.notApplicable("no performance primary in this stack");
    const seen = new Map<string, string>();
    for (const p of primaries) {
      // The server the resource was recorded on (its connection's, else the stack's), which check sets.
      const server = String(p.props.serverUrl);
      const other = seen.get(server);
      if (other !== undefined) reportViolation(`${p.name} and ${other} both enable a primary on ${server}`, p.urn);
      else seen.set(server, p.name);
    }
  },
};
