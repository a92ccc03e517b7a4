/**
 * One declaration per field. An object file lists its fields once, each with its type (a zod schema
 * built at call time), its flags and, as TSDoc above it, its doc:
 *
 * ```ts
 * export const templateFields = {
 *   /** Name of the template; part of its path, so changing it replaces the template. *\/
 *   name: field(transformName, { identity: true }),
 *   /** Regular expression with at least one capture group. *\/
 *   pattern: field(patternType),
 * };
 * ```
 *
 * Everything else is derived from that record: the input schema and the check of unknown
 * properties, the definition's key lists (defaults, sets, immutable, identity, secrets, write-only,
 * local, outputs), the default request body and response decoding, the redaction of secret values,
 * the public Args and output types with each field's doc on hover (mapped types keep the link to
 * the declaration), and the reference pages.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { registerOwnName, registerOwnWords, registerSecret, registerSecretField } from "../http/redact";
import { isUnknown } from "./unknown";
import type { SecretVersions } from "./secretVersions";
import type { Props } from "./props";
import type { Schema } from "./validate";
import { zod } from "./zod";

/** Flags of a field; each one is a fact about the field, stated once. */
export interface FieldFlags {
  /** The input may be omitted (no default: the server's, or none). */
  optional?: true;
  /** Part of the object's path on the server: changing it replaces the object, deleting first. */
  identity?: true;
  /** Changing it replaces the object. */
  immutable?: true;
  /** Kept secret in state, redacted from every message by value and by field name. */
  secret?: true;
  /** Sent, never returned by the server: state keeps the program's value. */
  writeOnly?: true;
  /** Steers the provider only: never sent, never a reason to update. */
  local?: true;
  /** A list compared as a set (sorted and de-duplicated by check). */
  set?: true;
  /** Set by the server only; not an input. */
  output?: true;
  /**
   * Left out of the record's request body: never sent (it steers the resource, as a primary's
   * `disableOnDelete`, or only acknowledges, as a secondary's `acknowledgeDataWipe`), or sent by the
   * definition itself where the body needs more than the value (a directory's bind password only
   * with a change).
   */
  notInBody?: true;
  /** Type-only: the field has a default (so the input may be omitted and the output is always set). */
  hasDefault?: true;
}

/** The zod schema of a field, as validation sees it (zod's types stay out of public declarations). */
export type TypeBuilder = () => Schema;

/** The names of the flags a field has (a union such as `"identity" | "hasDefault"`), for the derived types. */
export type FlagName = keyof FieldFlags;

export interface Field<T = unknown, F extends FlagName = FlagName> {
  /** Built at call time and memoised by the record: a zod schema must never be captured by a provider. */
  readonly type?: TypeBuilder;
  readonly flags: FieldFlags;
  /** Name on the wire when it is not the field's name in the service's case (snake or kebab). */
  readonly wire?: string;
  /** Filled in by check when the input is absent, so an omitted default is no perpetual diff. */
  readonly default?: T;
  /**
   * The fields of each element of a list of records (or of a record), for the parts of a value that
   * are secret: `batchInput` items whose `value` is, beside names that must stay readable in messages.
   */
  readonly of?: Fields;
  /**
   * Kinds (`secrets:TransformTemplate`) whose objects this field names, in the same mount: the
   * import writes such a value as a reference to that object's resource, so the engine orders them.
   * Unless the field says where this object lives (an identity input or a path parameter: a role's
   * mount), this object is a user of those it names, which are not deleted while it names them
   * (src/core/relations.ts).
   */
  readonly refers?: readonly string[];
  /**
   * Of a field that `refers`: what this object holds or makes depends on the object named (values
   * an FPE transformation encoded decode only through its template), so a change of that object
   * puts them at risk; a masking transformation names a template without depending on it (its
   * values are never decoded). The review counts only such a user of an object whose risk holds
   * while it is used (Risk.whileUsed); the delete guard counts every user (src/core/relations.ts).
   */
  readonly dependent?: true;
  /**
   * Of a field that `refers`: the member a read reports the value under, where it is not the
   * field's wire name (a transformation's `template` is read back in a `templates` list). The
   * delete guard of the objects named looks for their names there.
   */
  readonly readAs?: string;
  /**
   * Inputs whose values decide whether the object uses this field at all (a notification token
   * signs generic payloads only): the import asks for no value an object cannot use, and a
   * run-service object has such a relationship only then (an email configuration's users: it is
   * neither sent, read nor compared otherwise; src/runs/serviceObject.ts).
   */
  readonly usedOnlyIf?: Readonly<Record<string, readonly unknown[]>>;
  /**
   * Of the run service's JSON:API objects: the relationship that carries the field (its ids), never
   * an attribute. A list is a to-many relationship. src/runs/jsonapi.ts reads and writes it.
   */
  readonly relationship?: Relationship;
  /** An object no kind of this package makes that the value names (see Outside). */
  readonly outside?: Outside;
  /** Type-only: the field's value type and flags. */
  readonly __value?: T;
  readonly __flags?: F;
}

/** A JSON:API relationship: its name in the object's `relationships`, and the type of the objects it names. */
export interface Relationship {
  name: string;
  type: string;
}

/**
 * What a value may name that no kind of this package makes, and that the service will not take a
 * value naming none of: an identity entity, an authentication mount, an account of the directory
 * an engine manages (in the object's mount), a management token of the registry (in the object's
 * mount), a destination the service sends requests to. A run service field says it by its
 * relationship's type instead (`workspaces`, `users`). pulumi-svc/testing makes each in its
 * emulator before it puts in an object that names one (src/testing/seed.ts).
 */
export type OutsideType = "entities" | "authMounts" | "accounts" | "managementTokens" | "destinations";

/** An object outside this package's kinds that a field names (Field.outside). */
export interface Outside {
  type: OutsideType;
  /**
   * Which of the object's members the value is, where several fields describe one object (an auth
   * mount's accessor, path and type); by default `id`, what the object is known by.
   */
  member?: string;
}

const outsideOf = (o: OutsideType | Outside | undefined) => (o === undefined ? {} : { outside: typeof o === "string" ? { type: o } : o });

type Options<T> = Omit<FieldFlags, "output" | "hasDefault"> & {
  /** The JSON:API relationship that carries the field (see Field.relationship). */
  relationship?: Relationship;
  wire?: string;
  default?: T;
  /** Sent when the input is absent, so removing it from the program clears it on the server (writes are upserts). */
  absent?: unknown;
  /** State → wire, when they differ. */
  encode?(value: T): unknown;
  /** Wire → state, when they differ; `prior` is the value known before (to keep its form). */
  decode?(wire: unknown, prior: T | undefined): T | undefined;
  /**
   * Of a secret field, what to register for redaction when that is more than the value itself: the
   * value part of a `KEY=value` entry can appear in a message without its key. Any input may come
   * in (check sees unvalidated values), so it must not assume the field's type.
   */
  redact?(value: unknown): unknown;
  /** The fields of each element (a list of records) or of the value (a record); see Field.of. */
  of?: Fields;
  /** Of a secret map, the wire names of its members (a credentials map's `secret_key`), masked wherever a server echoes them. */
  members?: readonly string[];
  /** The kinds whose objects the value names (see Field.refers). */
  refers?: string | readonly string[];
  /** What this object holds depends on the objects named (see Field.dependent). */
  dependent?: true;
  /** The member a read reports the value under (see Field.readAs). */
  readAs?: string;
  /** The input values under which the object uses the field (see Field.usedOnlyIf). */
  usedOnlyIf?: Readonly<Record<string, readonly unknown[]>>;
  /** What the value names that no kind makes (see Field.outside). */
  outside?: OutsideType | Outside;
};

type NamesOf<F> = { [K in keyof F]: K extends FlagName ? (F[K] extends true ? K : never) : K extends "default" ? "hasDefault" : never }[keyof F];

/** @internal An input field; its value type comes from its zod schema. */
export function field<T, const F extends Options<T> = {}>(type: () => z.ZodType<T>,
  flags?: F): Field<T, NamesOf<F>> {
  const { wire, default: dflt, absent, encode, decode, redact, of, members, refers, dependent, readAs, usedOnlyIf, relationship, outside, ...rest } = (flags ?? {}) as Options<T>;
  return {
    ...outsideOf(outside),
    type: type as unknown as TypeBuilder, flags: rest as never, ...(of ? { of } : {}), ...(relationship ? { relationship } : {}),
    ...(wire !== undefined ? { wire } : {}), ...(dflt !== undefined ? { default: dflt } : {}),
    ...(absent !== undefined ? { absent } : {}), ...(encode ? { encode } : {}), ...(decode ? { decode } : {}),
    ...(redact ? { redact } : {}), ...(members ? { members } : {}), ...(usedOnlyIf ? { usedOnlyIf } : {}),
    ...(refers !== undefined ? { refers: typeof refers === "string" ? [refers] : refers } : {}),
    ...(dependent ? { dependent } : {}), ...(readAs !== undefined ? { readAs } : {}),
  };
}

interface OutputOptions<T> {
  wire?: string;
  /** The JSON:API relationship that carries the field (see Field.relationship). */
  relationship?: Relationship;
  secret?: true;
  /** What a read reports when the service leaves the field out (a blank: `false`, `""`, `[]`). */
  default?: T;
  /** Wire → state, when they differ. */
  decode?(wire: unknown, prior: T | undefined): T | undefined;
  /** What the value names that no kind makes (see Field.outside). */
  outside?: OutsideType | Outside;
}

/**
 * @internal An output-only field, set by the server: `output<number>({ wire: "latest_version" })`.
 * With `optional: true` it may be absent (a function's result leaves it out, a class's output is
 * `T | undefined`); an overload, because a flags parameter cannot be inferred beside a written-out T.
 */
export function output<T>(opts: OutputOptions<T> & { optional: true }): Field<T, "output" | "optional">;
export function output<T>(opts?: OutputOptions<T>): Field<T, "output">;
export function output<T>(opts: OutputOptions<T> & { optional?: true } = {}): Field<T, "output" | "optional"> {
  const { wire, decode, default: dflt, relationship, outside, ...rest } = opts;
  return {
    ...outsideOf(outside),
    flags: { output: true, ...rest }, ...(wire !== undefined ? { wire } : {}), ...(decode ? { decode } : {}), ...(relationship ? { relationship } : {}),
    ...(dflt !== undefined ? { default: dflt } : {}),
  } as Field<T, "output">;
}

export type Fields = Record<string, Field<any, FlagName>>;

// ---- the read side: what a service reports ----

/**
 * @internal A text the service reports: itself, and "" when the service leaves it out or sends
 * something that is no text (a read's fields are always there; a malformed one reads as blank).
 */
export function reportedText(): Field<string, "output"> {
  return output<string>({ default: "", decode: asText });
}

/** What a reported text reads (not internal: the declarations of the read kinds name it): a text as it is, anything else as "". */
export function asText(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/**
 * @internal An output that is a record of its own fields (a run's `actions`), or with `list` a list
 * of such records (a primary's `secondaries`): each decoded by its record, anything that is not a
 * record read as the record's blank (and anything that is not a list as an empty list).
 */
export function nested<R extends Fields>(fields: R, opts: FieldSetOptions & { list: true }): Field<ReadOf<R>[], "output">;
export function nested<R extends Fields>(fields: R, opts?: FieldSetOptions): Field<ReadOf<R>, "output">;
export function nested<R extends Fields>(fields: R, opts: FieldSetOptions & { list?: true } = {}): Field<ReadOf<R> | ReadOf<R>[], "output"> {
  const { list, ...setOptions } = opts;
  const set = fieldSet(fields, setOptions);
  const one = (v: unknown) => set.decode(v !== null && typeof v === "object" && !Array.isArray(v) ? v as Record<string, unknown> : {}, {}) as ReadOf<R>;
  return list
    ? output<ReadOf<R>[]>({ default: [], decode: (v) => (Array.isArray(v) ? v.map(one) : []) })
    : output<ReadOf<R>>({ default: one({}), decode: one });
}

/** How a read reports a field: its blank where the service leaves it out (the field is then always there), and its decoding. */
export interface ReadRule<T = unknown> {
  default?: T;
  decode?(wire: unknown, prior: unknown): T | undefined;
}

/** A field as a read reports it: its type (or the blank's, when wider), always there with a blank, else optional. */
type Reported<F, Rule> = Rule extends { default: infer D }
  ? Field<[ValueOf<F>] extends [D] ? D : ValueOf<F> | D, "output">
  : Field<ValueOf<F>, "output" | "optional">;

/** The fields of `R` that `U` has a rule for, as a read reports them (see `reported`), in R's order and with R's docs. */
export type ReportedFields<R extends Fields, U> = { [K in keyof R as K extends keyof U ? K : never]: Reported<R[K], K extends keyof U ? U[K] : never> };

/**
 * @internal The fields of another record that `rules` names (a resource's, a create's) as a read
 * reports them: each an output of the same type and doc (and wire name and relationship), decoded
 * by its rule; a field whose rule gives a blank is always there, any other (`{}`) may be absent.
 * The record's own flags (identity, sets kept sorted, the defaults check fills in) say what a
 * program gives, not what a read says.
 */
export function reported<R extends Fields, U extends { [K in keyof R]?: ReadRule }>(fields: R, rules: U): ReportedFields<R, U> {
  const out: Record<string, Field> = {};
  for (const k in fields) {
    const f = fields[k]!;
    const rule: ReadRule | undefined = rules[k];
    if (rule === undefined) continue;
    const blank = "default" in rule;
    out[k] = output({
      ...(f.wire !== undefined ? { wire: f.wire } : {}), ...(f.relationship ? { relationship: f.relationship } : {}),
      ...(rule.decode ? { decode: rule.decode } : {}), ...(blank ? { default: rule.default } : { optional: true as const }),
    } as OutputOptions<unknown> & { optional: true }) as Field;
  }
  return out as ReportedFields<R, U>;
}

// ---- types derived from a record ----

type ValueOf<F> = F extends Field<infer T, FlagName> ? T : never;
type FlagsOf<F> = F extends Field<unknown, infer G> ? G : never;
type Has<F, K extends FlagName> = K extends FlagsOf<F> ? true : false;

/** A value a program may give: an Input at every level, as Pulumi programs pass Outputs anywhere. */
export type InputOf<T> = [T] extends [string | number | boolean | null | undefined] ? pulumi.Input<T>
  : [T] extends [ReadonlyArray<infer E>] ? pulumi.Input<InputOf<E>[]>
  : [T] extends [object] ? pulumi.Input<{ [K in keyof T]: InputOf<T[K]> }>
  : pulumi.Input<T>;

type IsInput<F> = Has<F, "output"> extends true ? false : true;
type Omittable<F> = Has<F, "optional"> extends true ? true : Has<F, "hasDefault"> extends true ? true : Has<F, "local"> extends true ? true : false;

/** The arguments of a resource class: every input field, each with its doc. */
export type ArgsOf<R extends Fields> =
  { [K in keyof R as IsInput<R[K]> extends true ? (Omittable<R[K]> extends true ? never : K) : never]: InputOf<ValueOf<R[K]>> }
  & { [K in keyof R as IsInput<R[K]> extends true ? (Omittable<R[K]> extends true ? K : never) : never]?: InputOf<ValueOf<R[K]>> };

type Maybe<F> = Has<F, "optional"> extends true ? undefined : Has<F, "output"> extends true ? (Has<F, "optional"> extends true ? undefined : never) : never;

/**
 * The outputs of a resource class (every field but the local ones), each with its doc. `Also` names
 * local fields the class exposes all the same (they are in state), where it always has.
 */
export type OutputsOf<R extends Fields, Also extends keyof R = never> = {
  readonly [K in keyof R as Has<R[K], "local"> extends true ? (K extends Also ? K : never) : K]: pulumi.Output<ValueOf<R[K]> | Maybe<R[K]>>;
} & VersionsOf<R>;

type SecretInput<F> = Has<F, "secret"> extends true ? (Has<F, "output"> extends true ? false : true) : false;

/**
 * The version outputs of a record's secret inputs: `token` → `tokenVersion`, each with its doc from
 * SecretVersions (written by `npm run docs` from the records).
 */
export type VersionsOf<R extends Fields> = Pick<SecretVersions, Extract<{ [K in keyof R & string]: SecretInput<R[K]> extends true ? `${K}Version` : never }[keyof R & string], keyof SecretVersions>>;

type Loose<F> = Has<F, "optional"> extends true ? true : Has<F, "local"> extends true ? true : Has<F, "output"> extends true ? true : false;

/** The plain arguments of a function made of fields: required unless optional or defaulted. */
export type PlainArgsOf<R extends Fields> =
  { [K in keyof R as IsInput<R[K]> extends true ? (Omittable<R[K]> extends true ? never : K) : never]: ValueOf<R[K]> }
  & { [K in keyof R as IsInput<R[K]> extends true ? (Omittable<R[K]> extends true ? K : never) : never]?: ValueOf<R[K]> };

/** What a read reports: every field but the local and write-only ones, each always present. */
export type InfoOf<R extends Fields> = {
  [K in keyof R as Has<R[K], "local"> extends true ? never : Has<R[K], "writeOnly"> extends true ? never : K]: ValueOf<R[K]> | Maybe<R[K]>;
};

/**
 * What a function answers, as a record of output fields: like InfoOf, but an optional field may be
 * left out of the object (a result built without it still type-checks).
 */
export type ResultOf<R extends Fields> =
  { [K in keyof R as Has<R[K], "local"> extends true ? never : Has<R[K], "writeOnly"> extends true ? never : Has<R[K], "optional"> extends true ? never : K]: ValueOf<R[K]> }
  & { [K in keyof R as Has<R[K], "local"> extends true ? never : Has<R[K], "writeOnly"> extends true ? never : Has<R[K], "optional"> extends true ? K : never]?: ValueOf<R[K]> };

/**
 * What a read reports, in the record's order (ResultOf lists the optional fields last): every field
 * but the local and write-only ones, an optional one possibly left out. An intersection whose first
 * part names every field (optional) fixes the order; its second makes the others required.
 */
export type ReadOf<R extends Fields> =
  { [K in keyof R as Has<R[K], "local"> extends true ? never : Has<R[K], "writeOnly"> extends true ? never : K]?: ValueOf<R[K]> }
  & { [K in keyof R as Has<R[K], "local"> extends true ? never : Has<R[K], "writeOnly"> extends true ? never : Has<R[K], "optional"> extends true ? never : K]-?: ValueOf<R[K]> };

/**
 * What a read reports of an object whose service gives every field, an unset one as its blank
 * (`""`, `{}`): InfoOf without `undefined`, for a function result that carries the blanks.
 */
export type ReportedOf<R extends Fields> = { [K in keyof InfoOf<R>]: Exclude<InfoOf<R>[K], undefined> };

/** Plain values of every field, as the provider sees inputs after check (defaults filled in) and state. */
export type StateOf<R extends Fields> =
  { [K in keyof R as Loose<R[K]> extends true ? never : K]: ValueOf<R[K]> }
  & { [K in keyof R as Loose<R[K]> extends true ? K : never]?: ValueOf<R[K]> }
  & Props;

// ---- what the machinery derives ----

/**
 * A record with everything derived from it. Definitions spread it in (schema, defaults and the key
 * lists are ResourceDefinition's own members) and use `body` and `decode` for the wire.
 */
export interface FieldSet<R extends Fields = Fields> {
  fields: R;
  schema(): Schema;
  /** Input fields, in declaration order. */
  inputs: string[];
  defaults: Props;
  sets: string[];
  immutable: string[];
  identity: string[];
  secrets: string[];
  writeOnly: string[];
  local: string[];
  outputs: string[];
  /** Fields carried by a JSON:API relationship, never an attribute (Field.relationship). */
  relationships: string[];
  /** Field name → wire name, for every field but the local ones. */
  wire: Record<string, string>;
  /**
   * The request body of a write: every input field but the local ones, those left out of the body
   * (`notInBody`), the relationships, and those in `skip` (path parameters).
   */
  body(p: Props, skip?: readonly string[]): Record<string, unknown>;
  /**
   * Server `data` → state under the field names. A field the server did not send keeps the value
   * known before (a seed-only server leaves fields out); write-only and local fields always do.
   */
  decode(data: Record<string, unknown>, prior: Props): Props;
}

/** What a cross-field rule may do: report a problem at a property (zod's refinement context has this shape). */
export interface RuleContext {
  addIssue(issue: { code: "custom"; message: string; path?: PropertyKey[] }): void;
}

export interface FieldSetOptions {
  /** How field names are spelt on the wire: snake_case (secrets service) or kebab-case (run service's JSON:API). */
  case?: "snake" | "kebab";
  /** Cross-field rules of the object (required-when, mutually exclusive), added to the input schema. */
  refine?(value: any, ctx: RuleContext): void;
}

/** A field's name in snake_case (`workspaceId` → `workspace_id`), as the secrets service and route parameters spell it. */
export const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const kebab = (k: string) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** A builder memoised per process: the many copies of `let schema; schema ??=` in one place. */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}

/*
 * Object-level rules (required-when, mutually exclusive fields) run even when a field already
 * failed, so check reports every failure in one pass instead of one round per fix. A field of the
 * wrong type has its own failure; a rule that trips over it says nothing more. Kept in this module:
 * in one of its own they cost every host's first check a module load, though few records have rules.
 */

/** @internal zod's `when` for a rule: run whenever the value is an object, whatever its fields said. */
export const CROSS_FIELD = { when: (payload: { value: unknown }) => typeof payload.value === "object" && payload.value !== null };

/** @internal A rule that says nothing when it trips over a field of the wrong type (reported by the field's own schema). */
export function crossField<T>(rule: (value: T, ctx: z.RefinementCtx<T>) => void): (value: T, ctx: z.RefinementCtx<T>) => void {
  return (value, ctx) => {
    try {
      rule(value, ctx);
    } catch {
      // The field that made the rule throw is already reported by its own schema.
    }
  };
}

/** @internal Derives schema, lists and wire mapping from a record. */
export function fieldSet<R extends Fields>(fields: R, opts: FieldSetOptions = {}): FieldSet<R> {
  const set: FieldSet<R> = {
    fields,
    schema: lazy(() => inputSchema(set, opts)),
    inputs: [], defaults: {}, sets: [], immutable: [], identity: [], secrets: [], writeOnly: [], local: [], outputs: [], relationships: [], wire: {},
    body: (p, skip = []) => bodyOf(set, p, skip),
    decode: (data, prior) => decodeOf(set, data, prior),
  };
  const wireOf = opts.case === "kebab" ? kebab : snake;
  for (const k in fields) {
    const f = fields[k]!;
    const flags = f.flags as FieldFlags;
    if (flags.output) set.outputs.push(k);
    else set.inputs.push(k);
    // An output's default is what a read reports, never an input check fills in.
    if (f.default !== undefined && !flags.output) set.defaults[k] = f.default;
    if (flags.set) set.sets.push(k);
    if (flags.identity) set.identity.push(k);
    if (flags.identity || flags.immutable) set.immutable.push(k);
    if (flags.secret) {
      set.secrets.push(k);
      registerSecretNames(k, f);
    }
    if (flags.writeOnly) set.writeOnly.push(k);
    if (f.relationship) set.relationships.push(k);
    if (flags.local) set.local.push(k);
    else set.wire[k] = f.wire ?? wireOf(k);
  }
  // A field's name in a message is never a piece of a secret that happens to contain it.
  registerOwnWords([...Object.keys(fields), ...Object.values(set.wire)]);
  return set;
}

/** The strict input schema of a record's inputs, with its cross-field rules. */
function inputSchema(set: FieldSet, opts: FieldSetOptions): Schema {
  const shape: Record<string, z.ZodType> = {};
  for (const k of set.inputs) {
    const f = set.fields[k]!;
    const s = f.type!() as unknown as z.ZodType;
    shape[k] = f.flags.optional || f.flags.local || f.default !== undefined ? s.optional() : s;
  }
  // Strict: a misspelt property is refused at check (naming the nearest known one), never stored.
  const object = zod().strictObject(shape);
  return (opts.refine ? object.superRefine(crossField(opts.refine as (v: unknown, ctx: z.RefinementCtx<unknown>) => void), CROSS_FIELD) : object) as unknown as Schema;
}

/** FieldSet.body: every input field given, by its wire name and encoded, but the local ones and `skip`. */
function bodyOf(set: FieldSet, p: Props, skip: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of set.inputs) {
    const f = set.fields[k] as Field & Codec;
    if (f.flags.local || f.flags.notInBody || f.relationship || skip.includes(k)) continue;
    if (p[k] === undefined || p[k] === null) {
      if (f.absent !== undefined) out[set.wire[k]!] = f.absent;
      continue;
    }
    out[set.wire[k]!] = f.encode ? f.encode(p[k]) : p[k];
  }
  return out;
}

/** FieldSet.decode: each field from the server's data by its wire name, else as known before. */
function decodeOf(set: FieldSet, data: Record<string, unknown>, prior: Props): Props {
  const out: Props = {};
  for (const k in set.fields) {
    const f = set.fields[k] as Field & Codec;
    let v: unknown;
    if (f.flags.local || f.flags.writeOnly) v = prior[k];
    else {
      const raw = data[set.wire[k]!];
      // Absent from the answer: the value known before, else the field's default (a copy: the
      // caller may change what it is given).
      v = raw === undefined || raw === null ? prior[k] ?? copy(f.default) : f.decode ? f.decode(raw, prior[k]) : raw;
      if (f.flags.set && Array.isArray(v)) v = [...new Set(v)].sort();
    }
    if (v !== undefined) out[k] = v;
  }
  return out;
}

const copy = <T>(v: T): T => (v !== null && typeof v === "object" ? structuredClone(v) : v);

/** Conversions of a field whose wire form differs from its state form (durations, blanks). */
interface Codec {
  absent?: unknown;
  encode?(value: unknown): unknown;
  decode?(wire: unknown, prior: unknown): unknown;
}

/**
 * Registers the values of a record's secret fields for redaction (src/http/redact.ts): strings at
 * any depth (a map of credentials, a list of values). Every operation registers what it is given and
 * what it returns, so a server that echoes one back cannot put it in an error or a log. Its names
 * and path parts are registered as the program's own, to stay readable.
 */
export function registerSecrets(fields: Fields, values: Props | undefined): void {
  const r = registrationOf(fields);
  for (const [k, f] of r.secrets) {
    registerSecretNames(k, f);
    const v = values?.[k];
    if (v !== undefined && v !== null) registerAll(f.redact ? f.redact(v) : v);
  }
  if (values === undefined) return;
  // An object's name and path parts stay readable where a server's message names them.
  for (const k of r.names) {
    const v = values[k];
    if (typeof v === "string" && !isUnknown(v)) registerOwnName(v);
  }
  for (const [k, of] of r.nested) {
    const v = values[k];
    if (v !== undefined && v !== null) for (const x of Array.isArray(v) ? v : [v]) if (x !== null && typeof x === "object") registerSecrets(of, x as Props);
  }
}

type Registered = Field & { redact?(value: unknown): unknown; members?: readonly string[] };

/** The fields of a record that registration looks at: its secrets, its names, its records of fields. */
interface Registration {
  secrets: [string, Registered][];
  names: string[];
  nested: [string, Fields][];
}

// Every operation registers what it is given and returns, several times: each record's fields are sorted once.
const registrations = new WeakMap<Fields, Registration>();

function registrationOf(fields: Fields): Registration {
  let r = registrations.get(fields);
  if (r !== undefined) return r;
  r = { secrets: [], names: [], nested: [] };
  for (const k in fields) {
    const f = fields[k] as Registered;
    if (f.flags.secret) r.secrets.push([k, f]);
    else if (f.flags.identity || k === "name") r.names.push(k);
    else if (f.of) r.nested.push([k, f.of]);
  }
  registrations.set(fields, r);
  return r;
}

/**
 * A secret field's wire name (both spellings: the record's case is not known here) and the names of
 * its secret members, so redact() masks whatever follows them in an echoed body, however short.
 */
function registerSecretNames(key: string, f: Field & { members?: readonly string[] }): void {
  if (namesRegistered.get(f) === key) return;
  for (const name of [f.wire ?? snake(key), kebab(key), ...(f.members ?? [])]) registerSecretField(name);
  namesRegistered.set(f, key);
}

// A field's names are the same on every operation (and for every stack: they are the package's,
// never a program's), so each field registers them once, not on each of an operation's calls.
const namesRegistered = new WeakMap<object, string>();

function registerAll(v: unknown): void {
  // The preview's unknown placeholder is no secret: registered, it would be masked in every message.
  if (typeof v === "string") {
    if (!isUnknown(v)) registerSecret(v);
  }
  else if (Array.isArray(v)) for (const x of v) registerAll(x);
  else if (v !== null && typeof v === "object") for (const x of Object.values(v)) registerAll(x);
}

/**
 * Some fields of a record in the record's order (Pick's order is the keys' union's, which the
 * compiler decides), keeping their declarations and so their docs.
 */
export type PickOf<R, K extends keyof R> = { [P in keyof R as P extends K ? P : never]: R[P] };

/**
 * Some fields of a record (a function's arguments, what a read reports of a resource's fields),
 * keeping their declarations and so their docs.
 *
 * A record made of another file's fields (picked, or spread in) is typed by its parts, wherever it
 * is: `const x: Pick<typeof a, "k"> & typeof own = { ...pick(a, "k"), ...own }`. An inferred type
 * is written out in full in the declaration emit, without the docs of the fields it took
 * (test/docs/tsdoc.test.ts and hover.test.ts read the built declarations). `PickOf` keeps the
 * record's order where the order shows (a reference page's rows).
 */
export function pick<R extends Fields, K extends keyof R>(fields: R, ...keys: K[]): Pick<R, K> {
  const out = {} as Pick<R, K>;
  for (const k of keys) out[k] = fields[k];
  return out;
}
