/**
 * The runtime side of connections, for every kind alike: check validates the `connection` input and
 * records the base URL the resource will live on (`serverUrl`), diff replaces a resource whose server
 * changed, and create/read/update/delete talk to the server recorded in state with the token from
 * the resource's connection, else the configured one. The definitions never see either key.
 */
import { baseUrlProblem, lookup, perFixedSource, missingMessage, normaliseBaseUrl, originOf, serviceSettings, SETTINGS, unknownSettings, withoutCredentials, type ConfigSource, type SettingName } from "./config";
import type { Service } from "../http";
import { isSvcError } from "../http/errors";
import { limitRule } from "../http/limiter";
import { registerSecret } from "../http/redact";
import { registerSecrets } from "./fields";
import { claim, hold, refuseDeleteOfTaken } from "./holders";
import { ADOPT_ID, PROVIDER_KEY, type Context, type Props, type ResourceDefinition } from "./definition";
import { omit } from "./json";
import { inputsFromPath } from "./path";
import { isUnknown } from "./unknown";
import { nearest, type CheckFailure } from "./validate";
import { carryVersions, versionKeys, withVersions } from "./versions";
import { BEFORE_KEY, beforeCreate, canLeave, leftoversOf, type Before } from "./leftovers";
import { pathFromInputs } from "./path";
import { kindName, serviceOfKind } from "./token";

export const CONNECTION_KEY = "connection";
export const SERVER_KEY = "serverUrl";
/** The resource's URN, for progress lines logged against it (src/core/engineLog.ts). */
export const URN_KEY = "__urn";
/**
 * Set among the program's inputs of a read resource (`get`, `id` in the resource options): its read
 * takes the object the id names and fails when there is none, where a refresh's read drops a gone
 * object from the state. The engine sends both reads alike (the inputs as the state), so only the
 * program can tell them apart.
 */
export const READ_KEY = "__read";

interface Plain { url?: unknown; token?: unknown; service?: unknown; maxConcurrentRequests?: unknown }

function connectionOf(props: Props): Plain | undefined {
  const c = props[CONNECTION_KEY];
  return c !== null && typeof c === "object" && !Array.isArray(c) ? (c as Plain) : undefined;
}

// What check recorded before a create (src/core/leftovers.ts) and the mark of a read resource are bookkeeping too: never compared, never sent.
const CONNECTION_KEYS = [CONNECTION_KEY, SERVER_KEY, URN_KEY, BEFORE_KEY, READ_KEY];

/** The members a connection may have (src/core/connection.ts); check refuses any other, naming it. */
const CONNECTION_MEMBERS = ["url", "token", "maxConcurrentRequests", "service"];

/** Why a connection has member `key` that it should not, or undefined when it is one of its members. */
export function unknownMember(key: string): string | undefined {
  if (CONNECTION_MEMBERS.includes(key)) return undefined;
  const near = nearest(key, CONNECTION_MEMBERS.filter((m) => m !== "service"));
  return `is not a member of a connection (it has url, token and maxConcurrentRequests)${near ? `: did you mean ${near}?` : ""}`;
}
const BOOKKEEPING_KEYS = [...CONNECTION_KEYS, PROVIDER_KEY];

/**
 * Without the connection's keys and the secrets' versions (src/core/versions.ts), which diff must
 * not count: a state from before versions would otherwise update for nothing. Check and diff take
 * the engine's own key as it comes.
 */
function stripped(def: ResourceDefinition, props: Props): Props {
  return omit(props, [...CONNECTION_KEYS, ...versionKeys(def.fields)]);
}

/** What a definition sees: without the connection's keys, the engine's and the versions. */
function bare(def: ResourceDefinition, props: Props): Props {
  return omit(props, [...BOOKKEEPING_KEYS, ...versionKeys(def.fields)]);
}

function text(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" && !isUnknown(v) ? v : undefined;
}

/** Why a connection's maxConcurrentRequests is unusable (an unknown one during preview is not). */
export function limitProblem(v: unknown): string | undefined {
  return v === undefined || v === null || isUnknown(v) ? undefined : limitRule(v);
}

/**
 * A config source in which the connection wins over stack config and environment for `service`:
 * `url` (the recorded server, else the connection's), `token` and `maxConcurrentRequests`.
 */
export function connectionSource(base: ConfigSource | undefined, service: Service | undefined,
  c: Plain | undefined): ConfigSource | undefined {
  const url = text(c?.url);
  const token = text(c?.token);
  const limit = typeof c?.maxConcurrentRequests === "number" ? String(c.maxConcurrentRequests) : undefined;
  if (token) registerSecret(token);
  if (!url && !token && limit === undefined) return base;
  if (!base?.fixed) return layer(base, service, c, url, token, limit);
  // A fixed base layered with the same values is the same source: its client is found without its settings.
  return layeredOf.get(base, `${service ?? c?.service}\0${url}\0${token}\0${limit}`, () => layer(base, service, c, url, token, limit));
}

const layeredOf = perFixedSource<string, ConfigSource>();

function layer(base: ConfigSource | undefined, service: Service | undefined, c: Plain | undefined,
  url: string | undefined, token: string | undefined, limit: string | undefined): ConfigSource {
  const forService = service ?? (c?.service as Service | undefined);
  const names = forService ? serviceSettings(forService) : undefined;
  const urlKey = names && SETTINGS[names.url].key;
  const tokenKey = names && SETTINGS[names.token].key;
  const isToken = (key: string) => token !== undefined &&
    (key === tokenKey || (!forService && (key === SETTINGS.runToken.key || key === SETTINGS.secretsToken.key)));
  const layered: ConfigSource = (key) => {
    if (url && key === urlKey) return url;
    if (isToken(key)) return token;
    if (limit !== undefined && key === SETTINGS.maxConcurrentRequests.key) return limit;
    if (!forService && url && (key === SETTINGS.runUrl.key || key === SETTINGS.secretsUrl.key)) return url;
    return base?.(key);
  };
  layered.keys = base?.keys;
  layered.env = base?.env;
  if (base?.fixed) layered.fixed = true;
  layered.origin = (key) => isToken(key) ? "connection.token"
    : limit !== undefined && key === SETTINGS.maxConcurrentRequests.key ? "connection.maxConcurrentRequests" : base?.origin?.(key);
  return layered;
}

/**
 * The Context for an object: its recorded server (or the connection's, or the config's) and token.
 * The HTTP client comes in with the first operation that may talk to a server: Diff never does,
 * and Check only for a create it passed (recordBefore), so a preview of changes loads it for nothing.
 */
export async function contextFor(def: ResourceDefinition, source: ConfigSource | undefined, props: Props): Promise<Context> {
  const { makeContext } = (contextModule ??= await import("./context"));
  const c = connectionOf(props);
  // A state written before credentials in URLs were refused may hold some; requests never used them.
  const recorded = recordedUrl(props[SERVER_KEY]);
  return makeContext(connectionSource(source, serviceOfKind(def.kind), { ...c, url: recorded ?? c?.url }), false, text(props[URN_KEY]));
}

let contextModule: typeof import("./context") | undefined;

type ConnectionCheck = { serverUrl: string; failures: CheckFailure[] };

// Without a connection, a fixed source (a provider host's) answers every check of a service alike.
const checkedOf = perFixedSource<Service, ConnectionCheck>();

function checkConnection(def: ResourceDefinition, source: ConfigSource | undefined, news: Props): ConnectionCheck {
  if (!source?.fixed || news[CONNECTION_KEY] !== undefined) return connectionChecked(def, source, news);
  const checked = checkedOf.get(source, serviceOfKind(def.kind), () => connectionChecked(def, source, news));
  return { serverUrl: checked.serverUrl, failures: [...checked.failures] };
}

function connectionChecked(def: ResourceDefinition, source: ConfigSource | undefined, news: Props): ConnectionCheck {
  const service = serviceOfKind(def.kind);
  const raw = news[CONNECTION_KEY];
  const failures: CheckFailure[] = [];
  const fail = (property: string, reason: string) => failures.push({ property: `${CONNECTION_KEY}${property}`, reason });
  if (isUnknown(raw)) return { serverUrl: raw as string, failures };
  if (raw !== undefined && raw !== null && connectionOf(news) === undefined) fail("", "must be an object with url and token");
  const c = connectionOf(news) ?? {};
  if (c.service !== undefined && !isUnknown(c.service) && c.service !== service) {
    fail(".service", `is a connection of the ${String(c.service)} service; this resource belongs to the ${service} service`);
  }
  for (const k of ["url", "token"] as const) {
    if (c[k] !== undefined && c[k] !== null && !isUnknown(c[k]) && typeof c[k] !== "string") fail(`.${k}`, "must be a string");
  }
  const badLimit = limitProblem(c.maxConcurrentRequests);
  if (badLimit) fail(".maxConcurrentRequests", badLimit);
  for (const k of Object.keys(c)) {
    const unknown = unknownMember(k);
    if (unknown) fail(`.${k}`, unknown);
  }
  if (isUnknown(c.url)) return { serverUrl: c.url as string, failures };
  const layered = connectionSource(source, service, c);
  const names = serviceSettings(service);
  const fromConnection = text(c.url);
  const url = fromConnection ?? lookup(layered, names.url);
  const problem = url === undefined ? undefined : baseUrlProblem(url);
  if (problem) fail(".url", fromConnection ? problem : `${SETTINGS[names.url].key} / ${SETTINGS[names.url].env} ${problem}`);
  if (!isUnknown(c.token)) {
    // Without a connection the failure is the setting's, not a property's: the engine would print
    // the absent `connection.token` as the value that "has a problem".
    const given = connectionOf(news) !== undefined;
    const missing = (property: string, name: SettingName) => given
      ? fail(property, `${missingMessage(name, layered)}, or give it in the connection`)
      : failures.push({ property: "", reason: `${missingMessage(name, layered)}, or give the resource a connection` });
    if (url === undefined) missing(".url", names.url);
    if (lookup(layered, names.token) === undefined) missing(".token", names.token);
  }
  for (const reason of unknownSettings(source)) failures.push({ property: "", reason });
  // A refused URL is not recorded, not even in the inputs of a failed check: it may hold a password.
  return { serverUrl: url === undefined || problem ? "" : normaliseBaseUrl(url), failures };
}

/** The recorded server as requests use it: a string, without credentials, or undefined. */
function recordedUrl(v: unknown): string | undefined {
  const url = text(v);
  return url === undefined ? undefined : withoutCredentials(url);
}

/** Adds the connection keys to `result`, which the caller owns (a fresh copy made by the machinery). */
function withConnection(from: Props, result: Props, serverUrl: unknown): Props {
  if (from[CONNECTION_KEY] !== undefined) result[CONNECTION_KEY] = from[CONNECTION_KEY];
  if (typeof from[URN_KEY] === "string") result[URN_KEY] = from[URN_KEY];
  // serverUrl is an output that is not secret: it never carries a user name or password.
  if (typeof serverUrl === "string" && serverUrl !== "") result[SERVER_KEY] = isUnknown(serverUrl) ? serverUrl : withoutCredentials(serverUrl);
  return result;
}

/** Adds the connection keys and versions to the properties of a partial failure, so later operations find the server. */
function partial(def: ResourceDefinition, from: Props, serverUrl: unknown, e: unknown): unknown {
  const withProps = e as { properties?: Props };
  if (e instanceof Error && withProps.properties && typeof withProps.properties === "object") {
    withProps.properties = withConnection(from, carryVersions(def.fields, from, { ...withProps.properties }), serverUrl);
  }
  return e;
}

/**
 * A plain `pulumi refresh` or `destroy` hands the provider the stack config recorded at the last
 * `up`, not the current one (docs/configuration.md, "Where tokens are kept"): after a token is
 * rotated, its read and delete are refused with the old token. The provider cannot tell which
 * config it was handed, so a refusal of a token from stack config says how to use the current one.
 */
function withRecordedHint(def: ResourceDefinition, source: ConfigSource | undefined, props: Props, e: unknown): unknown {
  if (!isSvcError(e) || e.code !== "forbidden") return e;
  const service = serviceOfKind(def.kind);
  const key = SETTINGS[serviceSettings(service).token].key;
  if (originOf(connectionSource(source, service, connectionOf(props)), serviceSettings(service).token) !== `stack config ${key}`) return e;
  e.message += `; a plain pulumi refresh or destroy uses the stack config recorded at the last pulumi up: if ${key} changed since, run it with --run-program`;
  return e;
}

/** The base URL a client of this kind's service would use now, for states written before serverUrl. */
function configuredUrl(def: ResourceDefinition, source: ConfigSource | undefined, props: Props): string | undefined {
  const c = connectionOf(props);
  const url = text(c?.url) ?? lookup(source, serviceSettings(serviceOfKind(def.kind)).url);
  return url === undefined ? undefined : normaliseBaseUrl(url);
}

/**
 * The inputs a refresh records: what was read back, under the input names. After drift the next
 * preview then shows which properties an update would change (the engine lists changed keys by
 * comparing recorded inputs with the program's), instead of an update with no changed key.
 * Output-only keys are not inputs. Secret inputs (write-only values, the connection) stay secret:
 * the engine marks a returned input secret when the recorded input under that key was.
 */
function inputsAfterRead(def: ResourceDefinition, props: Props): Props {
  return omit(props, def.outputs);
}

/**
 * The inputs a read resource's id names (its path: `keymgmt/key/signing` is a key's mount and name),
 * none for an id the service assigned. The object read is the one the id names: an input the
 * program also gives must say the same, or the read fails naming it.
 */
function named(def: ResourceDefinition, id: string, given: Props): Props {
  const fromId = inputsFromPath(def, id) ?? {};
  for (const [k, v] of Object.entries(fromId)) {
    const g = given[k];
    if (g === undefined || g === null || isUnknown(g) || g === v) continue;
    throw new Error(`id ${JSON.stringify(id)} names ${k} ${JSON.stringify(v)}, the program gives ${JSON.stringify(g)}: ` +
      `a read resource reads the object its id names, so give the same ${k} or leave it out`);
  }
  return fromId;
}

/** `props` with each absent input of `def` that has a default set to it, as check fills them. */
function withDefaults(def: ResourceDefinition, props: Props): Props {
  const out: Props = { ...props };
  for (const [k, v] of Object.entries(def.defaults ?? {})) if (out[k] === undefined || out[k] === null) out[k] = v;
  return out;
}

/**
 * What a cancelled create of `def` with these inputs (as check returned them, secrets shown) may
 * have left on its server: for pulumi-svc-recover, which settles a stack's pending creates.
 */
export async function leftoversAt(def: ResourceDefinition, source: ConfigSource | undefined, props: Props): Promise<string[]> {
  registerSecrets(def.fields ?? {}, props);
  return leftoversOf(def, await contextFor(def, source, props), bare(def, props));
}

type Machinery = typeof import("./provider");

/** The context of check's reads: one try each, so a preview against a server it cannot reach goes on at once. */
async function checkContext(def: ResourceDefinition, source: ConfigSource | undefined, inputs: Props): Promise<Context> {
  // A fixed source's checks read through one such source, so that their client is found again.
  const once = source?.fixed ? onceOf.get(source, "check", () => oneTry(source)) : oneTry(source);
  return contextFor(def, once, inputs);
}

const onceOf = perFixedSource<"check", ConfigSource>();

/** The same settings with no retry. */
function oneTry(source: ConfigSource | undefined): ConfigSource {
  const once: ConfigSource = Object.assign((key: string) => (key === SETTINGS.maxRetries.key ? "0" : source?.(key)), { keys: source?.keys, origin: source?.origin, env: source?.env });
  if (source?.fixed) once.fixed = true;
  return once;
}

/** The `adoptId` a create of `def` takes over, when it has a known one. */
function adoptIdOf(m: Machinery, def: ResourceDefinition, inputs: Props): string | undefined {
  const id = m.takesOverById(def) ? inputs[ADOPT_ID] : undefined;
  return typeof id === "string" && !isUnknown(id) ? id : undefined;
}

/**
 * What check keeps, for a create (or the create of a replacement), of the objects it could be
 * confused with (src/core/leftovers.ts): the engine records it with the create's pending operation,
 * which is all that survives a killed CLI. Reads only; never fails the check. A create told to take
 * an object over by its id has none: pulumi-svc-recover takes that object whatever was there.
 */
async function recordBefore(m: Machinery, def: ResourceDefinition, source: ConfigSource | undefined, olds: Props, inputs: Props): Promise<Before | undefined> {
  if (!canLeave(def) || adoptIdOf(m, def, inputs) !== undefined) return undefined;
  const creating = Object.keys(olds).length === 0;
  if (!creating && m.diff(def, olds, stripped(def, inputs)).replaces.length === 0) return undefined;
  const ctx = await checkContext(def, source, inputs);
  return beforeCreate(def, ctx, bare(def, inputs), creating ? undefined : pathFromInputs(def, olds));
}

/**
 * A create's `adoptId` that names nothing fails the check, so the preview says so (every such
 * resource the engine gets to before it stops) rather than the up, one at a time. One read, as the
 * record above would have made.
 */
async function adoptIdFailure(m: Machinery, def: ResourceDefinition, source: ConfigSource | undefined, olds: Props, inputs: Props): Promise<CheckFailure | undefined> {
  const id = adoptIdOf(m, def, inputs);
  if (id === undefined || Object.keys(olds).length > 0) return undefined;
  const problem = await m.adoptIdProblem(def, await checkContext(def, source, inputs), id, bare(def, inputs));
  return problem === undefined ? undefined : { property: ADOPT_ID, reason: problem };
}
export type Method = "check" | "diff" | "create" | "read" | "update" | "delete";

export async function dispatch(m: Machinery, def: ResourceDefinition, source: ConfigSource | undefined,
  method: Method, args: unknown[]): Promise<unknown> {
  if (def.fields) {
    // Secret values are registered for redaction before any request that could echo them.
    for (const a of args) if (a !== null && typeof a === "object") registerSecrets(def.fields, a as Props);
    const result = await METHODS[method](m, def, source, args);
    const r = result as { outs?: Props; props?: Props } | undefined;
    registerSecrets(def.fields, r?.outs ?? r?.props);
    return result;
  }
  return METHODS[method](m, def, source, args);
}

/** Check: the machinery's check, the connection's, the secret versions, and what a create may be confused with. */
async function onCheck(m: Machinery, def: ResourceDefinition, source: ConfigSource | undefined, args: unknown[]): Promise<unknown> {
  const olds = stripped(def, (args[0] ?? {}) as Props);
  const news = args[1] as Props;
  // Not stripped of version keys: one given by the program is an unknown property, refused.
  const r = m.check(def, omit(news, CONNECTION_KEYS));
  const conn = checkConnection(def, source, news);
  const versioned = r.failures.length > 0 ? r.inputs
    : withVersions(def.fields, (args[0] ?? {}) as Props, r.inputs, (k) => m.kept(def, olds, r.inputs, k));
  const inputs = withConnection(news, versioned, conn.serverUrl);
  const failures = [...r.failures, ...conn.failures];
  if (failures.length === 0) {
    const dead = await adoptIdFailure(m, def, source, olds, inputs);
    if (dead) return { inputs, failures: [dead] };
    // An update keeps the record of the create that made the object: no change to show.
    const before = (await recordBefore(m, def, source, olds, inputs)) ?? (args[0] as Props | undefined)?.[BEFORE_KEY];
    if (before !== undefined) inputs[BEFORE_KEY] = before as Props;
  }
  return { inputs, failures };
}

/** Diff: the machinery's, holding an object taken over by id, and a replacement when the server moved. */
async function onDiff(m: Machinery, def: ResourceDefinition, source: ConfigSource | undefined, args: unknown[]): Promise<unknown> {
  const olds = args[1] as Props;
  const news = args[2] as Props;
  if (m.takesOverById(def)) hold(def.kind, olds[SERVER_KEY] ?? news[SERVER_KEY], args[0], news[URN_KEY] ?? olds[URN_KEY]);
  const d = m.diff(def, stripped(def, olds), stripped(def, news));
  const was = olds[SERVER_KEY];
  const now = news[SERVER_KEY];
  // States written before serverUrl existed have none: no spurious replacement for them. One
  // recorded with credentials (before they were refused) is the same server without them.
  const moved = typeof was === "string" && now !== undefined && (isUnknown(now) || normaliseBaseUrl(String(now)) !== withoutCredentials(was));
  if (!moved) return d;
  return { ...d, changes: true, replaces: [...d.replaces, SERVER_KEY] };
}

/** Create: a take-over by id claimed first; a failure after the server acted keeps the object (partial). */
async function onCreate(m: Machinery, def: ResourceDefinition, source: ConfigSource | undefined, args: unknown[]): Promise<unknown> {
  const news = args[0] as Props;
  const ctx = await contextFor(def, source, news);
  let inputs = bare(def, news);
  const adoptId = m.takesOverById(def) ? inputs[ADOPT_ID] : undefined;
  // A replacement of the resource that took the object over makes a new object, as any replacement does.
  if (typeof adoptId === "string" && claim(def.kind, news[SERVER_KEY], adoptId, news[URN_KEY]) === "replacement") inputs = omit(inputs, [ADOPT_ID]);
  try {
    const r = await m.create(def, ctx, inputs, news[PROVIDER_KEY]);
    if (m.takesOverById(def)) hold(def.kind, news[SERVER_KEY], r.id, news[URN_KEY]);
    return { id: r.id, outs: withConnection(news, carryVersions(def.fields, news, r.outs), news[SERVER_KEY]) };
  } catch (e) {
    throw partial(def, news, news[SERVER_KEY], e);
  }
}

/** Read, for a refresh or a read resource (`get`), which names its object by id alone. */
async function onRead(m: Machinery, def: ResourceDefinition, source: ConfigSource | undefined, args: unknown[]): Promise<unknown> {
  let props = args[1] as Props;
  const id = args[0] as string;
  const reading = props[READ_KEY] === true;
  // A read resource hands the read the program's inputs as the engine got them, never checked:
  // no serverUrl, no defaults (a path object's mount), and with `get` no inputs at all. An id
  // that is a path names the inputs the read needs; the defaults fill the rest, as check would.
  // A refresh's properties are recorded outputs, which have serverUrl (but in a state older
  // than serverUrl: filling defaults is harmless there).
  if (reading) props = { ...props, ...named(def, id, props) };
  const fromProgram = props[SERVER_KEY] === undefined;
  if (fromProgram) props = withDefaults(def, props);
  if (m.takesOverById(def) && !reading) hold(def.kind, props[SERVER_KEY], id, props[URN_KEY]);
  const r = await m.read(def, await contextFor(def, source, props), id, bare(def, props), !reading)
    .catch((e: unknown) => { throw withRecordedHint(def, source, props, e); });
  // Gone is what a refresh reports with an empty id; a read resource has nothing to stand for.
  if (r.id === "" && reading) {
    throw new Error(`there is no ${kindName(def.kind)} with the id ${id} on the server${def.confirmGone ? " (or the token cannot see it: the run service answers 404 for both)" : ""}`);
  }
  if (r.id === "") return r;
  const refreshed = withConnection(props, carryVersions(def.fields, props, r.props), props[SERVER_KEY] ?? configuredUrl(def, source, props));
  return { id: r.id, props: refreshed, inputs: inputsAfterRead(def, refreshed) };
}

/** Update, on the server the object was created on. */
async function onUpdate(m: Machinery, def: ResourceDefinition, source: ConfigSource | undefined, args: unknown[]): Promise<unknown> {
  const olds = args[1] as Props;
  const news = args[2] as Props;
  const ctx = await contextFor(def, source, { ...news, [SERVER_KEY]: olds[SERVER_KEY] ?? news[SERVER_KEY] });
  try {
    const r = await m.update(def, ctx, args[0] as string, bare(def, olds), bare(def, news), news[PROVIDER_KEY]);
    return { outs: withConnection(news, carryVersions(def.fields, news, r.outs), news[SERVER_KEY]) };
  } catch (e) {
    throw partial(def, news, news[SERVER_KEY], e);
  }
}

/** Delete, unless another resource took the object over. */
async function onDelete(m: Machinery, def: ResourceDefinition, source: ConfigSource | undefined, args: unknown[]): Promise<unknown> {
  const props = args[1] as Props;
  if (m.takesOverById(def)) {
    refuseDeleteOfTaken(def.kind, props[SERVER_KEY], args[0] as string, props[URN_KEY]);
    // A replacement on request deletes first with no diff before: its create, whose adoptId names
    // the object deleted here, must know it replaces it and make a new one.
    hold(def.kind, props[SERVER_KEY], args[0], props[URN_KEY]);
  }
  return m.remove(def, await contextFor(def, source, props), args[0] as string, bare(def, props))
    .catch((e: unknown) => { throw withRecordedHint(def, source, props, e); });
}

/** Each method's own handling, in the connection layer: one function each. */
const METHODS: Record<Method, (m: Machinery, def: ResourceDefinition, source: ConfigSource | undefined, args: unknown[]) => Promise<unknown>> = {
  check: onCheck, diff: onDiff, create: onCreate, read: onRead, update: onUpdate, delete: onDelete,
};
