/**
 * `testStack({ seed })`: puts the objects `pulumi-svc-import --seed FILE` read into the test's
 * emulator, under their own ids, before the test runs, so that the imported program finds what its
 * `adopt` and `adoptId` take over, as on the server. Each object is written the way the provider
 * writes one (its kind's create), through the services' own APIs; what only the emulator's control
 * endpoints can make is made there first: the workspaces, users, identity entities and auth mounts
 * the objects name, the directory's service accounts that roles and library sets name, the engines
 * mounted elsewhere than their default, and the ids the services assign (`/_emulator/next-ids`). Verifications of notification configurations are recorded, not
 * sent (their destinations are the server's).
 */
import * as fs from "node:fs";
import { SETTINGS, type ConfigSource } from "../core/config";
import { makeContext } from "../core/context";
import type { Context, Props, ResourceDefinition } from "../core/definition";
import { create, update } from "../core/provider";
import type { Emulator } from "../emulator";
import { SEED_FORMAT, type SeedFile, type SeedObject } from "../import/seed";
import { kindsInOrder } from "../import/walk";
import { kindDefinition } from "../kinds";

/** What stands for a required value the seed does not hold (write-only, or a secret): the program's config gives the real one on its first `up`. */
const PLACEHOLDER = "seeded-by-pulumi-svc-testing";

/** A seed file's objects, checked: the one line of a file that is not one names it. */
export function readSeed(file: string): SeedFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`testStack: seed ${file}: ${(e as Error).message}`);
  }
  const seed = parsed as Partial<SeedFile>;
  if (seed?.format !== SEED_FORMAT || !Array.isArray(seed.objects) || !Array.isArray(seed.workspaces)) {
    throw new Error(`testStack: seed ${file} is not a file pulumi-svc-import --seed wrote (its format is "${SEED_FORMAT}")`);
  }
  return seed as SeedFile;
}

/** Every object of the seed in `emu`, in an order where each comes after those it names. */
export async function seedEmulator(emu: Emulator, seed: SeedFile, file: string): Promise<void> {
  const defs = new Map<SeedObject, ResourceDefinition>();
  for (const o of seed.objects) {
    const def = await kindDefinition(o.kind);
    if (!def) throw new Error(`testStack: seed ${file}: ${o.kind} is no kind of this version of pulumi-svc`);
    defs.set(o, def);
  }
  const order = (await kindsInOrder()).map((d) => d.kind);
  const objects = [...seed.objects].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  const ctx = emulatorContext(emu);
  await prepare(emu, seed, objects, defs);
  // The ids the services assign, in the order the objects are made.
  const assigned: Record<string, string[]> = {};
  for (const o of objects) {
    const list = ASSIGNED[o.kind];
    if (list) (assigned[list] ??= []).push(o.id);
  }
  await control(emu, "PUT", "/next-ids", assigned);
  try {
    for (const o of objects) {
      try {
        await write(ctx, defs.get(o)!, o, emu);
      } catch (e) {
        throw new Error(`testStack: seed ${file}: ${o.kind} ${o.id}: ${(e as Error).message}`);
      }
    }
  } finally {
    await control(emu, "DELETE", "/next-ids");
  }
}

/** The emulator's kinds whose ids the services assign, by the kind of the objects. */
const ASSIGNED: Record<string, string> = {
  "runs:NotificationConfiguration": "notificationConfigurations",
  "secrets:IdentityEntityAlias": "entityAliases",
  "secrets:MfaDualFactorMethod": "dualFactorMethods",
};

/** A context on the emulator with its admin and root tokens; progress lines are not the test's. */
function emulatorContext(emu: Emulator): Context {
  const values: Record<string, string> = {
    [SETTINGS.runUrl.key]: emu.runUrl, [SETTINGS.runToken.key]: emu.tokens.runAdmin,
    [SETTINGS.secretsUrl.key]: emu.secretsUrl, [SETTINGS.secretsToken.key]: emu.tokens.secretsRoot,
  };
  const source: ConfigSource = (key) => values[key];
  return { client: makeContext(source).client, log: () => {} };
}

/** What the objects name that no service API makes: mounts, workspaces, users, entities, auth mounts, directory accounts. */
async function prepare(emu: Emulator, seed: SeedFile, objects: SeedObject[], defs: Map<SeedObject, ResourceDefinition>): Promise<void> {
  const mounted = new Set((await control<{ mounts: { path: string }[] }>(emu, "GET", "/mounts")).mounts.map((m) => m.path));
  for (const o of objects) {
    const engine = defs.get(o)!.fields?.mount?.default;
    const mount = o.values.mount;
    if (typeof engine !== "string" || typeof mount !== "string" || mounted.has(mount)) continue;
    await control(emu, "POST", "/mounts", { path: mount, type: engine });
    mounted.add(mount);
  }
  await prepareRuns(emu, seed, objects);
  await prepareIdentity(emu, objects);
  await prepareDirectory(emu, objects, defs);
}

/** The workspaces and email users the notification configurations name. */
async function prepareRuns(emu: Emulator, seed: SeedFile, objects: SeedObject[]): Promise<void> {
  const hooks = objects.filter((o) => o.kind === "runs:NotificationConfiguration");
  const workspaces = [...new Set([...seed.workspaces, ...hooks.map((o) => String(o.values.workspaceId))])];
  const missing: string[] = [];
  for (const id of workspaces) {
    const res = await fetch(`${emu.runUrl}/workspaces/${encodeURIComponent(id)}/notification-configurations`, { headers: { authorization: `Bearer ${emu.tokens.runAdmin}` } });
    await res.arrayBuffer();
    if (res.status === 404) missing.push(id);
  }
  // A server's configurations point at its destinations, which a test cannot reach: their
  // verifications (at every write of an enabled one, the seed's and the program's) are not sent.
  if (hooks.some((o) => typeof o.values.url === "string")) await control(emu, "PUT", "/settings", { verifyDestinations: false });
  const users = [...new Set(hooks.flatMap((o) => (Array.isArray(o.values.emailUsers) ? o.values.emailUsers.map(String) : [])))];
  if (missing.length > 0 || users.length > 0) {
    await control(emu, "POST", "/seed", { workspaces: missing.map((id) => ({ id, name: id })), users: users.map((id) => ({ id, username: id })) });
  }
}

/** The identity entities and auth mounts the entity aliases name. */
async function prepareIdentity(emu: Emulator, objects: SeedObject[]): Promise<void> {
  const aliases = objects.filter((o) => o.kind === "secrets:IdentityEntityAlias");
  if (aliases.length > 0) {
    const known = await control<{ entities: { id: string }[]; authMounts: { accessor: string }[] }>(emu, "GET", "/identity");
    const entities = new Set(known.entities.map((e) => e.id));
    const accessors = new Set(known.authMounts.map((m) => m.accessor));
    const add = { entities: [] as { id: string; name: string }[], authMounts: [] as { path: string; type: string; accessor: string }[] };
    for (const { values: v } of aliases) {
      const entity = String(v.canonicalId);
      if (!entities.has(entity)) add.entities.push({ id: entity, name: entity });
      entities.add(entity);
      const accessor = String(v.mountAccessor);
      if (!accessors.has(accessor)) add.authMounts.push({ path: String(v.mountPath ?? accessor), type: String(v.mountType ?? "userpass"), accessor });
      accessors.add(accessor);
    }
    if (add.entities.length > 0 || add.authMounts.length > 0) await control(emu, "POST", "/identity", add);
  }
}

/** The directory objects that name service accounts, and the input that names them. */
const ACCOUNTS: Record<string, string> = {
  "secrets:DirectoryRole": "serviceAccountName",
  "secrets:DirectoryLibrarySet": "serviceAccountNames",
};

/**
 * The service accounts roles and library sets name, in the emulator's built-in directory of their
 * mount: the real directory manages them, no API of the service makes them, and the service
 * refuses a role or set whose account does not exist. An account there already is left as it is.
 */
async function prepareDirectory(emu: Emulator, objects: SeedObject[], defs: Map<SeedObject, ResourceDefinition>): Promise<void> {
  const byMount = new Map<string, Set<string>>();
  for (const o of objects) {
    const input = ACCOUNTS[o.kind];
    if (!input) continue;
    const mount = String(o.values.mount ?? defs.get(o)!.fields?.mount?.default);
    const named = ([] as unknown[]).concat(o.values[input] ?? []).map(String);
    byMount.set(mount, new Set([...(byMount.get(mount) ?? []), ...named]));
  }
  for (const [mount, names] of byMount) {
    const known = await control<{ accounts: { name: string }[] }>(emu, "GET", `/directory?mount=${encodeURIComponent(mount)}`);
    const missing = [...names].filter((n) => !known.accounts.some((a) => a.name === n));
    if (missing.length > 0) await control(emu, "POST", "/directory/accounts", { mount, accounts: missing });
  }
}

/**
 * Writes one object as the provider creates one. A versioned object (a key, a tokenization key) is
 * made at version 1 and rotated to the version the server reported, and only then given the
 * values that may name a later version (`minEnabledVersion`).
 */
async function write(ctx: Context, def: ResourceDefinition, o: SeedObject, emu: Emulator): Promise<void> {
  const fields = def.fields ?? {};
  const inputs: Props = { ...(def.defaults ?? {}), ...o.values };
  for (const [k, f] of Object.entries(fields)) {
    if (inputs[k] !== undefined || f.flags.optional || f.flags.output || f.flags.local || f.default !== undefined) continue;
    // A required value the seed does not hold: one the servers never return (a password), or a secret
    // the import leaves out (a dual-factor method's keys). The program's config gives the real one.
    if (f.flags.writeOnly || f.flags.secret) inputs[k] = await placeholder(def, k, o, emu);
  }
  if (fields.adopt) inputs.adopt = true;
  const latest = Number(o.values.latestVersion ?? 1);
  const versioned = fields.rotationTrigger !== undefined && latest > 1;
  // Made at version 1 with the defaults of what may name a later version (no identity, no immutable input).
  const first = versioned ? withDefaultsOf(def, inputs) : inputs;
  const made = await create(def, ctx, first, undefined);
  if (ASSIGNED[def.kind] && made.id !== o.id) throw new Error(`the emulator gave it the id ${made.id}, not its own`);
  if (!versioned) return;
  let outs = made.outs;
  for (let v = 2; v <= latest; v++) outs = (await update(def, ctx, made.id, outs, { ...first, rotationTrigger: `seed-${v}` }, undefined)).outs;
  await update(def, ctx, made.id, outs, { ...inputs, rotationTrigger: `seed-${latest}` }, undefined);
}

/** `inputs` with every input that has a default and names no object (not identity, not immutable) at its default. */
function withDefaultsOf(def: ResourceDefinition, inputs: Props): Props {
  const fixed = new Set<string>([...(def.identity ?? []), ...(def.immutable ?? [])]);
  const out: Props = { ...inputs };
  for (const [k, v] of Object.entries(def.defaults ?? {})) if (!fixed.has(k)) out[k] = v;
  return out;
}

/**
 * A stand-in for a required write-only value. The emulator's registry takes only a management
 * token it made itself for its access config, so one is made there; any other value will do.
 */
async function placeholder(def: ResourceDefinition, key: string, o: SeedObject, emu: Emulator): Promise<string> {
  if (def.kind === "secrets:RegistryAccessConfig" && key === "token") {
    return (await control<{ token: string }>(emu, "POST", "/registry/tokens", { mount: o.values.mount, type: "management" })).token;
  }
  return PLACEHOLDER;
}

/** A control request; a refusal throws with the emulator's message. */
async function control<T = unknown>(emu: Emulator, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (emu.controlToken) headers["x-emulator-control-token"] = emu.controlToken;
  const res = await fetch(`${emu.controlUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`emulator control ${method} ${path}: ${res.status} ${text.trim()}`);
  return (text ? JSON.parse(text) : undefined) as T;
}
