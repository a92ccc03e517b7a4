import type { HttpClient, Service } from "../http";
import type { Fields } from "./fields";
import type { Schema } from "./validate";

/** What a provider method gets to talk to the services; clients are made at call time. */
export interface Context {
  client(service: Service): HttpClient;
  /** Progress for long waits; goes to the engine's log when there is one. */
  log(message: string): void;
  /** What the user must not miss (shown as a warning by the engine); `log` where a context has none. */
  warn?(message: string): void;
  /**
   * The resource's URN when the engine serves the operation (its hidden `__urn` input): for advice
   * such as `pulumi up --target`, and the claim a Run's message carries.
   */
  urn?: string;
}

export type { Props } from "./props";
import type { Props } from "./props";

/** The engine's key for the serialized provider, in every object's inputs and state. */
export const PROVIDER_KEY = "__provider";

/** The local input naming an existing object to take over (kinds whose id the service assigns, docs/adopting.md). */
export const ADOPT_ID = "adoptId";

/**
 * What a change of an object loses or makes unusable (docs/review.md, "Data at risk"). Only what is
 * declared here is ever said to be at risk: a change of any other input is harmless.
 */
export interface Risk<In extends Props = Props> {
  /** What a delete, or a replacement (which deletes the old object), loses or strands. */
  lost?: string;
  /** A boolean input without which a delete loses nothing (the old state's value counts). */
  lostOnlyIf?: keyof In & string;
  /** What creating the object destroys (activating a secondary wipes the data it holds). */
  created?: string;
  /** Inputs whose change, in place too, strands data: what it strands. */
  changes?: Partial<Record<keyof In & string, string>>;
  /** The safer way, where there is one. */
  instead?: string;
  /**
   * At risk only while a resource in the preview uses this one: one whose field names it and is
   * `dependent` on it (Field.dependent: a transformation's `template`), itself in use where its
   * own risk says so (an alphabet counts only while a template a transformation names names it).
   * Who that can be is read from the other kinds' fields (src/core/relations.ts), never listed here.
   * An object that nothing in the preview uses is not at risk.
   */
  whileUsed?: true;
}

/**
 * Where an object whose id is its path lives: the route that reads it, and the input that fills each
 * route parameter whose name differs (a key distribution's `{kms}` is its `kmsName`). The id a
 * create records, the path a review shows for a created object and the import's reads follow from it.
 */
export interface PathRule {
  route: string;
  inputs?: Readonly<Record<string, string>>;
}

/**
 * How `pulumi-svc-import` finds the objects of a kind on a server (src/import). `list` names them
 * (a secrets-service LIST, or the run service's paged GET): its parameters come from the import's
 * scope (each engine mount, each `--workspace`), from `each`, or from the objects found of the kind
 * the matching input refers to (a distribution's `{kms}`: every KMS provider found on the mount).
 * Each name listed is the last parameter of the kind's path (or its id); the object is then read
 * as a refresh reads it. `find` replaces all that for objects no list names (replication).
 */
export type Discover =
  | {
    /** Absent: one object per scope, read where it would be (an engine mount's config). */
    list?: string;
    /** Fixed values of a list parameter (a plugin's type). */
    each?: Readonly<Record<string, readonly string[]>>;
    /** Only objects whose `data` holds these wire values (one type of transformation). */
    where?: Readonly<Record<string, unknown>>;
    /** Objects whose `data` holds these wire values are left out (built-in plugins). */
    skip?: Readonly<Record<string, unknown>>;
  }
  | { find(ctx: Context): Promise<Array<{ id: string; props: Props }>> }
  /** Not imported, and why (the message the import prints). */
  | { none: string };

/**
 * The objects on the server a create with these inputs may have made, or would duplicate: how an
 * object left by a create that was cancelled mid-flight is told from others (docs/behaviour.md,
 * "When a deploy is cancelled"). Kinds keyed by a path need none: the object at the path is it.
 */
export interface Leftovers<In extends Props = Props> {
  /** Their ids: an exact lookalike of an object the service names, a run carrying the resource's claim. */
  find(ctx: Context, inputs: In): Promise<string[]>;
  /**
   * Those a create refuses to duplicate, when not all of them (a Run: only a run still active; one
   * that ended may be an earlier deploy's, which a destroy leaves ended). Default: all.
   */
  blocking?(ctx: Context, inputs: In): Promise<string[]>;
  /**
   * How to go on when one is there and no cancelled create made it (after the advice to run
   * pulumi-svc-recover), e.g. `to take over one made another way, set adoptId: "<id>"`.
   */
  otherwise: string;
  /** Finding them reads every object of the server (entity aliases): check records nothing for it. */
  costly?: true;
  /** The service itself refuses a second one (an alias's name on a mount): the create sends it and says why it failed. */
  serviceRefuses?: true;
}

/**
 * Everything the machinery needs to know about one API object. Check, diff and the error handling
 * of create/read/update/delete are derived from it (src/core/provider.ts).
 */
export interface ResourceDefinition<In extends Props = Props, Out extends Props = Props> {
  /** `service:Kind`, also the type token's module and name. */
  kind: string;
  /** The object's field record (src/core/fields.ts), when it has one: the lists below derive from it. */
  fields?: Fields;
  /** Built at call time and memoised: a zod schema must never be captured by the provider. */
  schema(): Schema;
  /** Filled in by check for absent inputs, so an omitted default is not a perpetual diff. */
  defaults?: Partial<In>;
  /** Rewrites valid inputs into their one canonical spelling (e.g. letter case), so spelling is no diff. */
  normalize?(inputs: Partial<In>): Partial<In>;
  /** Lists compared as sets: sorted and de-duplicated by check. */
  sets?: ReadonlyArray<keyof In & string>;
  /** Changing one of these replaces the object. */
  immutable?: ReadonlyArray<keyof In & string>;
  /**
   * Inputs that name the object on the server (a path). A replacement that keeps all of them would
   * have create-before-delete write the new object and then delete it, so it deletes first.
   * Absent for objects whose id the server assigns.
   */
  identity?: ReadonlyArray<keyof In & string>;
  /**
   * Inputs whose values the service lets only one object hold at a time within `scope` (a directory
   * account is managed by one role or library set per mount). A replacement whose new inputs keep
   * one of those values in the same scope deletes first: the new object could not be created while
   * the old one still holds it.
   */
  exclusive?: { keys: ReadonlyArray<keyof In & string>; scope: ReadonlyArray<keyof In & string> };
  /** Of an object whose id is its path: how the path follows from its inputs. */
  path?: PathRule;
  /**
   * The requests its operations make, by operation (`create`, `read`, `update`, `delete`, and any
   * other it sends: `write`, `list`, `discard`), each as its area's route table writes it. The
   * reference page lists them and shows `read`'s path (else the first's); a review places an
   * object whose id the service assigns by `read`, its one parameter being the id (`runs/run-…`).
   */
  routes?: Readonly<Record<string, string>>;
  /** Of an object whose id the service assigns: what a cancelled create of it may have left. */
  leftovers?: Leftovers<In>;
  /**
   * Why an object of this kind cannot be read by its id (a read resource: the class's `get`, `id`
   * in the resource options), when it cannot: its read needs what only the stack that made it holds
   * (a lease, a one-time token). Absent: its read takes the id alone.
   */
  unreadable?: string;
  /** How the import command finds existing objects of this kind (a kind without it is a test failure). */
  discover?: Discover;
  /** What changes of this object lose or strand: reviews list them "at risk", reference pages show them. */
  risk?: Risk<In>;
  /** Output keys the engine must keep secret (additionalSecretOutputs). */
  secrets?: ReadonlyArray<string>;
  /** Inputs the server never returns: kept from the inputs in state, never compared with a read. */
  writeOnly?: ReadonlyArray<keyof In & string>;
  /** Inputs that steer the provider only (never sent, never a reason to update). */
  local?: ReadonlyArray<keyof In & string>;
  /** Output-only keys, declared so the resource class exposes them. */
  outputs: ReadonlyArray<string>;
  /**
   * Where a 404 does not prove the object is gone (the run service answers 404 for "not found or
   * unauthorized"), checks that the token can see the object's container, and throws when it
   * cannot: refresh must not drop, and delete must not count as done, what may still exist.
   */
  confirmGone?(ctx: Context, id: string, props: Out, notFound: Error): Promise<void>;
  /**
   * Why a refresh cannot tell whether an object with this state is still on the server as recorded
   * (the service does not report it), or undefined when it can. The drift review counts such an
   * object as not known, neither unchanged nor gone, and says why.
   */
  unseen?(state: Out): string | undefined;
  create(ctx: Context, inputs: In): Promise<{ id: string; outs: Out }>;
  /** Returns undefined when the object is gone. */
  read(ctx: Context, id: string, props: Out): Promise<Out | undefined>;
  update(ctx: Context, id: string, olds: Out, news: In): Promise<Out>;
  delete(ctx: Context, id: string, props: Out): Promise<void>;
}

/**
 * Thrown when the server already acted (an object exists) but a later step failed. The dynamic
 * provider host turns `id` and `properties` into a partial failure, so the engine keeps the
 * object in state instead of orphaning it.
 */
export class PartialFailure extends Error {
  readonly code = "partial";
  constructor(readonly id: string, readonly properties: Props, cause: Error, done = "created") {
    super(`${cause.message} (the object ${id} was ${done} and is kept in state; run pulumi up again to finish)`);
    this.cause = cause;
  }

  /**
   * What the engine shows and records as the resource's initErrors. The dynamic-provider host sends
   * only these for a failure with an id (the message itself is dropped): without them the real CLI
   * says just "resource init failed".
   */
  get reasons(): string[] {
    return [this.message];
  }
}
