import type { Area, PageGroup } from "../area";
import { SECRETS_TOKENS, secretsPrincipal } from "../auth";
import type { Incoming, Reply } from "../transport/http";
import { Router, type Route } from "../transport/router";
import type { Data, Runtime } from "../clusterRuntime";
import { initialMounts, mountProblem, type Mount, type SecretsState } from "./state";
import type { Engine, SecretsContext, SystemContext } from "./context";
import { mountControlRoutes } from "./control";
import { directoryEngine } from "./directory";
import { noHandler, permissionDenied, secretsError, unsupportedOperation } from "./envelope";
import { identityControlRoutes } from "./identity/control";
import { identityFolder } from "./identity";
import { initialIdentity } from "./identity/state";
import { keymgmtEngine } from "./keymgmt";
import { mfaControlRoutes } from "./mfa/control";
import { mfaFolder } from "./mfa";
import { emptyMfa } from "./mfa/state";
import { pluginsFolder } from "./plugins";
import { emptyPlugins } from "./plugins/state";
import { registryEngine } from "./registry";
import { replicationFolder } from "./replication";
import { emptyReplication } from "./replication/state";
import { guardReplicated } from "./replication/performanceSecondary";
import { healthRoutes } from "./system/health";
import { tokenSelfRoutes } from "./system/tokenSelf";
import { transformEngine } from "./transform";
import { hasOwn } from "../util";

/** Engine types that can be mounted; adding an engine is one line here. */
export const ENGINES: Record<string, Engine> = {
  [transformEngine.type]: transformEngine,
  [keymgmtEngine.type]: keymgmtEngine,
  [directoryEngine.type]: directoryEngine,
  [registryEngine.type]: registryEngine,
};

/**
 * Parts of the service that live at fixed paths instead of mounts: prefix → routes relative to it.
 * These prefixes are reserved; nothing can be mounted at or under them.
 */
export const SYSTEM_PATHS: Record<string, Route<SystemContext>[]> = {
  identity: [...identityFolder.routes, ...mfaFolder.routes],
  sys: [...pluginsFolder.routes, ...replicationFolder.routes, ...healthRoutes],
  auth: tokenSelfRoutes,
};

const routers = new Map(Object.values(ENGINES).map((engine) => [engine.type, new Router(engine.routes)]));
const systemRouters = Object.entries(SYSTEM_PATHS).map(([prefix, routes]) => ({ prefix, router: new Router(routes) }));

/** The fixed prefix (`identity`, `sys`) that `path` lies at or under, if any; nothing may be mounted there. */
export function reservedPrefix(path: string): string | undefined {
  return systemRouters.find((s) => path === s.prefix || path.startsWith(`${s.prefix}/`))?.prefix;
}

/** The spellings of a boolean query parameter the real service accepts (Go's strconv.ParseBool). */
const TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);
const FALSE = new Set(["0", "f", "F", "false", "FALSE", "False"]);

/** LIST arrives as GET ?list=<true> (the server rewrites the method); PUT is a synonym of POST. */
export function secretsMethod(method: string, query: URLSearchParams): string {
  const list = query.get("list");
  if (method === "GET" && list !== null && TRUE.has(list)) return "LIST";
  if (method === "PUT") return "POST";
  return method;
}

/** The longest mount path that `path` lies under, since mount paths may themselves contain `/`. */
function findMount(mounts: Record<string, Mount>, path: string): string | undefined {
  let best: string | undefined;
  for (const mountPath of Object.keys(mounts)) {
    if ((path === mountPath || path.startsWith(`${mountPath}/`)) && (!best || mountPath.length > best.length)) best = mountPath;
  }
  return best;
}

/** Handles a request whose path is relative to `/v1`. */
export async function handleSecrets(rt: Runtime, req: Incoming): Promise<Reply> {
  const principal = secretsPrincipal(rt.store.tokens, req.headers);
  if (!principal) return anonymous(rt, req);
  const list = req.query.get("list");
  if (req.method === "GET" && list !== null && !TRUE.has(list) && !FALSE.has(list)) {
    return secretsError(400, `list must be a boolean (1, t, true, 0, f, false, ...), got ${JSON.stringify(list)}`);
  }
  const path = req.path.replace(/^\/+/, "");
  const reserved = reservedPrefix(path);
  const system = systemRouters.find((s) => s.prefix === reserved);
  if (system) return dispatch<SystemContext>(system.router, path, system.prefix, req, { rt, principal });
  const mountPath = findMount(rt.store.data.secrets.mounts, path);
  const mount = mountPath === undefined ? undefined : rt.store.data.secrets.mounts[mountPath];
  const router = mount && routers.get(mount.type);
  if (mountPath === undefined || !mount || !router) return noHandler(path);
  return guardReplicated(rt, mountPath, mount, async () =>
    dispatch<SecretsContext>(router, path, mountPath, req, { rt, principal, mountPath, mount }));
}

/** Without a valid token only the open routes (replication status, health) answer; everything else is 403. */
function anonymous(rt: Runtime, req: Incoming): Reply | Promise<Reply> {
  const path = req.path.replace(/^\/+/, "");
  const system = systemRouters.find((s) => s.prefix === reservedPrefix(path));
  const match = system?.router.match(secretsMethod(req.method, req.query), path.slice(system.prefix.length + 1));
  if (!system || match?.kind !== "found" || !match.route.open) return permissionDenied();
  return match.route.handler({ rt, principal: { sudo: false } }, { ...req, method: secretsMethod(req.method, req.query), params: match.params });
}

/** Routes `path` (under `prefix`) through `router`: 404 no handler, 405, sudo, then the handler. */
async function dispatch<C extends SystemContext>(router: Router<C>, path: string, prefix: string, req: Incoming, ctx: C): Promise<Reply> {
  const method = secretsMethod(req.method, req.query);
  const match = router.match(method, path.slice(prefix.length + 1));
  if (match.kind === "none") return noHandler(path);
  if (match.kind === "method") return unsupportedOperation();
  if (match.route.sudo && !ctx.principal.sudo) return permissionDenied();
  return match.route.handler(ctx, { ...req, method, params: match.params });
}

export function mountableTypes(): string[] {
  return Object.keys(ENGINES);
}

/** One box of the page per mount, in the mount table's order; what its engine only counts stays sealed. */
function mountGroups(data: Data): PageGroup[] {
  return Object.entries(data.secrets.mounts).map(([path, mount]) => ({
    service: "secrets",
    group: path,
    type: mount.type,
    kinds: mount.objects,
    sealed: (hasOwn(ENGINES, mount.type) ? ENGINES[mount.type].page?.sealed : undefined) ?? [],
  }));
}

/** The secrets service itself: `/v1`, its tokens, the mount table (its `/_emulator/mounts` rows, a page box per mount). */
const secretsService: Area<Runtime, Data> = {
  service: { prefix: "/v1", method: secretsMethod, handle: handleSecrets, error: secretsError },
  stored: {
    service: "secrets",
    initial: () => ({ mounts: initialMounts() }),
    tokens: { names: SECRETS_TOKENS, prefix: "emusec" },
    problem: (data) => mountProblem(data.mounts as Record<string, unknown>, mountableTypes()),
  },
  controlRoutes: mountControlRoutes({ types: mountableTypes, reservedPrefix }),
  page: { groups: mountGroups },
};

/** A part of the service at a fixed path, kept at `data.secrets.<key>` and shown as one box of the page. */
function fixedPart<K extends Exclude<keyof SecretsState, "mounts">>(key: K, initial: () => SecretsState[K], more: Area<Runtime, Data> = {}): Area<Runtime, Data> {
  return {
    stored: { service: "secrets", initial: () => ({ [key]: initial() }) },
    page: { groups: (data) => [{ service: "secrets", group: key, kinds: data.secrets[key] as unknown as Record<string, unknown> }] },
    ...more,
  };
}

/** The secrets service's areas, in the order the state document and the page keep them; adding one is one line here. */
export const SECRETS_AREAS: readonly Area<Runtime, Data>[] = [
  secretsService,
  ...Object.values(ENGINES),
  fixedPart("identity", initialIdentity, { controlRoutes: identityControlRoutes, assignedIds: identityFolder.assignedIds }),
  fixedPart("mfa", emptyMfa, { controlRoutes: mfaControlRoutes, assignedIds: mfaFolder.assignedIds }),
  fixedPart("plugins", emptyPlugins, { assignedIds: pluginsFolder.assignedIds }),
  // Replication follows every request, reads included (a GET can mint credentials into storage).
  fixedPart("replication", emptyReplication, { settle: (rt) => rt.cluster.network.settle(), assignedIds: replicationFolder.assignedIds }),
];
