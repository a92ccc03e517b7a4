// Performance replication rules: what a secondary receives, and that one primary leads.
import { PathsFilter } from "../../secrets/replication/pathsFilter";
import { PerformancePrimary } from "../../secrets/replication/performancePrimary";
import { namesSetting } from "../config";
import { anyStackRule, resourceRule } from "../rule";

/** Mount paths as the filter writes them: with their trailing slash. */
const mountPath = (p: string) => (p.endsWith("/") ? p : `${p}/`);

export const replicationPathsFilter = resourceRule(PathsFilter, "replication-paths-filter", "advisory", {
  description: "A secondary's paths filter keeps out the mounts it must not have, and an allow filter lists something. In allow mode only the listed mounts replicate to the secondary, in deny mode all but those (secrets service seed A, Paths filter): an allow filter with no paths replicates nothing, and a mount named in neverReplicate reaches the secondary unless a deny filter lists it or an allow filter leaves it out.",
  remediationSteps: "List the mounts in a deny filter, or leave them out of an allow filter.",
  config: { neverReplicate: namesSetting("Mount paths (transform/, keymgmt/) no secondary may receive.") },
  validate(f, { neverReplicate }: { neverReplicate: string[] }, reportViolation) {
    const mode = f.mode ?? "allow";
    const paths = (f.paths ?? []).map(mountPath);
    if (mode === "allow" && paths.length === 0) reportViolation(`filter of ${f.secondaryClusterId}: allow mode with no paths replicates nothing`);
    const reaching = neverReplicate.map(mountPath).filter((m) => (mode === "allow" ? paths.includes(m) : !paths.includes(m)));
    if (reaching.length > 0) reportViolation(`filter of ${f.secondaryClusterId}: ${reaching.join(", ")} would replicate to the secondary`);
  },
});

export const replicationSinglePrimary = anyStackRule("replication-single-primary", "mandatory", {
  description: "One performance primary per cluster. Only one primary may be active, and several primaries can cause data loss (secrets service seed A, Performance replication and Limits): a stack that enables replication twice on one server has two resources each believing it leads.",
  remediationSteps: "Declare one PerformancePrimary per server.",
  validate(args, _config, reportViolation) {
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
});
