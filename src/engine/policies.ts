// The engine's side of policy packs in a deployment (pkg/resource/deploy/step_generator.go and
// analyze_snapshot.go of v3.259.0): each registration, once checked, goes through every pack's
// remediations in turn (each sees the last one's result) and then every pack's analysis; after the
// program, every pack analyzes the stack as a whole. A mandatory violation fails a preview at its
// end, and in an update stops the resource before it is created or changed.
import type { PolicyHook, Registration } from "./deployment";
import { PackAnalyzer, type AnalyzedResource, type Diagnostic, type StackInfo } from "./analyzer";
import type { PolicyPackOption, PolicyRemediation, PolicyViolation } from "./types";
import { isSecret, secret, type Json, type PropertyMap } from "./values";
import { urnName } from "../core/urn";

const DEFAULT_PROVIDER = "pulumi:providers:pulumi-nodejs";

export class Policies implements PolicyHook {
  readonly violations: PolicyViolation[] = [];
  readonly remediations: PolicyRemediation[] = [];
  private readonly resources: AnalyzedResource[] = [];
  private provider?: NonNullable<AnalyzedResource["provider"]>;
  private mandatory = false;

  private constructor(private readonly packs: PackAnalyzer[], private readonly info: StackInfo) {}

  /** Starts every pack, one after the other (as the CLI loads them), and configures it. */
  static async start(packs: PolicyPackOption[], info: StackInfo): Promise<Policies> {
    const started: PackAnalyzer[] = [];
    try {
      for (const p of packs) started.push(await PackAnalyzer.start(p.dir, info, p.config));
    } catch (e) {
      await Promise.all(started.map((a) => a.close()));
      throw e;
    }
    return new Policies(started, info);
  }

  /** Whether a mandatory policy was violated: the operation fails. */
  get failed(): boolean {
    return this.mandatory;
  }

  /** The stack's own URN, where the engine puts a stack policy's violation that names no resource it knows. */
  private get stackUrn(): string {
    return `urn:pulumi:${this.info.stack}::${this.info.project}::pulumi:pulumi:Stack::${this.info.project}-${this.info.stack}`;
  }

  /** The default provider of dynamic resources, analyzed once before the first of them, as the engine registers it. */
  private async defaultProvider(): Promise<NonNullable<AnalyzedResource["provider"]>> {
    if (this.provider) return this.provider;
    const props: PropertyMap = {};
    for (const [k, v] of Object.entries(this.info.config)) props[k] = this.info.secretKeys.includes(k) ? secret(v) : v;
    const urn = `urn:pulumi:${this.info.stack}::${this.info.project}::${DEFAULT_PROVIDER}::default`;
    this.provider = { urn, type: DEFAULT_PROVIDER, name: "default", props };
    await this.resource(undefined, props, { urn, type: DEFAULT_PROVIDER, name: "default" });
    return this.provider;
  }

  /** A registration once checked: remediated, then analyzed; the inputs to go on with. */
  async resource(reg: Registration | undefined, inputs: PropertyMap, bare?: { urn: string; type: string; name: string }): Promise<{ inputs: PropertyMap; invalid?: string }> {
    const r: AnalyzedResource = reg ? {
      urn: reg.urn, type: reg.type, name: reg.name, props: inputs,
      options: { protect: reg.protect ?? false, ignoreChanges: reg.ignoreChanges, ...(reg.deleteBeforeReplace !== undefined ? { deleteBeforeReplace: reg.deleteBeforeReplace } : {}), aliases: reg.aliases, additionalSecretOutputs: reg.additionalSecretOutputs, parent: reg.parent },
      dependencies: reg.dependencies, propertyDependencies: reg.propertyDependencies,
    } : { ...bare!, props: inputs, options: { protect: false, ignoreChanges: [], aliases: [], additionalSecretOutputs: [], parent: "" } };
    if (reg?.custom && reg.type.startsWith("pulumi-nodejs:dynamic")) r.provider = await this.defaultProvider();
    for (const pack of this.packs) r.props = await this.remediate(pack, r);
    const found = (await Promise.all(this.packs.map((p) => p.analyze(r)))).flat();
    this.resources.push(r);
    const mandatory = this.record(found, () => r.urn);
    if (mandatory.length === 0 || this.info.dryRun) return { inputs: r.props };
    return { inputs: r.props, invalid: `mandatory policy violation: ${mandatory.map((d) => `${d.policyName} (${d.policyPackName})`).join(", ")}` };
  }

  private async remediate(pack: PackAnalyzer, r: AnalyzedResource): Promise<PropertyMap> {
    let props = r.props;
    for (const x of await pack.remediate({ ...r, props })) {
      const d = { policyName: x.policyName, policyPackName: x.policyPackName, policyPackVersion: x.policyPackVersion, description: x.description, urn: r.urn };
      if (x.diagnostic !== undefined) {
        this.record([{ ...d, message: x.diagnostic, enforcementLevel: "advisory" }], () => r.urn);
        continue;
      }
      const next = x.props ?? {};
      const changed = [...new Set([...Object.keys(props), ...Object.keys(next)])].filter((k) => !k.startsWith("__") && JSON.stringify(unwrap(props[k])) !== JSON.stringify(unwrap(next[k])));
      this.remediations.push({ policyName: d.policyName, policyPackName: d.policyPackName, policyPackVersion: d.policyPackVersion, urn: r.urn, name: r.name, changed });
      props = next;
    }
    return props;
  }

  /** Every pack's analysis of the stack as a whole: each resource's outputs (`outputsOf`), else the inputs it was analyzed with. */
  async stack(outputsOf: (urn: string) => PropertyMap | undefined): Promise<void> {
    const all = this.resources.map((r) => ({ ...r, props: outputsOf(r.urn) ?? r.props }));
    const known = new Set(all.map((r) => r.urn));
    const found = (await Promise.all(this.packs.map((p) => p.analyzeStack(all)))).flat();
    this.record(found.map((d) => (d.enforcementLevel === "remediate" ? { ...d, enforcementLevel: "mandatory" } : d)), (d) => (d.urn && known.has(d.urn) ? d.urn : this.stackUrn));
  }

  /** Records diagnostics (a remediate level reported as mandatory, as the engine does); returns the mandatory ones. */
  private record(found: Diagnostic[], urnOf: (d: Diagnostic) => string): Diagnostic[] {
    const mandatory: Diagnostic[] = [];
    for (const d of found) {
      const level = d.enforcementLevel === "advisory" ? "advisory" : "mandatory";
      if (level === "mandatory") mandatory.push(d);
      const urn = urnOf(d);
      this.violations.push({ policyName: d.policyName, policyPackName: d.policyPackName, policyPackVersion: d.policyPackVersion, enforcementLevel: level, message: this.filtered(d.message), urn, name: urnName(urn), ...(d.severity ? { severity: d.severity } : {}) });
    }
    if (mandatory.length) this.mandatory = true;
    return mandatory;
  }

  /**
   * A message as the engine lets it through (its global secret filter, sdk/go/common/util/logging):
   * every value of the stack's secret config of 3 characters or more, but true and false, replaced
   * by `[secret]`, also as JSON escapes it.
   */
  private filtered(message: string): string {
    let out = message;
    for (const k of this.info.secretKeys) {
      const v = this.info.config[k] ?? "";
      if (v.length < 3 || /^(true|false)$/i.test(v)) continue;
      for (const form of new Set([v, JSON.stringify(v).slice(1, -1)])) out = out.split(form).join("[secret]");
    }
    return out;
  }

  /** What the packs printed on stderr. */
  stderr(): string {
    return this.packs.map((p) => p.stderr()).filter((t) => t.trim() !== "").join("\n");
  }

  async close(): Promise<void> {
    await Promise.all(this.packs.map((p) => p.close()));
  }
}

const unwrap = (v: Json | undefined): Json | undefined => (isSecret(v) ? unwrap(v.value) : v);
