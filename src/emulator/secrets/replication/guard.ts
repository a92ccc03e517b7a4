import type { Reply } from "../../http";
import type { Runtime } from "../../runtime";
import type { Mount } from "../../state";
import { nullProto } from "../../util";
import { secretsError } from "../envelope";
import { digestMounts, stateOf } from "./network";

/**
 * A performance secondary serves reads of replicated mounts but takes no writes to them: a request
 * that would change a replicated mount's storage (whatever its method: a GET can mint credentials)
 * is undone and refused, so the secondary never diverges from its primary. Requests that change
 * nothing (reads, FPE encode) pass.
 */
export async function guardReplicated(rt: Runtime, mountPath: string, mount: Mount, run: () => Promise<Reply>): Promise<Reply> {
  const st = stateOf(rt);
  if (st.mode !== "secondary" || !st.secondary?.replicatedMounts.includes(mountPath)) return run();
  const before = JSON.stringify(mount.objects);
  const digest = digestMounts({ [mountPath]: mount });
  const reply = await run();
  if (digestMounts({ [mountPath]: mount }) === digest) return reply;
  mount.objects = nullProto(JSON.parse(before) as Mount["objects"]);
  const from = st.secondary.primaryClusterId === "" ? "its primary" : `primary cluster ${st.secondary.primaryClusterId}`;
  return secretsError(400, `cannot write to "${mountPath}/" on a performance secondary: the mount is replicated from ${from}; send writes to the primary`);
}
