import { jsonReply, parseJson, type Incoming, type Reply } from "../../transport/http";
import type { Route } from "../../transport/router";
import type { Runtime } from "../../clusterRuntime";
import { isRecord, nullProto, randomHex, randomId } from "../../util";
import type { AuthMount, Entity, IdentityState } from "./state";

/**
 * `/_emulator/identity`: adds entities and auth mounts for aliases to point at. There is no
 * identity API for them in the seed, so tests and examples add them here.
 */

const fail = (status: number, error: string): Reply => jsonReply(status, { error });
const ID = /^[A-Za-z0-9_-]+$/;
const PATH = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** Applies the whole request to a copy, so one bad entry leaves the state untouched. */
function apply(current: IdentityState, input: unknown): { entities: Entity[]; authMounts: AuthMount[]; next: IdentityState } | string {
  if (!isRecord(input)) return "body must be a JSON object";
  const next: IdentityState = nullProto(structuredClone(current));
  const entities: Entity[] = [];
  const authMounts: AuthMount[] = [];
  const { entities: entityList = [], authMounts: mountList = [] } = input;
  if (!Array.isArray(entityList)) return "entities must be an array";
  if (!Array.isArray(mountList)) return "authMounts must be an array";

  for (const [i, e] of entityList.entries()) {
    if (!isRecord(e) || typeof e.name !== "string" || e.name === "") return `entities[${i}].name is required`;
    if (e.id !== undefined && (typeof e.id !== "string" || !ID.test(e.id))) return `entities[${i}].id must be letters, digits, - and _`;
    const id = (e.id as string | undefined) ?? randomId("ent");
    const owner = Object.values(next.entities).find((x) => x.name === e.name && x.id !== id);
    if (owner) return `entities[${i}].name ${e.name} is taken by entity ${owner.id}`;
    next.entities[id] = { id, name: e.name };
    entities.push({ id, name: e.name });
  }

  for (const [i, m] of mountList.entries()) {
    if (!isRecord(m)) return `authMounts[${i}] must be an object`;
    const path = typeof m.path === "string" ? m.path.replace(/^\/+|\/+$/g, "").replace(/^auth\//, "") : "";
    if (!PATH.test(path)) return `authMounts[${i}].path must be segments of letters, digits, - and _`;
    if (typeof m.type !== "string" || !ID.test(m.type)) return `authMounts[${i}].type is required (letters, digits, - and _)`;
    if (m.accessor !== undefined && (typeof m.accessor !== "string" || !ID.test(m.accessor))) return `authMounts[${i}].accessor must be letters, digits, - and _`;
    if (m.local !== undefined && typeof m.local !== "boolean") return `authMounts[${i}].local must be a boolean`;
    // The real-world accessor shape: auth_<type>_<8 hex>.
    const accessor = (m.accessor as string | undefined) ?? `auth_${m.type}_${randomHex(4)}`;
    const mount: AuthMount = { accessor, path: `${path}/`, type: m.type, local: m.local === true };
    const clash = Object.values(next.authMounts).find((x) => x.path === mount.path && x.accessor !== accessor);
    if (clash) return `authMounts[${i}].path ${mount.path} is already mounted with accessor ${clash.accessor}`;
    next.authMounts[accessor] = mount;
    authMounts.push(mount);
  }
  return { entities, authMounts, next };
}

function addIdentity(rt: Runtime, req: Incoming): Reply {
  const parsed = parseJson(req.body);
  if (!parsed.ok) return fail(400, `invalid JSON: ${parsed.error}`);
  const result = apply(rt.store.data.secrets.identity, parsed.value ?? {});
  if (typeof result === "string") return fail(400, result);
  rt.store.data.secrets.identity = result.next;
  return jsonReply(200, { entities: result.entities, authMounts: result.authMounts });
}

export const identityControlRoutes: Route<Runtime>[] = [
  { method: "POST", path: "/identity", handler: addIdentity },
  {
    method: "GET",
    path: "/identity",
    handler: (rt) => {
      const { entities, authMounts } = rt.store.data.secrets.identity;
      return jsonReply(200, { entities: Object.values(entities), authMounts: Object.values(authMounts) });
    },
  },
];
