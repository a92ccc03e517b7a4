import * as os from "node:os";
import * as path from "node:path";

/**
 * Where the scripts and the tests keep what they fetch once (the CLIs, moto, TypeScript releases):
 * PULUMI_SVC_CACHE, else pulumi-svc under XDG_CACHE_HOME or ~/.cache, as scripts/pulumi-cli.sh says.
 */
export const cacheBase = process.env.PULUMI_SVC_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "pulumi-svc");
