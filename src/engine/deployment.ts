// The engine's step logic for one deployment: what it does with each resource registration
// (check → diff → create/update/replace/same), the delete phase, refresh and destroy.
//
// Steps run one at a time in registration order. The real engine runs independent steps in
// parallel; serial execution is one of its legal schedules and keeps the provider log (and
// so the tests) deterministic.
import { PartialFailureError, ProviderHost } from "./host";
import { StackState, StateResource } from "./state";
import { Step, StepOp } from "./types";
import { applyIgnoreChanges, deleteOrder, deleteWaves, markOutputs } from "./rules";
import { PropertyMap, UNKNOWN, annotateSecrets, changedKeys, deepEqual, plain, plainMap } from "./values";

const DYNAMIC = "pulumi-nodejs:dynamic";

/** What the program asked for, taken from the RegisterResourceRequest. */
export interface Registration {
  urn: string;
  type: string;
  name: string;
  parent: string;
  custom: boolean;
  /** Inputs in wire form: secrets wrapped, unknowns as the sentinel. */
  object: PropertyMap;
  dependencies: string[];
  /** Per input, the URNs its value came from. */
  propertyDependencies: Record<string, string[]>;
  additionalSecretOutputs: string[];
  /** undefined when the resource option was not set. */
  deleteBeforeReplace?: boolean;
  ignoreChanges: string[];
  replaceOnChanges: string[];
  /** URNs of the resource's aliases: an old state entry under one of them is this resource. */
  aliases: string[];
  protect?: boolean;
  retainOnDelete?: boolean;
}

/** What the program asked to read (`get`, `id` in the options), taken from the ReadResourceRequest. */
export interface ReadRegistration {
  urn: string;
  type: string;
  name: string;
  parent: string;
  /** The object's id; UNKNOWN in a preview whose id comes from an object not made yet. */
  id: string;
  /** The program's inputs in wire form. */
  object: PropertyMap;
  dependencies: string[];
  additionalSecretOutputs: string[];
}

/**
 * The policy packs of a deployment (src/engine/policies.ts): each registration, once checked, is
 * remediated and analyzed; `invalid` stops it, as a mandatory violation does in an update.
 */
export interface PolicyHook {
  resource(reg: Registration, inputs: PropertyMap): Promise<{ inputs: PropertyMap; invalid?: string }>;
}

/** What goes back to the program: outputs in wire form (secrets wrapped). */
export interface Registered {
  urn: string;
  id: string;
  outputs: PropertyMap;
}

export class Deployment {
  readonly steps: Step[] = [];
  error: string | undefined;
  private readonly olds = new Map<string, StateResource>();
  /** Resources of the new snapshot, in registration order. */
  private readonly news: StateResource[] = [];
  /** Old state entries superseded by this deployment. */
  private readonly consumed = new Set<StateResource>();
  private readonly deleted = new Set<StateResource>();
  /** Replaced resources waiting for the delete phase (create-before-delete). */
  private readonly condemned: StateResource[] = [];
  /**
   * Dependents a delete-before-replace deleted first (the engine's dependent replacements), by URN:
   * the program's registration creates each again under its step.
   */
  private readonly cascaded = new Map<string, { step: Step; old: StateResource }>();
  private readonly seen = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private signalStop!: () => void;
  /** Resolves when a step fails: the engine then stops taking registrations. */
  readonly stopped = new Promise<void>((resolve) => (this.signalStop = resolve));

  constructor(private readonly host: ProviderHost, private readonly prior: StackState, private readonly preview: boolean,
    private readonly policies?: PolicyHook,
    /** URNs replaced on request (`pulumi up --replace`). */
    private readonly replaceTargets: readonly string[] = []) {
    for (const r of prior.resources) if (!r.delete) this.olds.set(r.urn, r);
  }

  get failed(): boolean {
    return this.error !== undefined;
  }

  /** Handles one registration; registrations are serialized. */
  register(reg: Registration): Promise<Registered> {
    const run = this.queue.then(() => this.step(reg));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Handles one read resource, in turn with the registrations. */
  read(reg: ReadRegistration): Promise<Registered> {
    const run = this.queue.then(() => this.readStep(reg));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Takes no more registrations (the program ended or failed); lets queued ones finish. */
  close(): Promise<unknown> {
    this.closed = true;
    return this.queue;
  }

  /** Component outputs arrive later through registerResourceOutputs. */
  setOutputs(urn: string, outputs: PropertyMap): void {
    const r = this.news.find((n) => n.urn === urn && !n.delete);
    if (r) r.outputs = outputs;
  }

  /** The delete phase of `up`/`preview`: condemned and unregistered resources, dependents first. */
  async finish(): Promise<void> {
    if (this.failed) return;
    // A dependent the cascade deleted that the program no longer declares was only deleted.
    for (const { step } of this.cascaded.values()) {
      step.op = "delete";
      delete step.replaceKeys;
      delete step.deleteBeforeReplace;
      delete step.changedKeys;
    }
    const gone = this.prior.resources.filter((r) => !this.consumed.has(r));
    if (this.preview) {
      // The preview lists every delete and fails on each protected one; nothing is deleted. (So
      // `up`, which previews first, refuses before any change.)
      for (const r of deleteOrder(gone)) {
        const step = this.record(r.external ? "discard" : "delete", r);
        if (r.protect) this.fail(step, protectedError(r));
      }
      return;
    }
    await this.deleteInWaves([...this.condemned, ...gone]);
  }

  /**
   * Deletes wave by wave, as the engine does (rules.deleteWaves). A protected resource fails its
   * delete but stops nothing else: only what it depends on stays (the engine continues past
   * protect errors to report them all). Any other failed delete lets its wave finish and no later
   * wave starts.
   */
  private async deleteInWaves(list: StateResource[]): Promise<void> {
    const kept = new Set<string>();
    for (const wave of deleteWaves(list)) {
      let failed = false;
      for (const r of wave) {
        if (kept.has(r.urn)) continue;
        const replaced = this.condemned.includes(r);
        try {
          await this.deleteOne(r);
          this.deleted.add(r);
          if (!replaced) this.record(r.external ? "discard" : "delete", r);
        } catch (e) {
          this.fail(this.record("delete", r), e);
          if (r.protect && !replaced) for (const urn of dependenciesOf(r, list)) kept.add(urn);
          else failed = true;
        }
      }
      if (failed) return;
    }
  }

  /** The state after this deployment (meaningful for `up`, `refresh` and `destroy`). */
  snapshot(): StateResource[] {
    const kept = this.prior.resources.filter((r) => !this.consumed.has(r));
    return [...this.news, ...kept].filter((r) => !this.deleted.has(r));
  }

  /** `pulumi refresh`: read every resource; an empty id means it is gone. */
  async refresh(): Promise<void> {
    for (const r of this.prior.resources) {
      // Every entry is carried over in place, so the state keeps its dependency order.
      if (!r.custom) {
        this.consumed.add(r);
        this.news.push(r);
        continue;
      }
      try {
        const read = await this.host.read(r.urn, r.id, plain(r.outputs) as object, plain(r.inputs) as object);
        if (read.id === "") {
          this.consumed.add(r);
          this.record("read-gone", r);
          continue;
        }
        const inputs = read.inputs ? annotateSecrets(read.inputs, r.inputs) : r.inputs;
        // Secretness follows the old state, as the engine's Read does.
        const { outputs, secretOutputs } = markOutputs(read.props, [], r.outputs);
        const next: StateResource = { ...r, id: read.id, inputs, outputs, secretOutputs };
        this.consumed.add(r);
        this.news.push(next);
        if (r.external) {
          // The engine compares only the outputs of what the stack merely reads.
          this.record("refresh", r, { changedKeys: changedKeys(r.outputs, outputs) });
          continue;
        }
        // As the engine decides: the refresh changed the resource when the provider's diff of
        // what was read (as the old side) against the inputs the program last gave finds a change;
        // outputs that moved alone (a key's versions seen by its distribution) do not count.
        const diff = await this.host.diff(r.urn, read.id, plain(outputs) as object, plain(r.inputs) as object, plain(inputs) as object);
        const changed = diff.changes ?? !deepEqual(plain(r.inputs), plain(inputs));
        const keys = changedKeys(r.inputs, inputs);
        this.record("refresh", r, { changedKeys: !changed ? [] : keys.length ? keys : changedKeys(r.outputs, outputs) });
      } catch (e) {
        this.fail(this.record("refresh", r), e);
        return;
      }
    }
  }

  /**
   * `pulumi destroy`: delete everything, dependents first. With its preview (the CLI's default) a
   * protected resource stops it before any delete; without (--skip-preview) the engine finds it
   * only when it comes to delete it, and deletes the rest but what it depends on.
   */
  async destroy(skipPreview = false): Promise<void> {
    const guarded = this.prior.resources.filter((r) => r.protect);
    if (!skipPreview && guarded.length > 0) {
      for (const r of deleteOrder(guarded)) this.fail(this.record("delete", r), protectedError(r));
      return;
    }
    await this.deleteInWaves(this.prior.resources);
  }

  private async step(reg: Registration): Promise<Registered> {
    if (this.failed || this.closed) throw new Error("the deployment stopped: an earlier step or the program failed");
    if (this.seen.has(reg.urn)) throw new Error(`Duplicate resource URN '${reg.urn}'; try giving it a unique name`);
    this.seen.add(reg.urn);
    if (!reg.custom) {
      await this.analyzed(reg, reg.object, "create");
      return this.component(reg);
    }
    if (!reg.type.startsWith(DYNAMIC)) {
      const step = this.record("create", reg);
      throw this.fail(step, new Error(`the engine double runs only dynamic resources (${DYNAMIC}...), not ${reg.type}`));
    }
    const cascaded = this.cascaded.get(reg.urn);
    if (cascaded) return this.createCascaded(cascaded.step, cascaded.old, reg);
    const found = [reg.urn, ...reg.aliases].map((u) => this.olds.get(u)).find((o) => o !== undefined && !this.consumed.has(o));
    // What the stack only read before is no object of its own: it is created (and never deleted).
    if (found?.external) this.consumed.add(found);
    const old = found?.external ? undefined : found;
    const news = old ? applyIgnoreChanges(reg.object, old.inputs, reg.ignoreChanges) : reg.object;
    // Replaced on request, the old inputs are not the new object's: checked without them, as a create.
    const forced = old !== undefined && this.replaceTargets.includes(reg.urn);
    const check = await this.host.check(reg.urn, plain(forced ? {} : old?.inputs ?? {}) as object, plain(news) as object).catch((e) => {
      throw this.fail(this.record(old ? "update" : "create", reg), e);
    });
    if (check.failures.length > 0) {
      const reasons = check.failures.map((f) => (f.property ? `${f.property}: ${f.reason}` : f.reason)).join("; ");
      throw this.fail(this.record(old ? "update" : "create", reg), new Error(`invalid inputs: ${reasons}`));
    }
    const inputs = await this.analyzed(reg, annotateSecrets(check.inputs, news), old ? "update" : "create");
    // The engine asks no diff then: the id is the reason, and only the resource option orders it.
    if (forced) return this.replace(reg, old, inputs, { changedKeys: [], replaceKeys: ["id"], deleteBeforeReplace: reg.deleteBeforeReplace ?? false });
    return old ? this.change(reg, old, inputs, news) : this.create(reg, inputs);
  }

  /** The checked inputs after the policy packs' remediations; a mandatory violation of an update fails the step. */
  private async analyzed(reg: Registration, inputs: PropertyMap, op: StepOp): Promise<PropertyMap> {
    if (!this.policies) return inputs;
    const done = await this.policies.resource(reg, inputs).catch((e) => {
      throw this.fail(this.record(op, reg), e);
    });
    if (done.invalid) throw this.fail(this.record(op, reg), new Error(done.invalid));
    return done.inputs;
  }

  /** The inputs as the provider checks them with no old ones: what the engine asks of a replacement's create. */
  private async checkedAnew(reg: Registration, news: PropertyMap): Promise<PropertyMap> {
    const check = await this.host.check(reg.urn, {}, plain(news) as object).catch((e) => {
      throw this.fail(this.record("replace", reg), e);
    });
    if (check.failures.length > 0) {
      const reasons = check.failures.map((f) => (f.property ? `${f.property}: ${f.reason}` : f.reason)).join("; ");
      throw this.fail(this.record("replace", reg), new Error(`invalid inputs: ${reasons}`));
    }
    return annotateSecrets(check.inputs, news);
  }

  /**
   * A read resource, as the engine's read step: the provider reads the object with the program's
   * inputs as both its inputs and its state (check and diff are not called), during a preview too,
   * and the state records what it read as an external resource. A resource of the stack read
   * instead from now on is deleted in the delete phase (the engine's read-replacement).
   */
  private async readStep(reg: ReadRegistration): Promise<Registered> {
    if (this.failed || this.closed) throw new Error("the deployment stopped: an earlier step or the program failed");
    if (this.seen.has(reg.urn)) throw new Error(`Duplicate resource URN '${reg.urn}'; try giving it a unique name`);
    this.seen.add(reg.urn);
    const step = this.record("read", reg);
    if (!reg.type.startsWith(DYNAMIC)) throw this.fail(step, new Error(`the engine double runs only dynamic resources (${DYNAMIC}...), not ${reg.type}`));
    let id = reg.id;
    let read: PropertyMap = {};
    if (id !== UNKNOWN) {
      const inputs = plain(reg.object) as object;
      const res = await this.host.read(reg.urn, id, inputs, inputs).catch((e) => {
        throw this.fail(step, e);
      });
      read = res.props;
      if (res.id) id = res.id;
    }
    const old = this.olds.get(reg.urn);
    if (old && !this.consumed.has(old)) {
      this.consumed.add(old);
      if (!old.external && !this.preview) {
        const pending: StateResource = { ...old, delete: true };
        this.news.push(pending);
        this.condemned.push(pending);
      }
    }
    const { outputs, secretOutputs } = markOutputs(read, reg.additionalSecretOutputs, reg.object);
    const r: StateResource = {
      urn: reg.urn, type: reg.type, name: reg.name, id, inputs: reg.object, outputs, secretOutputs,
      dependencies: reg.dependencies, custom: true, external: true,
    };
    if (reg.parent) r.parent = reg.parent;
    this.news.push(r);
    return { urn: reg.urn, id, outputs };
  }

  private async create(reg: Registration, inputs: PropertyMap): Promise<Registered> {
    const step = this.record("create", reg);
    if (this.preview) return this.previewResult(reg, inputs, "");
    return this.createOne(step, reg, inputs);
  }

  /** Creates the object (a create or a replacement's) and keeps it; a partial failure keeps what the provider reported. */
  private async createOne(step: Step, reg: Registration, inputs: PropertyMap): Promise<Registered> {
    try {
      const res = await this.host.create(reg.urn, plain(inputs) as object);
      if (!res.id) throw new Error(`plugin for package 'pulumi-nodejs' returned empty resource.ID from create '${reg.urn}'`);
      return this.keep(reg, res.id, inputs, res.outs);
    } catch (e) {
      if (e instanceof PartialFailureError) this.keep(reg, e.id, inputs, e.properties, initErrors(e));
      throw this.fail(step, e);
    }
  }

  private async change(reg: Registration, old: StateResource, inputs: PropertyMap, news: PropertyMap): Promise<Registered> {
    const diff = await this.host.diff(reg.urn, old.id, plain(old.outputs) as object, plain(inputs) as object, plain(old.inputs) as object).catch((e) => {
      throw this.fail(this.record("update", reg), e);
    });
    const keys = changedKeys(old.inputs, inputs);
    // DIFF_UNKNOWN (or no diff method): the engine falls back to comparing old and new inputs.
    const changes = diff.changes ?? !deepEqual(plain(old.inputs), plain(inputs));
    const replaceKeys = [...diff.replaces, ...reg.replaceOnChanges.filter((k) => keys.includes(k) && !diff.replaces.includes(k))];
    if (replaceKeys.length > 0) {
      const dbr = reg.deleteBeforeReplace ?? diff.deleteBeforeReplace;
      // The engine checks a replacement again without the old inputs: the defaults are the new object's.
      return this.replace(reg, old, await this.checkedAnew(reg, news), { changedKeys: keys, replaceKeys, deleteBeforeReplace: dbr });
    }
    // A resource left with init errors (partial failure) is always updated, as the engine does.
    if (changes || old.initErrors?.length) return this.update(reg, old, inputs, keys);
    this.record("same", reg);
    this.consumed.add(old);
    // Old outputs keep their secret wrappers, so what was secret stays secret.
    return this.keep(reg, old.id, inputs, old.outputs);
  }

  private async update(reg: Registration, old: StateResource, inputs: PropertyMap, keys: string[]): Promise<Registered> {
    const step = this.record("update", reg, { changedKeys: keys });
    this.consumed.add(old);
    if (this.preview) return this.previewResult(reg, inputs, old.id);
    try {
      const res = await this.host.update(reg.urn, old.id, plain(old.outputs) as object, plain(inputs) as object, plain(old.inputs) as object);
      return this.keep(reg, old.id, inputs, res.outs);
    } catch (e) {
      // Keep the old object in state; a partial failure records what the provider reported.
      if (e instanceof PartialFailureError) this.keep(reg, old.id, inputs, e.properties, initErrors(e));
      else this.news.push(old);
      throw this.fail(step, e);
    }
  }

  private async replace(reg: Registration, old: StateResource, inputs: PropertyMap, info: Pick<Step, "changedKeys" | "replaceKeys" | "deleteBeforeReplace">): Promise<Registered> {
    // The dependents go before the object they depend on, as the engine's delete-replaced steps do.
    if (info.deleteBeforeReplace) await this.cascade(reg, old);
    const step = this.record("replace", reg, info);
    if (this.preview) {
      this.consumed.add(old);
      return this.previewResult(reg, inputs, "");
    }
    if (info.deleteBeforeReplace) {
      try {
        await this.deleteOne(old);
      } catch (e) {
        throw this.fail(step, e);
      }
      this.consumed.add(old);
      return this.createOne(step, reg, inputs);
    }
    // Created first: the old object is marked for deletion (in the delete phase) once its successor
    // exists, as the engine's replace step comes after the create; a refused create leaves it as it was.
    this.consumed.add(old);
    const condemn = () => {
      const pending: StateResource = { ...old, delete: true };
      this.news.push(pending);
      this.condemned.push(pending);
    };
    try {
      const made = await this.createOne(step, reg, inputs);
      condemn();
      return made;
    } catch (e) {
      if (e instanceof PartialFailureError) condemn();
      else this.news.push(old);
      throw e;
    }
  }

  /**
   * The engine's dependent replacements (calculateDependentReplacements): before an object replaced
   * delete-first goes, every resource of the old state that depends on it, and whose provider's
   * diff says an input taken from it (or from another one so replaced) forces a replacement once
   * that input is unknown, is deleted first, dependents before what they depend on. The program's
   * registration of it later creates it again; one it no longer registers stays deleted.
   */
  private async cascade(reg: Registration, root: StateResource): Promise<void> {
    const replaced = new Set([root.urn]);
    const depending = new Set([root.urn]);
    const toReplace: StateResource[] = [];
    for (const r of this.prior.resources.slice(this.prior.resources.indexOf(root) + 1)) {
      if (r.delete || this.consumed.has(r) || !(r.dependencies.some((u) => depending.has(u)) || (r.parent !== undefined && depending.has(r.parent)))) continue;
      depending.add(r.urn);
      if (!r.custom) continue;
      const froms = Object.entries(r.propertyDependencies ?? {}).filter(([, urns]) => urns.some((u) => replaced.has(u))).map(([k]) => k);
      if (froms.length === 0) continue;
      const unknowns: PropertyMap = { ...r.inputs, ...Object.fromEntries(froms.map((k) => [k, UNKNOWN])) };
      const diff = await this.host.diff(r.urn, r.id, plain(r.outputs) as object, plain(unknowns) as object, plain(r.inputs) as object).catch((e) => {
        throw this.fail(this.record("replace", reg), e);
      });
      if (diff.replaces.length === 0) continue;
      replaced.add(r.urn);
      toReplace.push(r);
    }
    for (const r of toReplace.reverse()) {
      // As the engine reports it: a replacement with no reason of its own, its changed inputs those
      // the registration brings (the provider's reasons are asked only to decide the cascade).
      const step = this.record("replace", r, { changedKeys: [], replaceKeys: [], deleteBeforeReplace: true });
      this.consumed.add(r);
      this.cascaded.set(r.urn, { step, old: r });
      if (this.preview) continue;
      try {
        await this.deleteOne(r);
      } catch (e) {
        throw this.fail(step, e);
      }
      this.deleted.add(r);
    }
  }

  /** A dependent the cascade deleted, registered again: created anew, under the step of its delete. */
  private async createCascaded(step: Step, old: StateResource, reg: Registration): Promise<Registered> {
    this.cascaded.delete(reg.urn);
    const check = await this.host.check(reg.urn, {}, plain(reg.object) as object).catch((e) => {
      throw this.fail(step, e);
    });
    if (check.failures.length > 0) {
      const reasons = check.failures.map((f) => (f.property ? `${f.property}: ${f.reason}` : f.reason)).join("; ");
      throw this.fail(step, new Error(`invalid inputs: ${reasons}`));
    }
    const inputs = annotateSecrets(check.inputs, reg.object);
    step.changedKeys = changedKeys(old.inputs, inputs);
    if (this.preview) return this.previewResult(reg, inputs, "");
    return this.createOne(step, reg, inputs);
  }

  private component(reg: Registration): Registered {
    const old = this.olds.get(reg.urn);
    this.record(old ? "same" : "create", reg);
    if (old) this.consumed.add(old);
    const r: StateResource = { ...base(reg), id: "", inputs: reg.object, outputs: old?.outputs ?? {}, secretOutputs: [] };
    this.news.push(r);
    return { urn: reg.urn, id: "", outputs: {} };
  }

  /** During preview the engine hands back the checked inputs; output-only values stay unknown. */
  private previewResult(reg: Registration, inputs: PropertyMap, id: string): Registered {
    const { outputs } = markOutputs(plainMap(inputs), reg.additionalSecretOutputs, inputs);
    return { urn: reg.urn, id, outputs };
  }

  /** Records the resource in the new snapshot with its outputs' secrets marked. */
  private keep(reg: Registration, id: string, inputs: PropertyMap, outs: PropertyMap, errors?: string[]): Registered {
    const { outputs, secretOutputs } = markOutputs(outs, reg.additionalSecretOutputs, inputs);
    const r: StateResource = { ...base(reg), id, inputs, outputs, secretOutputs };
    if (errors?.length) r.initErrors = errors;
    this.news.push(r);
    return { urn: reg.urn, id, outputs };
  }

  private async deleteOne(r: StateResource): Promise<void> {
    if (r.protect) throw protectedError(r);
    // An external resource leaves the state only: the object is not the stack's.
    if (!r.custom || r.retainOnDelete || r.external) return;
    await this.host.delete(r.urn, r.id, plain(r.outputs) as object, plain(r.inputs) as object);
  }

  private record(op: StepOp, r: { urn: string; type: string; name: string }, extra: Partial<Step> = {}): Step {
    const step: Step = { op, urn: r.urn, type: r.type, name: r.name, ...extra };
    this.steps.push(step);
    return step;
  }

  /** Marks the step and the deployment failed; returns the error for the program. */
  private fail(step: Step, e: unknown): Error {
    const message = e instanceof Error ? e.message : String(e);
    step.error = message;
    this.error ??= `${step.op} ${step.urn}: ${message}`;
    this.signalStop();
    return e instanceof Error ? e : new Error(message);
  }
}

const protectedError = (r: StateResource) => new Error(`resource ${r.urn} is protected; remove the protect option first`);

/** Everything r depends on (its dependencies and parent), transitively, among `list`. */
function dependenciesOf(r: StateResource, list: StateResource[]): Set<string> {
  const found = new Set<string>();
  const visit = (q: StateResource): void => {
    for (const urn of [...q.dependencies, ...(q.parent ? [q.parent] : [])]) {
      if (found.has(urn)) continue;
      found.add(urn);
      const next = list.find((x) => x.urn === urn);
      if (next) visit(next);
    }
  };
  visit(r);
  return found;
}

function base(reg: Registration): Omit<StateResource, "id" | "inputs" | "outputs" | "secretOutputs"> {
  const r: Omit<StateResource, "id" | "inputs" | "outputs" | "secretOutputs"> = {
    urn: reg.urn, type: reg.type, name: reg.name, dependencies: reg.dependencies, custom: reg.custom,
  };
  if (Object.keys(reg.propertyDependencies).length > 0) r.propertyDependencies = reg.propertyDependencies;
  if (reg.parent) r.parent = reg.parent;
  if (reg.protect) r.protect = true;
  if (reg.retainOnDelete) r.retainOnDelete = true;
  return r;
}

// As the engine: only the reasons the host sends are recorded (an error without reasons leaves
// none, and the next up then sees no reason to update).
const initErrors = (e: PartialFailureError): string[] => e.reasons;
