import { fail, withBody } from "../control/body";
import { emptyReply, jsonReply, type Reply } from "../transport/http";
import type { Route } from "../transport/router";
import type { Runtime } from "../clusterRuntime";
import { dict, isRecord } from "../util";

/**
 * `/_emulator/mounts`: an engine mounted at another path (`transform-eu`), and the mounts there are.
 * What may be mounted where comes from index.ts, which lists the engines and the fixed paths and
 * imports this file.
 */
export interface MountRules {
  /** The engines there are. */
  types(): string[];
  /** The fixed path (`identity`, `sys`) that `path` lies at or under, if any. */
  reservedPrefix(path: string): string | undefined;
}

const MOUNT_PATH = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

function addMount(rules: MountRules, rt: Runtime, value: unknown): Reply {
  if (!isRecord(value)) return fail(400, "body must be a JSON object");
  const { type } = value;
  const path = typeof value.path === "string" ? value.path.replace(/^\/+|\/+$/g, "") : undefined;
  if (path === undefined || !MOUNT_PATH.test(path)) return fail(400, "path must be segments of letters, digits, - and _");
  const reserved = rules.reservedPrefix(path);
  if (reserved !== undefined) return fail(400, `path ${reserved} is reserved`);
  if (typeof type !== "string" || !rules.types().includes(type)) return fail(400, `type must be one of ${rules.types().join(", ")}`);
  const mounts = rt.store.data.secrets.mounts;
  const clash = Object.keys(mounts).find((m) => m === path || m.startsWith(`${path}/`) || path.startsWith(`${m}/`));
  if (clash !== undefined) return fail(400, `path ${path} is already in use (mount ${clash})`);
  mounts[path] = { type, objects: dict() };
  return emptyReply(204);
}

export const mountControlRoutes = (rules: MountRules): Route<Runtime>[] => [
  { method: "POST", path: "/mounts", handler: withBody((rt: Runtime, value) => addMount(rules, rt, value)) },
  {
    method: "GET",
    path: "/mounts",
    handler: (rt) => jsonReply(200, { mounts: Object.entries(rt.store.data.secrets.mounts).map(([path, m]) => ({ path, type: m.type })) }),
  },
];
