import type { PageGroup } from "../area";
import type { Runtime } from "../clusterRuntime";
import { formatRequest } from "../control/logs";
import { isRecord } from "../util";

/**
 * What the web page shows, built from the live state with every secret masked here, on the server,
 * so no secret ever reaches the browser. A field is secret by its name (a token, password, key, ...);
 * what an area seals (tokenized values) is shown only as a count. Each area says what it shows
 * (area.ts: its boxes of objects, its own entries such as the runs); the faults, deliveries and
 * requests are every area's.
 */

export const MASK = "••••••";
const SECRET_FIELD = /token|pass|secret|key|credential|hmac|salt|tweak|digest|hash|private|borrower|ring|signature|authorization|cookie/i;
/** Names that match the pattern but describe, not hold, a secret. */
const PLAIN_FIELDS = new Set(["token_type", "key_collection", "key_type", "type", "tweak_source"]);

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
  service: string;
  cluster: number;
  /** `run`, a mount path (`transform`) or a fixed part (`identity`). */
  group: string;
  type?: string;
  kinds: Kind[];
}

/** Where an object is: the query of /_emulator/ui/object that answers its (masked) JSON. */
export interface ObjectAddress {
  service: string;
  cluster: number;
  group: string;
  kind: string;
  name: string;
}

export const objectRef = (a: ObjectAddress): string =>
  new URLSearchParams({ service: a.service, cluster: String(a.cluster), group: a.group, kind: a.kind, name: a.name }).toString();

const MAX_FIELDS = 6;
/** What the page lists of one kind, and of the runs. */
export const MAX_OBJECTS = 200;

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

function kindsOf(box: PageGroup, cluster: number): Kind[] {
  const kinds: Kind[] = [];
  for (const [kind, objects] of Object.entries(box.kinds)) {
    if (!isRecord(objects) || box.unlisted?.includes(kind)) continue;
    const names = Object.keys(objects);
    const ref = (name: string) => objectRef({ service: box.service, cluster, group: box.group, kind, name });
    kinds.push({
      kind,
      count: names.length,
      objects: box.sealed?.includes(kind) ? [] : names.slice(0, MAX_OBJECTS).map((name) => ({ name, fields: keyFields(objects[name]), ref: ref(name) })),
    });
  }
  return kinds;
}

/** Every area's boxes for one cluster, in the order of the areas. */
const boxesOf = (rt: Runtime, cluster: number): PageGroup[] => {
  const store = rt.cluster.stores[cluster];
  return store ? rt.areas.flatMap((a) => a.page?.groups?.(store.data, cluster) ?? []) : [];
};

function groupsOf(rt: Runtime, cluster: number): Group[] {
  return boxesOf(rt, cluster).map((box) => ({
    service: box.service,
    cluster,
    group: box.group,
    ...(box.type === undefined ? {} : { type: box.type }),
    kinds: kindsOf(box, cluster),
  }));
}

/** The document GET /_emulator/ui/state.json answers with. */
export function uiState(rt: Runtime) {
  return {
    at: new Date().toISOString(),
    cluster: rt.cluster.index,
    // The areas' own entries: the run service's clock and runs.
    ...Object.assign({}, ...rt.areas.map((a) => a.page?.sections?.(rt) ?? {})),
    faults: rt.faults.list(),
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
    groups: rt.cluster.stores.flatMap((_, i) => groupsOf(rt, i)),
  };
}

/** One object's JSON, masked; undefined when it does not exist or its kind is sealed. */
export function uiObject(rt: Runtime, query: URLSearchParams): unknown {
  const [service, group, kind, name] = ["service", "group", "kind", "name"].map((k) => query.get(k) ?? "");
  // The first box of that name wins, as on the page: a mount before a fixed part of the same name.
  const box = boxesOf(rt, Number(query.get("cluster") ?? "0")).find((b) => b.service === service && b.group === group);
  if (!box || box.sealed?.includes(kind)) return undefined;
  const own = (o: unknown, k: string): unknown => (isRecord(o) && Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);
  const found = own(own(box.kinds, kind), name);
  return found === undefined ? undefined : masked(found);
}
