import type { Runtime } from "../clusterRuntime";
import { storesOf } from "../persistence/snapshot";
import type { Store } from "../persistence/store";
import { formatRequest } from "../control/logs";
import { isRecord } from "../util";
import { COMPLETED_STATUSES } from "../runs/vocabulary";

/**
 * What the web page shows, built from the live state with every secret masked here, on the server,
 * so no secret ever reaches the browser. A field is secret by its name (a token, password, key, ...);
 * tokenized values are shown only as a count.
 */

export const MASK = "••••••";
const SECRET_FIELD = /token|pass|secret|key|credential|hmac|salt|tweak|digest|hash|private|borrower|ring|signature|authorization|cookie/i;
/** Names that match the pattern but describe, not hold, a secret. */
const PLAIN_FIELDS = new Set(["token_type", "key_collection", "key_type", "type", "tweak_source"]);
/** Kinds whose every entry is a tokenized value or its digest. */
const SEALED_KINDS = new Set(["tokens"]);

export const isSecretField = (name: string) => SECRET_FIELD.test(name) && !PLAIN_FIELDS.has(name);

export function masked(value: unknown, field = ""): unknown {
  if (field !== "" && isSecretField(field)) return value === "" || value === null || value === undefined ? value : MASK;
  if (Array.isArray(value)) return value.map((v) => masked(v));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, k)]));
  return value;
}

interface ObjectRow {
  name: string;
  fields: Record<string, unknown>;
  /** Query of /_emulator/ui/object for this object's (masked) JSON. */
  ref: string;
}
interface Kind {
  kind: string;
  count: number;
  objects: ObjectRow[];
}
interface Group {
  service: "run" | "secrets";
  cluster: number;
  /** `run`, a mount path (`transform`) or a fixed part (`identity`). */
  group: string;
  type?: string;
  kinds: Kind[];
}

const MAX_FIELDS = 6;
const MAX_OBJECTS = 200;

/** Up to six short fields of an object (scalars, and lists of names such as a role's transformations), masked. */
function keyFields(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) return { value: masked(value, "value") };
  const out: Record<string, unknown> = {};
  // The object's own name first when it has one (a notification configuration's, a workspace's).
  const entries = Object.entries(value).sort(([a], [b]) => Number(b === "name") - Number(a === "name"));
  for (const [k, v] of entries) {
    if (Object.keys(out).length >= MAX_FIELDS) break;
    if (typeof v === "string" && v.length <= 120) out[k] = masked(v, k);
    else if (typeof v === "number" || typeof v === "boolean") out[k] = masked(v, k);
    else if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string") && v.join(",").length <= 120) out[k] = masked(v, k);
  }
  return out;
}

function kindsOf(service: "run" | "secrets", cluster: number, group: string, maps: Record<string, unknown>): Kind[] {
  const kinds: Kind[] = [];
  for (const [kind, objects] of Object.entries(maps)) {
    if (!isRecord(objects)) continue;
    const names = Object.keys(objects);
    const sealed = SEALED_KINDS.has(kind);
    const ref = (name: string) => new URLSearchParams({ service, cluster: String(cluster), group, kind, name }).toString();
    kinds.push({
      kind,
      count: names.length,
      objects: sealed ? [] : names.slice(0, MAX_OBJECTS).map((name) => ({ name, fields: keyFields(objects[name]), ref: ref(name) })),
    });
  }
  return kinds;
}

function groupsOf(store: Store, cluster: number): Group[] {
  const groups: Group[] = [];
  if (cluster === 0) groups.push({ service: "run", cluster, group: "run", kinds: kindsOf("run", cluster, "run", store.data.run as unknown as Record<string, unknown>).filter((k) => k.kind !== "runs") });
  const { mounts, ...fixed } = store.data.secrets;
  for (const [path, mount] of Object.entries(mounts)) {
    groups.push({ service: "secrets", cluster, group: path, type: mount.type, kinds: kindsOf("secrets", cluster, path, mount.objects) });
  }
  for (const [part, value] of Object.entries(fixed)) {
    if (isRecord(value)) groups.push({ service: "secrets", cluster, group: part, kinds: kindsOf("secrets", cluster, part, value) });
  }
  return groups;
}

/** The document GET /_emulator/ui/state.json answers with. */
export function uiState(rt: Runtime) {
  const stores = storesOf(rt);
  const runs = Object.values(stores[0].data.run.runs)
    .sort((a, b) => b.seq - a.seq)
    .slice(0, MAX_OBJECTS)
    .map((r) => ({
      id: r.id,
      workspaceId: r.workspaceId,
      status: r.status,
      // A finished run takes no step and no outcome: the page offers neither.
      finished: COMPLETED_STATUSES.has(r.status),
      message: r.message,
      createdAt: r.createdAt,
      timeline: Object.entries(r.statusTimestamps)
        .map(([key, at]) => ({ status: key.replace(/-at$/, "").replace(/-/g, "_"), at }))
        .sort((a, b) => a.at.localeCompare(b.at)),
      ref: new URLSearchParams({ service: "run", cluster: "0", group: "run", kind: "runs", name: r.id }).toString(),
    }));
  return {
    at: new Date().toISOString(),
    cluster: rt.cluster.index,
    clock: { autoAdvanceMs: rt.runService.autoAdvanceMs, forceCancelCooloffMs: rt.runService.forceCancelCooloffMs },
    faults: rt.faults.list(),
    runs,
    deliveries: rt.deliveries.all().slice(-100).reverse().map((d) => ({
      trigger: d.trigger,
      destinationType: d.destinationType,
      configurationId: d.configurationId,
      url: d.url,
      sentAt: d.sentAt,
      // The signature header is shown: it is an HMAC of the body, not the key that made it.
      headers: Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k, /signature/i.test(k) ? v : masked(v, k)])),
      body: d.body,
      response: d.response ? { code: d.response.code, body: d.response.body } : null,
      error: d.error ?? null,
    })),
    // Method, path, status and time only: never a query, a header or a body.
    requests: rt.requests.all().slice(-200).reverse().map((e) => {
      const { method, path, status, at } = formatRequest(e);
      return { method, path, status, at };
    }),
    groups: stores.flatMap((s, i) => groupsOf(s, i)),
  };
}

/** One object's JSON, masked; undefined when it does not exist. */
export function uiObject(rt: Runtime, query: URLSearchParams): unknown {
  const store = storesOf(rt)[Number(query.get("cluster") ?? "0")];
  const [service, group, kind, name] = ["service", "group", "kind", "name"].map((k) => query.get(k) ?? "");
  if (!store || SEALED_KINDS.has(kind)) return undefined;
  const own = (o: unknown, k: string): unknown => (isRecord(o) && Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);
  const container =
    service === "run" ? store.data.run
    : own(store.data.secrets.mounts, group) !== undefined ? store.data.secrets.mounts[group].objects
    : group !== "mounts" ? own(store.data.secrets, group) : undefined;
  const found = own(own(container, kind), name);
  return found === undefined ? undefined : masked(found);
}
