// The two ways an example's lifecycle is played, behind one interface: the real Pulumi CLI (with
// Pulumi's official language host or ours) and the engine double (src/engine). What each returns
// is what the lifecycle compares, so both report in the same shape.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DEFAULT_PASSPHRASE, loadState } from "../../src/engine/state";
import type { Operation, Result } from "../../src/engine/types";
import { plainMap } from "../../src/engine/values";
import { root, withoutSvcEnv } from "../support/dist";
import { runInline } from "../support/inline";
import { changedProperties, CliStack, nameOf, ops, type JsonResult, type LangHost } from "./cli";
import type { Prepared } from "./expectations";

export type Ops = Record<string, string>;

/** A resource of the stack's state, as both sides report it. */
export interface Res { name: string; type: string; id?: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown>; dependencies: string[] }

export interface Deployed {
  /** Operation per resource, unchanged ones left out; a replacement is `replace`. */
  ops: Ops;
  /** Resources by their first step. */
  order: string[];
  /** Of each replaced resource: whether the old object was deleted first. */
  deleteFirst: Record<string, boolean>;
  /** What a user sees (the CLI's text output; the double's diagnostics). */
  text: string;
}

export interface Planned {
  ops: Ops;
  /** The CLI's `preview --json` text (the review reads it); the double's result as JSON. */
  json: string;
}

export interface Side {
  readonly kind: "cli" | "double";
  /** Run step 2 of the example from now on, or step 1 again. */
  step2(on: boolean): void;
  /** Sets plain stack config for the operations from now on. */
  configure(plain: Record<string, string>): Promise<void>;
  preview(): Promise<Planned>;
  up(): Promise<Deployed>;
  /** What refresh did per resource: `update` or `delete` (unchanged ones left out). */
  refresh(): Promise<Ops>;
  destroy(): Promise<Deployed>;
  /** Stack outputs, each secret one as "[secret]". */
  outputs(): Promise<Record<string, unknown>>;
  /** Stack outputs with the secrets shown. */
  shownOutputs(): Promise<Record<string, unknown>>;
  resources(): Promise<Res[]>;
  /** The state as stored (secrets as stored, encrypted), for secret scans. */
  stored(): Promise<string>;
  close(): void;
}

const firstSeen = (names: string[]) => names.filter((n, i) => names.indexOf(n) === i);

function failed<T extends { code: number; text: string }>(r: T): T {
  if (r.code !== 0) throw new Error(`the CLI failed (exit ${r.code}):\n${r.text}`);
  return r;
}

/** Replacement order from the engine's steps: delete-replaced before create-replacement. */
function deleteFirstOf(r: JsonResult): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [n, op] of Object.entries(ops(r))) {
    if (op !== "replace") continue;
    const steps = r.steps.filter((s) => nameOf(s.urn) === n).map((s) => s.op);
    out[n] = steps.indexOf("delete-replaced") < steps.indexOf("create-replacement");
  }
  return out;
}

const stepOrder = (r: JsonResult) => firstSeen(r.steps.filter((s) => s.op !== "same" && !/::pulumi:(pulumi:Stack|providers:)/.test(s.urn)).map((s) => nameOf(s.urn)));

/** The real CLI on examples/<name>, run from its folder as docs/examples.md says. */
export class CliSide implements Side {
  readonly kind = "cli";
  /** Reads of the stack since its last change: each is a CLI process, and a step reads it several times. */
  private reads = new Map<string, Promise<unknown>>();

  private constructor(readonly stack: CliStack) {}

  private read<T>(key: string, get: () => Promise<T>): Promise<T> {
    if (!this.reads.has(key)) this.reads.set(key, get());
    return this.reads.get(key) as Promise<T>;
  }

  private changed<T>(r: T): T {
    this.reads.clear();
    return r;
  }

  static async create(project: string, example: string, prepared: Prepared, options: { host?: LangHost; typeCheck?: boolean } = {}): Promise<CliSide> {
    return new CliSide(await CliStack.create({ project, program: { example }, config: prepared.config, secretConfig: prepared.secretConfig, ...options }));
  }

  step2(on: boolean): void {
    this.stack.step2(on);
  }

  async configure(plain: Record<string, string>): Promise<void> {
    this.changed(await this.stack.setConfig(plain));
  }

  async preview(): Promise<Planned> {
    const r = failed(await this.stack.preview());
    const { code: _c, text: _t, ...printed } = r;
    return { ops: ops(r), json: JSON.stringify(printed) };
  }

  async up(): Promise<Deployed> {
    const r = failed(this.changed(await this.stack.up()));
    return { ops: ops(r), order: stepOrder(r), deleteFirst: deleteFirstOf(r), text: r.text };
  }

  async refresh(): Promise<Ops> {
    const r = failed(this.changed(await this.stack.refresh()));
    return Object.fromEntries(Object.entries(r.outcomes ?? {}).filter(([, op]) => op !== "same"));
  }

  async destroy(): Promise<Deployed> {
    const r = failed(this.changed(await this.stack.destroy()));
    return { ops: ops(r), order: stepOrder(r), deleteFirst: {}, text: r.text };
  }

  outputs(): Promise<Record<string, unknown>> {
    return this.read("outputs", () => this.stack.outputs(false));
  }

  shownOutputs(): Promise<Record<string, unknown>> {
    return this.read("shown", () => this.stack.outputs(true));
  }

  async resources(): Promise<Res[]> {
    const { deployment } = JSON.parse(await this.stored()) as { deployment: { resources?: { urn: string; id?: string; type: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown>; dependencies?: string[] }[] } };
    return (deployment.resources ?? []).filter((r) => r.type.startsWith("pulumi-nodejs:"))
      .map((r) => ({ name: nameOf(r.urn), type: r.type, id: r.id, inputs: r.inputs, outputs: r.outputs, dependencies: (r.dependencies ?? []).map(nameOf) }));
  }

  stored(): Promise<string> {
    return this.read("export", () => this.stack.exportText());
  }

  /**
   * A preview's operations and the property names its `--diff` text marks changed, from one run:
   * the steps from the event log, the names from what a reviewer reads.
   */
  async previewDiff(): Promise<{ ops: Ops; changed: Record<string, string[]> }> {
    const r = failed(await this.stack.events(["preview", "--diff"]));
    return { ops: ops(r), changed: changedProperties(r.text) };
  }

  /** The property names `preview --diff` marks changed, per resource: what a reviewer reads. */
  async diffProperties(): Promise<Record<string, string[]>> {
    return changedProperties((await this.stack.ok(["preview", "--diff"])).stdout);
  }

  close(): void {
    this.stack.remove();
  }
}

/**
 * The engine double on the compiled example (dist/examples/<name>), as the CLI runs it: --skip-preview.
 * The program runs in this process, anew for each operation (test/support/inline.ts).
 */
export class DoubleSide implements Side {
  readonly kind = "double";
  private readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), "double-"));
  private readonly state = path.join(this.dir, "stack.json");
  private last: Result | undefined;
  private inStep2 = false;

  private readonly config: Record<string, string>;

  constructor(private readonly example: string, private readonly project: string, private readonly prepared: Prepared) {
    this.config = { ...prepared.config };
  }

  step2(on: boolean): void {
    this.inStep2 = on;
  }

  async configure(plain: Record<string, string>): Promise<void> {
    Object.assign(this.config, plain);
  }

  private async run(operation: Operation): Promise<Result> {
    const program = path.join(root, "dist/examples", this.example, ...(this.inStep2 ? ["step2"] : []), "index.js");
    const r = await runInline({
      operation, program, state: this.state, cwd: root, stack: "dev", project: this.project,
      config: this.config, secretConfig: this.prepared.secretConfig, env: withoutSvcEnv(), skipPreview: true,
    });
    if (r.error) throw new Error(`the engine double failed: ${r.error}\n${r.diagnostics.join("\n")}`);
    return r;
  }

  private static changed(r: Result): Ops {
    return Object.fromEntries(r.steps.filter((s) => s.op !== "same" && s.op !== "refresh").map((s) => [s.name, s.op]));
  }

  async preview(): Promise<Planned> {
    const r = await this.run("preview");
    return { ops: DoubleSide.changed(r), json: JSON.stringify(r) };
  }

  async up(): Promise<Deployed> {
    this.last = await this.run("up");
    const deleteFirst = Object.fromEntries(this.last.steps.filter((s) => s.op === "replace").map((s) => [s.name, s.deleteBeforeReplace === true]));
    return {
      ops: DoubleSide.changed(this.last), deleteFirst, text: this.last.diagnostics.join("\n"),
      order: firstSeen(this.last.steps.filter((s) => s.op !== "same").map((s) => s.name)),
    };
  }

  async refresh(): Promise<Ops> {
    const r = await this.run("refresh");
    return Object.fromEntries(r.steps.flatMap((s) => s.op === "read-gone" ? [[s.name, "delete"]] : s.op === "refresh" && s.changedKeys?.length ? [[s.name, "update"]] : []));
  }

  async destroy(): Promise<Deployed> {
    const r = await this.run("destroy");
    return { ops: DoubleSide.changed(r), order: firstSeen(r.steps.map((s) => s.name)), deleteFirst: {}, text: r.diagnostics.join("\n") };
  }

  async outputs(): Promise<Record<string, unknown>> {
    return (this.last?.outputs ?? {}) as Record<string, unknown>;
  }

  async shownOutputs(): Promise<Record<string, unknown>> {
    return plainMap(loadState(this.state, DEFAULT_PASSPHRASE).state.outputs);
  }

  async resources(): Promise<Res[]> {
    return loadState(this.state, DEFAULT_PASSPHRASE).state.resources.filter((r) => r.custom)
      .map((r) => ({ name: r.name, type: r.type, id: r.id, inputs: r.inputs, outputs: r.outputs, dependencies: r.dependencies.map(nameOf) }));
  }

  async stored(): Promise<string> {
    return fs.existsSync(this.state) ? fs.readFileSync(this.state, "utf8") : "";
  }

  close(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
