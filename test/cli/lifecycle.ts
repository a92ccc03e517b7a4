// One lifecycle of an example, the same sequence on every side (the real CLI, the engine double):
// preview, up, up again, step2's preview and up, the example's own steps, refresh after an
// out-of-band change and after an out-of-band delete, destroy. Each step is a test that checks what
// examples/<name>/cli.json expects and what the example's own checks (test/cli/examples/) add, and
// records what the side did into a trace, which test/cli/example.ts compares between sides.
import { afterAll, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator";
import { control } from "../support/emulator";
import { outputValues, serviceCall, serviceRequest, type Expectations, type Prepared } from "./expectations";
import { checkReview } from "./review-golden";
import { exampleSecrets, leakedPlaces, SECRET, SECRET_SIG, secretMaterial } from "./secret-scan";
import { CliSide, type Deployed, type Res, type Side } from "./sides";

/** What one side saw over the whole lifecycle, by step; compared between sides. */
export type Trace = Record<string, unknown>;

export type StepName = "preview" | "up" | "up again" | "step2 preview" | "step2 up" | "refresh after a change" | "refresh after a delete" | "destroy";

export interface Context {
  side: Side;
  emu: Emulator;
  exp: Expectations;
  prepared: Prepared;
  /** The step's update, where it made one. */
  deployed?: Deployed;
  /** Writes ("METHOD /v1/path") a secrets cluster (0 unless given) logged during the step. */
  writes(cluster?: number): Promise<string[]>;
}

export interface ExampleChecks {
  /** What the example adds to a step's checks, on every side. */
  after?: Partial<Record<StepName, (c: Context) => Promise<void>>>;
  /** Steps of the example's own after step2's up, on every side and compared like the others. */
  extra?: { title: string; run(c: Context): Promise<Deployed | void> }[];
}

/**
 * Keys whose values differ between two deployments by nature, at any depth, each named (a suffix
 * pattern also hid values that must match, such as `workspaceId` and `canonicalId`): what the
 * services generate (run and lease ids, wrapped accessors, the cluster ids replication makes up,
 * the example outputs holding such ids, the digest of a loan's borrower, whose token each emulator
 * makes up), times, key material and the names a KMS makes from the time, and the serialized
 * provider. These are the keys the examples' states hold; a new one that differs fails the
 * comparison until it is named here.
 */
const INCIDENTAL = new Set([
  "__provider",
  "runId", "hookId", "aliasId", "duoMethodId", "leaseId", "wrappedAccessor", "clusterId", "primaryClusterId", "secondaryClusterId", "borrowerDigest",
  "createdAt", "updatedAt", "sentAt", "appliedAt", "checkedOutAt", "creationTime", "lastUpdateTime", "statusTimestamps", "date",
  "lastServiceRotation", "passwordLastSet",
  "keys", "publicKey", "versions", "providerKeyName",
]);
const incidental = (k: string) => INCIDENTAL.has(k);
const isSecret = (v: unknown) => v === "[secret]" || (!!v && typeof v === "object" && SECRET_SIG in v);

/**
 * Values of a run's own that appear in strings (the emulator's address, a PostgreSQL's port),
 * compared as `{name}`; the longest first, so that a value inside another is not taken from it.
 */
function strip(v: unknown, own: Record<string, string>): unknown {
  if (typeof v === "string") return Object.entries(own).reduce((text, [k, x]) => text.split(x).join(`{${k}}`), v);
  if (Array.isArray(v)) return v.map((x) => strip(x, own));
  if (!v || typeof v !== "object") return v;
  return Object.fromEntries(Object.entries(v).filter(([k, x]) => !incidental(k) && !isSecret(x)).map(([k, x]) => [k, strip(x, own)]));
}

const secretKeys = (o: Record<string, unknown>) => Object.keys(o).filter((k) => isSecret(o[k])).sort();

/** The order facts of a run: for each two resources of which one depends on the other, which one's step came first. */
function orderFacts(order: string[], deps: Record<string, string[]>): string[] {
  const facts: string[] = [];
  order.forEach((a, i) => order.slice(i + 1).forEach((b) => {
    if (deps[a]?.includes(b) || deps[b]?.includes(a)) facts.push(`${a} before ${b}`);
  }));
  return facts.sort();
}

const creates = (exp: Expectations) => Object.fromEntries(exp.create.map((n) => [n, "create"]));
const step2Ops = (exp: Expectations) => Object.fromEntries(Object.entries(exp.step2).filter(([, s]) => s.op !== "same").map(([n, s]) => [n, s.op]));

export interface Lifecycle {
  /** What the side saw, filled in as its tests run. */
  trace: Trace;
  /** Whether every step ran to the end, destroy included. */
  done(): boolean;
}

export interface LifecycleOptions {
  exp: Expectations;
  emu: () => Emulator;
  /** Resets the emulator for the example and starts what it needs; one call per side. */
  prepare: () => Promise<Prepared>;
  /** Which side `makeSide` makes: the CLI has tests of its own (the review, the diff's text). */
  kind: Side["kind"];
  makeSide: (prepared: Prepared) => Promise<Side>;
  hasStep2: boolean;
  checks?: ExampleChecks;
}

/**
 * Registers one test per step of the lifecycle on the side `makeSide` gives, in the enclosing
 * describe. The steps depend on each other: after a failed one the rest fail at once.
 */
export function lifecycle(o: LifecycleOptions): Lifecycle {
  const { exp, checks = {} } = o;
  const trace: Trace = {};
  let side: Side;
  let prepared: Prepared;
  let broken: string | undefined;
  let finished = false;
  /** The secret texts the state held after up, for the review's checks (CLI). */
  let material = new Map<string, string[]>();
  let step2Preview = "";
  let step2Paths: Record<string, string | undefined> = {};
  /** Addresses of the side's own run in strings (see strip). */
  let own: Record<string, string> = {};

  const emu = () => o.emu();
  const clusters = () => emu().clusters.map((c) => ({ controlUrl: c.controlUrl }));
  const clear = async () => { for (const c of clusters()) await control(c, "DELETE", "/requests"); };
  const writes = async (cluster = 0) => (await control<{ requests: { method: string; path: string }[] }>(clusters()[cluster]!, "GET", "/requests")).requests
    .filter((q) => !["GET", "LIST"].includes(q.method)).map((q) => `${q.method} ${q.path}`);
  const context = (deployed?: Deployed): Context => ({ side, emu: emu(), exp, prepared, deployed, writes });
  const comparable = (outputs: Record<string, unknown>) => ({ values: strip(outputs, own), secret: secretKeys(outputs) });
  const states = (list: Res[]) => Object.fromEntries(list.map((r) => [r.name, {
    type: r.type, inputs: comparable(r.inputs ?? {}), outputs: comparable(r.outputs ?? {}), dependencies: [...r.dependencies].sort(),
  }]));
  const deps = async () => Object.fromEntries((await side.resources()).map((r) => [r.name, r.dependencies]));
  const recordUp = async (key: string, d: Deployed) => {
    trace[`${key}: operations`] = d.ops;
    trace[`${key}: order along dependencies`] = orderFacts(d.order, await deps());
    trace[`${key}: replacements deleted first`] = d.deleteFirst;
  };
  const secretValues = () => exampleSecrets(exp, emu(), prepared);

  afterAll(async () => {
    // After a failed step: what destroy would have closed.
    if (finished) return;
    side?.close();
    await prepared?.close();
  });

  /** A step's test; after an earlier step failed it fails at once, naming that step. */
  const step = (title: string, body: () => Promise<void>) => it(title, async () => {
    if (broken) throw new Error(`not run: an earlier step failed (${broken})`);
    try {
      await body();
    } catch (e) {
      broken = title;
      throw e;
    }
  });

  /** No secret of the example in plaintext in the stored state; the expected secret outputs stored as secrets. */
  async function secretsHidden(): Promise<void> {
    const stored = await side.stored();
    if (side instanceof CliSide) {
      const { deployment } = JSON.parse(stored) as { deployment: { resources: { urn: string; type: string; outputs?: Record<string, any> }[] } };
      for (const [resource, props] of Object.entries(exp.secretOutputs ?? {})) {
        const r = deployment.resources.find((q) => q.urn.endsWith(`::${resource}`))!;
        for (const p of props) expect(r.outputs?.[p]?.[SECRET_SIG], `${resource}.${p} is a secret`).toBe(SECRET);
      }
      // Every secret stack output (the CLI shows it as [secret]) is stored as a secret.
      const shown = await side.outputs();
      const stackOutputs = deployment.resources.find((q) => q.type === "pulumi:pulumi:Stack")?.outputs ?? {};
      const secretOutputs = Object.keys(shown).filter((k) => shown[k] === "[secret]");
      for (const k of secretOutputs) expect(stackOutputs[k]?.[SECRET_SIG], `stack output ${k} is a secret`).toBe(SECRET);
      // The plaintext of every secret the state holds (config, resource inputs and outputs, stack
      // outputs: service-generated tokens and passwords too) appears nowhere in the export.
      material = await secretMaterial(side.stack, prepared.config);
      for (const [resource, props] of Object.entries(exp.secretOutputs ?? {})) {
        for (const p of props) expect(material.get(`${resource}.${p}`)?.length, `${resource}.${p} holds secret text`).toBeGreaterThan(0);
      }
      for (const k of secretOutputs) expect(material.has(`output.${k}`), `stack output ${k} is read back`).toBe(true);
      expect(leakedPlaces(stored, new Map([...secretValues(), ...material])), "secrets in plaintext in pulumi stack export").toEqual([]);
    } else {
      // The double's state file: secrets sealed as {"secure": …}.
      const disk = JSON.parse(stored) as { resources: { name: string; outputs: Record<string, unknown> }[] };
      for (const [resource, props] of Object.entries(exp.secretOutputs ?? {})) {
        const r = disk.resources.find((q) => q.name === resource)!;
        for (const p of props) expect(r.outputs[p], `${resource}.${p} is sealed`).toEqual({ secure: expect.any(String) });
      }
      expect(leakedPlaces(stored, new Map(secretValues())), "secrets in plaintext in the state file").toEqual([]);
      expect(stored).toContain("__provider");
    }
  }

  step("preview plans a create of every resource, without a write to either service", async () => {
    prepared = await o.prepare();
    // The emulator's ports too: the lifecycles compared with one recorded in another run (test/cli/example.ts) had another emulator.
    const addresses: [string, string][] = [
      ...emu().clusters.map((c, i): [string, string] => [`emulator${i}`, new URL(c.secretsUrl).origin]),
      ...(prepared.extra.pgPort ? [["pgPort", prepared.extra.pgPort] as [string, string]] : []),
    ];
    own = Object.fromEntries(addresses.sort((a, b) => b[1].length - a[1].length));
    side = await o.makeSide(prepared);
    await clear();
    const plan = await side.preview();
    expect(plan.ops).toEqual(creates(exp));
    for (let c = 0; c < clusters().length; c++) expect(await writes(c)).toEqual([]);
    trace["preview"] = plan.ops;
    await checks.after?.preview?.(context());
  });

  step("up creates them, with the expected outputs and progress messages", async () => {
    await clear();
    const d = await side.up();
    expect(d.ops).toEqual(creates(exp));
    expect(await side.shownOutputs()).toMatchObject(exp.outputs ?? {});
    if (side.kind === "cli") {
      expect(d.text).toMatch(new RegExp(`${exp.create.length + 1} created`));
      for (const [resource, lines] of Object.entries(exp.progress ?? {})) {
        for (const line of lines) expect(d.text, `${resource} progress`).toContain(line);
      }
    }
    await recordUp("up", d);
    trace["outputs after up"] = comparable(await side.outputs());
    trace["state after up"] = states(await side.resources());
    await checks.after?.up?.(context(d));
  });

  step("stores no secret in plaintext and marks every secret output secret", secretsHidden);

  step("a second up changes nothing (no perpetual diff)", async () => {
    await clear();
    const d = await side.up();
    expect(d.ops).toEqual({});
    expect(await writes()).toEqual(exp.functionCalls ?? []);
    trace["up again: operations"] = d.ops;
    await checks.after?.["up again"]?.(context(d));
  });

  if (o.hasStep2) {
    step("step2: preview shows the planned operations and the changed property names", async () => {
      side.step2(true);
      await clear();
      const plan = await side.preview();
      expect(plan.ops).toEqual(step2Ops(exp));
      for (let c = 0; c < clusters().length; c++) expect(await writes(c)).toEqual([]);
      trace["step2 preview"] = plan.ops;
      if (side instanceof CliSide) {
        step2Preview = plan.json;
        const changed = await side.diffProperties();
        for (const [n, s] of Object.entries(exp.step2)) {
          if (s.properties) expect(changed[n] ?? [], n).toEqual(expect.arrayContaining(s.properties));
        }
      }
      await checks.after?.["step2 preview"]?.(context());
    });

    if (o.kind === "cli") {
      step("step2: pulumi-svc-review names each change old → new, each replacement's reason and order, no secret (docs/review.md)", async () => {
        if (!(side instanceof CliSide)) throw new Error("the review reads the CLI's preview");
        expect(step2Preview, "the step2 preview ran").not.toBe("");
        const shown = (await side.stack.ok(["preview", "--json", "--show-secrets"])).stdout;
        step2Paths = await checkReview(exp, step2Preview, shown, [...secretValues(), ...material]);
      });
    }

    step("step2: up applies the plan, replacements in the order the provider asks for", async () => {
      side.step2(true);
      await clear();
      const d = await side.up();
      expect(d.ops).toEqual(step2Ops(exp));
      for (const [n, s] of Object.entries(exp.step2)) {
        if (s.deleteFirst !== undefined) expect(d.deleteFirst[n], `${n} deleted first`).toBe(s.deleteFirst);
      }
      expect(await side.shownOutputs()).toMatchObject(exp.step2Outputs ?? {});
      await recordUp("step2 up", d);
      trace["outputs after step2"] = comparable(await side.outputs());
      trace["state after step2"] = states(await side.resources());
      await checks.after?.["step2 up"]?.(context(d));
      const again = await side.up();
      expect(again.ops).toEqual({});
      trace["step2 up again: operations"] = again.ops;
      await secretsHidden();
      // The path the review gave each created object is the id it got.
      const ids = Object.fromEntries((await side.resources()).map((r) => [r.name, r.id]));
      for (const [n, p] of Object.entries(step2Paths)) if (p !== undefined) expect(p, `${n}'s path in the review`).toBe(ids[n]);
    });
  }

  for (const extra of checks.extra ?? []) {
    step(extra.title, async () => {
      await clear();
      const d = await extra.run(context());
      if (d) await recordUp(extra.title, d);
      trace[`${extra.title}: state`] = states(await side.resources());
    });
  }

  const change = exp.outOfBand?.change;
  if (change) {
    step(`refresh picks up an out-of-band change of ${change.resource}; the next up puts it back`, async () => {
      expect(await serviceRequest(emu(), change.request, outputValues(await side.outputs()))).toBeLessThan(300);
      await clear();
      const refreshed = await side.refresh();
      expect(refreshed).toEqual({ [change.resource]: "update" });
      const r = (await side.resources()).find((q) => q.name === change.resource)!;
      expect(r.outputs).toMatchObject(change.outputs);
      trace["refresh after a change"] = refreshed;
      trace["state after refresh after a change"] = states(await side.resources());
      // Refresh records what it read as the resource's inputs, so the plan names each property
      // the update will put back (the engine lists changed inputs).
      if (side instanceof CliSide) {
        const plan = await side.previewDiff();
        expect(plan.ops).toEqual({ [change.resource]: "update" });
        expect(plan.changed[change.resource]).toEqual(expect.arrayContaining(Object.keys(change.outputs)));
      } else {
        expect((await side.preview()).ops).toEqual({ [change.resource]: "update" });
      }
      const d = await side.up();
      expect(d.ops[change.resource]).toBe("update");
      await recordUp("up after a change", d);
      expect((await side.preview()).ops).toEqual({});
      await checks.after?.["refresh after a change"]?.(context(d));
    });
  }

  const gone = exp.outOfBand?.delete;
  if (gone) {
    step(`refresh drops ${gone.resource} deleted out of band; the next up creates it again`, async () => {
      expect(await serviceRequest(emu(), gone.request, outputValues(await side.outputs()))).toBeLessThan(300);
      const refreshed = await side.refresh();
      expect(refreshed).toEqual({ [gone.resource]: "delete" });
      expect((await side.resources()).map((q) => q.name)).not.toContain(gone.resource);
      trace["refresh after a delete"] = refreshed;
      await clear();
      const d = await side.up();
      expect(d.ops[gone.resource]).toBe("create");
      await recordUp("up after a delete", d);
      await checks.after?.["refresh after a delete"]?.(context(d));
    });
  }
  // cli.json gives a note instead (expectations.ts holds it to one or the other).
  if (!exp.outOfBand) it.skip(`no out-of-band edit: ${exp.outOfBandNote}`, () => {});

  step("destroy removes everything; the state is empty", async () => {
    const before = await deps();
    await clear();
    const d = await side.destroy();
    const deleted = Object.entries(d.ops).filter(([, op]) => op === "delete").map(([n]) => n);
    // What step2 deleted is gone already.
    const left = o.hasStep2 ? Object.keys(exp.step2).filter((n) => exp.step2[n]!.op !== "delete") : exp.create;
    expect(deleted.sort()).toEqual([...left].sort());
    expect(await side.resources()).toEqual([]);
    for (const left of exp.afterDestroy ?? []) {
      const answer = await serviceCall(emu(), left.request);
      expect(answer.status, `${left.request.method} ${left.request.path}`).toBe(left.status ?? 200);
      expect(answer.body?.data, `${left.request.method} ${left.request.path}`).toMatchObject(left.data);
    }
    trace["destroy: operations"] = d.ops;
    trace["destroy: order along dependencies"] = orderFacts(d.order, before);
    await checks.after?.destroy?.(context(d));
    finished = true;
    side.close();
    await prepared.close();
  });

  return { trace, done: () => finished };
}

