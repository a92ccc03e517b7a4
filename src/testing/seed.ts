/**
 * `testStack({ seed })`: puts the objects `pulumi-svc-import --seed FILE` read into the test's
 * emulator, under their own ids, before the test runs, so that the imported program finds what its
 * `adopt` and `adoptId` take over, as on the server. Each object is written the way the provider
 * writes one (its kind's create), through the services' own APIs. What only the emulator's control
 * endpoints can make is made there first, as the kinds' declarations say: the engines mounted
 * elsewhere than their default (a field's `mount`), what a field names that no kind makes (its
 * `outside`, or its relationship's type: workspaces, users, identity entities and auth mounts,
 * directory accounts, destinations whose verifications are then recorded, not sent), and the ids
 * the services assign to the kinds taken over by `adoptId` (`/_emulator/next-ids`). Nothing here
 * names a kind, nor a field only one kind has: `mount`, `adopt`, `rotationTrigger` and
 * `latestVersion` mean the same in every kind that declares them.
 */
import * as fs from "node:fs";
import { SETTINGS, type ConfigSource } from "../core/config";
import { makeContext } from "../core/context";
import type { Context, Props, ResourceDefinition } from "../core/definition";
import type { Field, OutsideType } from "../core/fields";
import { create, takesOverById, update } from "../core/provider";
import { kindName, serviceOfKind } from "../core/token";
import type { Emulator } from "../emulator";
import type { Service } from "../http";
import { routeParams } from "../http/route";
import { SEED_FORMAT, type SeedFile, type SeedObject } from "../import/seed";
import { fieldOf, kindsInOrder } from "../import/walk";
import { kindDefinition } from "../kinds";
import { control } from "./control";

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
  await prepare(emu, ctx, seed, objects, defs);
  await control(emu, "PUT", "/next-ids", await assignedIds(emu, objects, defs, file));
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

/**
 * The ids the services assign (to the kinds taken over by `adoptId`), in the order the objects are
 * made, under the emulator's list of next ids for each kind: the list whose name, in the singular,
 * the kind's name ends with (`entityAliases` for `secrets:IdentityEntityAlias`).
 */
async function assignedIds(emu: Emulator, objects: SeedObject[], defs: Map<SeedObject, ResourceDefinition>, file: string): Promise<Record<string, string[]>> {
  const lists = Object.keys(await control<Record<string, string[]>>(emu, "GET", "/next-ids")).sort((a, b) => b.length - a.length);
  const assigned: Record<string, string[]> = {};
  for (const o of objects) {
    if (!takesOverById(defs.get(o)!)) continue;
    const name = kindName(o.kind).toLowerCase();
    const list = lists.find((l) => [l.replace(/s$/, ""), l.replace(/es$/, "")].some((one) => name.endsWith(one.toLowerCase())));
    if (list === undefined) throw new Error(`testStack: seed ${file}: ${o.kind}: the emulator gives no ids of a seed's choosing to its objects (it does to ${lists.join(", ")})`);
    (assigned[list] ??= []).push(o.id);
  }
  return assigned;
}

/** A context on the emulator with its admin and root tokens; progress lines are not the test's. */
function emulatorContext(emu: Emulator): Context {
  const values: Record<string, string> = {
    [SETTINGS.runUrl.key]: emu.runUrl, [SETTINGS.runToken.key]: emu.tokens.runAdmin,
    [SETTINGS.secretsUrl.key]: emu.secretsUrl, [SETTINGS.secretsToken.key]: emu.tokens.secretsRoot,
  };
  const source: ConfigSource = (key) => values[key];
  return { client: makeContext(source).client, log: () => {} };
}

/** The mount an object lives in: its own, or its kind's default; undefined for an object of no engine. */
function mountOf(def: ResourceDefinition, o: SeedObject): string | undefined {
  const mount = o.values.mount ?? def.fields?.mount?.default;
  return typeof mount === "string" ? mount : undefined;
}

/** What the objects name that no service API makes: the engines mounted elsewhere, then what their fields name outside the kinds. */
async function prepare(emu: Emulator, ctx: Context, seed: SeedFile, objects: SeedObject[], defs: Map<SeedObject, ResourceDefinition>): Promise<void> {
  const mounted = new Set((await control<{ mounts: { path: string }[] }>(emu, "GET", "/mounts")).mounts.map((m) => m.path));
  for (const o of objects) {
    const engine = defs.get(o)!.fields?.mount?.default;
    const mount = o.values.mount;
    if (typeof engine !== "string" || typeof mount !== "string" || mounted.has(mount)) continue;
    await control(emu, "POST", "/mounts", { path: mount, type: engine });
    mounted.add(mount);
  }
  const named = namedBy(seed, objects, defs);
  for (const [type, maker] of Object.entries(MAKERS) as [string, Maker][]) {
    const these = named.get(type) ?? [];
    if (these.length > 0 && maker.make) await maker.make(emu, ctx, these);
  }
}

/** Something an object names outside the kinds: its members (`id`, an auth mount's `path`, ...) and the mount of the object that names it. */
interface Named {
  members: Record<string, string>;
  mount?: string;
}

/**
 * What the objects' fields name outside the kinds, by its type (Field.outside, or a relationship's
 * type), and the workspaces the import was given. The fields of one object that name one thing
 * (an alias's mount accessor, path and type) give its members; each item of a list is one thing.
 */
function namedBy(seed: SeedFile, objects: SeedObject[], defs: Map<SeedObject, ResourceDefinition>): Map<string, Named[]> {
  const out = new Map<string, Named[]>([["workspaces", seed.workspaces.map((id) => ({ members: { id } }))]]);
  for (const o of objects) {
    const def = defs.get(o)!;
    const mount = mountOf(def, o);
    const own = new Map<string, Named>();
    for (const [key, f] of Object.entries(def.fields ?? {}) as [string, Field][]) {
      const type = f.outside?.type ?? f.relationship?.type;
      const value = o.values[key];
      if (type === undefined || value === undefined || value === null) continue;
      const list = out.get(type) ?? [];
      out.set(type, list);
      const member = f.outside?.member ?? "id";
      if (Array.isArray(value)) {
        list.push(...value.map((v) => ({ members: { [member]: String(v) }, mount })));
        continue;
      }
      let one = own.get(type);
      if (one === undefined) {
        one = { members: {}, mount };
        own.set(type, one);
        list.push(one);
      }
      one.members[member] = String(value);
    }
  }
  return out;
}

/** How the emulator makes one type of what the objects name outside the kinds. */
interface Maker {
  /** Makes those of `named` that it does not hold yet. */
  make?(emu: Emulator, ctx: Context, named: Named[]): Promise<void>;
  /** One for a required value the seed does not hold, in the object's mount: the emulator checks what it is given. */
  mint?(emu: Emulator, mount: string | undefined): Promise<string>;
}

/** Each id once, in order. */
const idsOf = (named: Named[]) => [...new Set(named.map((n) => n.members.id).filter((id): id is string => id !== undefined))];

/**
 * The run service's objects of JSON:API type `type` (workspaces, users) that the emulator lacks,
 * made under their own ids with `entry`. A list scoped by one (a workspace's notification
 * configurations) answers 404 for one that is missing; without such a list, every one is made.
 */
function runSeed(type: string, entry: (id: string) => object): Maker {
  return {
    async make(emu, ctx, named) {
      const scoped = await scopedList(type);
      const missing: string[] = [];
      for (const id of idsOf(named)) {
        const res = scoped && await ctx.client(scoped.service).request({ route: scoped.route, params: { [scoped.param]: id }, expect: [404] });
        if (!res || res.status === 404) missing.push(id);
      }
      if (missing.length > 0) await control(emu, "POST", "/seed", { [type]: missing.map(entry) });
    },
  };
}

/** A kind's list route whose one parameter is an object of relationship type `type`. */
async function scopedList(type: string): Promise<{ service: Service; route: string; param: string } | undefined> {
  for (const def of await kindsInOrder()) {
    const route = def.discover && "list" in def.discover ? def.discover.list : undefined;
    const params = route === undefined ? [] : routeParams(route);
    if (params.length === 1 && def.fields?.[fieldOf(def, params[0]!) ?? ""]?.relationship?.type === type) {
      return { service: serviceOfKind(def.kind), route: route!, param: params[0]! };
    }
  }
  return undefined;
}

/** The identity objects of `type` (entities, authMounts) that the emulator lacks, made by its control endpoint. */
function identity<T>(type: "entities" | "authMounts", idOf: (known: T) => string, entry: (n: Named) => object): Maker {
  return {
    async make(emu, _ctx, named) {
      const known = new Set((await control<Record<string, T[]>>(emu, "GET", "/identity"))[type]!.map(idOf));
      const missing = idsOf(named).filter((id) => !known.has(id)).map((id) => named.find((n) => n.members.id === id)!);
      if (missing.length > 0) await control(emu, "POST", "/identity", { [type]: missing.map(entry) });
    },
  };
}

/** How the emulator makes each type of what the objects name outside the kinds, in this order. */
const MAKERS: Record<OutsideType | "workspaces" | "users", Maker> = {
  workspaces: runSeed("workspaces", (id) => ({ id, name: id })),
  users: runSeed("users", (id) => ({ id, username: id })),
  // A server's destinations are out of a test's reach: the verifications of its configurations (at
  // every write of an enabled one, the seed's and the program's) are recorded, not sent.
  destinations: { make: (emu) => control(emu, "PUT", "/settings", { verifyDestinations: false }) },
  entities: identity<{ id: string }>("entities", (e) => e.id, (n) => ({ id: n.members.id, name: n.members.id })),
  authMounts: identity<{ accessor: string }>("authMounts", (m) => m.accessor,
    (n) => ({ path: n.members.path ?? n.members.id, type: n.members.type ?? "userpass", accessor: n.members.id })),
  // The real directory manages its accounts, no API of the service makes them, and the service
  // refuses a role or set whose account does not exist: they go into the emulator's built-in one.
  accounts: {
    async make(emu, _ctx, named) {
      for (const mount of new Set(named.map((n) => String(n.mount)))) {
        const known = await control<{ accounts: { name: string }[] }>(emu, "GET", `/directory?mount=${encodeURIComponent(mount)}`);
        const missing = idsOf(named.filter((n) => String(n.mount) === mount)).filter((n) => !known.accounts.some((a) => a.name === n));
        if (missing.length > 0) await control(emu, "POST", "/directory/accounts", { mount, accounts: missing });
      }
    },
  },
  // The emulator's registry takes only a management token it made itself for its access config.
  managementTokens: { mint: async (emu, mount) => (await control<{ token: string }>(emu, "POST", "/registry/tokens", { mount, type: "management" })).token },
};

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
    if (f.flags.writeOnly || f.flags.secret) inputs[k] = await standIn(f, mountOf(def, o), emu);
  }
  if (fields.adopt) inputs.adopt = true;
  const latest = Number(o.values.latestVersion ?? 1);
  const versioned = fields.rotationTrigger !== undefined && latest > 1;
  // Made at version 1 with the defaults of what may name a later version (no identity, no immutable input).
  const first = versioned ? withDefaultsOf(def, inputs) : inputs;
  const made = await create(def, ctx, first, undefined);
  if (takesOverById(def) && made.id !== o.id) throw new Error(`the emulator gave it the id ${made.id}, not its own`);
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

/** A stand-in for a required value the seed does not hold: one the emulator makes where it checks the value, any other value will do. */
async function standIn(f: Field, mount: string | undefined, emu: Emulator): Promise<string> {
  const mint = f.outside ? MAKERS[f.outside.type].mint : undefined;
  return mint ? mint(emu, mount) : PLACEHOLDER;
}
