// One policy pack, run as the CLI runs a Node.js pack and driven over gRPC as the engine drives it.
//
// The CLI's Node.js language host starts `@pulumi/pulumi/cmd/run-policy-pack` from the pack's own
// node_modules, in the pack's folder, with the stack's project, stack, organization, dry-run flag
// and config in the environment (pulumi-language-nodejs RunPlugin, v3.259.0). The pack's
// `new PolicyPack(...)` serves pulumirpc.Analyzer on 127.0.0.1 and prints the port. The engine then
// asks for the pack's policies, sends the stack and the reconciled policy config, and calls
// Remediate, Analyze and AnalyzeStack (resource/plugin/analyzer_plugin.go).
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type * as grpcTypes from "@grpc/grpc-js";
import type * as structTypes from "google-protobuf/google/protobuf/struct_pb";
import type * as emptyTypes from "google-protobuf/google/protobuf/empty_pb";
import type * as pbTypes from "@pulumi/pulumi/proto/analyzer_pb";
import type * as rpcTypes from "@pulumi/pulumi/proto/analyzer_grpc_pb";
import { LEVELS, parseConfigFile, reconcile, type EnforcementLevel, type PolicyConfig, type PolicyInfo } from "./policyConfig";
import { endChild } from "./child";
import type { Json, PropertyMap } from "./values";

const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
const fromPulumi = (id: string): unknown => require(require.resolve(id, { paths: [pulumiDir] }));
const grpc = fromPulumi("@grpc/grpc-js") as typeof grpcTypes;
const struct = fromPulumi("google-protobuf/google/protobuf/struct_pb") as typeof structTypes;
const empty = fromPulumi("google-protobuf/google/protobuf/empty_pb") as typeof emptyTypes;
const pb = require(path.join(pulumiDir, "proto/analyzer_pb")) as typeof pbTypes;
const rpc = require(path.join(pulumiDir, "proto/analyzer_grpc_pb")) as typeof rpcTypes;

/** The proto's enforcement levels, by number. */
const LEVEL_OF: Record<number, EnforcementLevel> = { 0: "advisory", 1: "mandatory", 2: "disabled", 3: "remediate" };
const SEVERITY_OF: Record<number, string> = { 1: "low", 2: "medium", 3: "high", 4: "critical" };

/** What the stack is, as the engine tells a pack (ConfigureStack, and the pack's environment). */
export interface StackInfo { project: string; stack: string; organization: string; dryRun: boolean; config: Record<string, string>; secretKeys: string[] }

/** A resource as the engine hands it to a pack: properties in wire form (secrets wrapped, unknowns as the sentinel). */
export interface AnalyzedResource {
  urn: string;
  type: string;
  name: string;
  props: PropertyMap;
  options: { protect: boolean; ignoreChanges: string[]; deleteBeforeReplace?: boolean; aliases: string[]; additionalSecretOutputs: string[]; parent: string };
  provider?: { urn: string; type: string; name: string; props: PropertyMap };
  /** Stack analysis only. */
  dependencies?: string[];
  propertyDependencies?: Record<string, string[]>;
}

/** A diagnostic of a pack, as the engine reports it. */
export interface Diagnostic { policyName: string; policyPackName: string; policyPackVersion: string; description: string; message: string; enforcementLevel: EnforcementLevel; urn: string; severity?: string }

export interface Remediated { policyName: string; policyPackName: string; policyPackVersion: string; description: string; props?: PropertyMap; diagnostic?: string }

type Unary<Req, Res> = (req: Req, cb: (err: grpcTypes.ServiceError | null, res: Res) => void) => unknown;

/** Wire values to a Struct: the engine keeps secrets and unknowns; Analyze and AnalyzeStack leave out the `__` keys (SkipInternalKeys). */
function toStruct(props: PropertyMap, internal: boolean): structTypes.Struct {
  const strip = (v: Json): Json => {
    if (Array.isArray(v)) return v.map(strip);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).filter(([k]) => internal || !k.startsWith("__")).map(([k, x]) => [k, strip(x)]));
    return v;
  };
  return struct.Struct.fromJavaScript(strip(props) as Record<string, structTypes.JavaScriptValue>);
}

export class PackAnalyzer {
  private client!: rpcTypes.AnalyzerClient;
  private readonly err: string[] = [];
  /** The pack's name and version, and its policies with their levels after the config. */
  name = "";
  version = "";
  policies: PolicyInfo[] = [];
  private readonly killOnExit = (): void => void this.proc.kill("SIGKILL");

  private constructor(readonly dir: string, private readonly proc: ChildProcess) {
    process.on("exit", this.killOnExit);
    proc.on("exit", () => process.off("exit", this.killOnExit));
    proc.stderr!.setEncoding("utf8").on("data", (d: string) => this.err.push(d));
  }

  /** Starts the pack in `dir` and configures it as the engine does; `configFile` is its `--policy-pack-config`. */
  static async start(dir: string, stack: StackInfo, configFile?: string): Promise<PackAnalyzer> {
    const pack = path.resolve(dir);
    if (!fs.existsSync(path.join(pack, "PulumiPolicy.yaml"))) throw new Error(`failed to load Pulumi policy project located at "${pack}": PulumiPolicy.yaml is missing`);
    let runner: string;
    try {
      runner = require.resolve("@pulumi/pulumi/cmd/run-policy-pack", { paths: [pack] });
    } catch {
      throw new Error(`policy pack ${pack}: its node_modules has no @pulumi/pulumi (run npm install in the pack's folder)`);
    }
    const env: Record<string, string> = { ...(process.env as Record<string, string>), PULUMI_NODEJS_ORGANIZATION: stack.organization, PULUMI_NODEJS_PROJECT: stack.project, PULUMI_NODEJS_STACK: stack.stack, PULUMI_NODEJS_DRY_RUN: String(stack.dryRun), PULUMI_CONFIG: JSON.stringify(stack.config) };
    delete env.PULUMI_CONFIG_SECRET_KEYS;
    const proc = spawn(process.execPath, [runner, "127.0.0.1:0", pack], { cwd: pack, env, stdio: ["ignore", "pipe", "pipe"] });
    const analyzer = new PackAnalyzer(pack, proc);
    try {
      const port = await analyzer.readPort();
      analyzer.client = new rpc.AnalyzerClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { "grpc.max_receive_message_length": 400 * 1024 * 1024 });
      await analyzer.configure(stack, configFile);
    } catch (e) {
      proc.kill("SIGKILL");
      throw e;
    }
    return analyzer;
  }

  private readPort(): Promise<number> {
    return new Promise((resolve, reject) => {
      let buf = "";
      let done = false;
      const settle = (e?: Error, port = 0) => {
        if (done) return;
        done = true;
        if (e) reject(new Error(`${e.message}\n${this.err.join("")}`.trim()));
        else resolve(port);
      };
      this.proc.on("error", (e) => settle(e));
      this.proc.on("exit", (code) => settle(new Error(`policy pack ${this.dir} exited (code ${code}) before serving`)));
      this.proc.stdout!.setEncoding("utf8").on("data", (d: string) => {
        buf += d;
        const line = buf.split("\n").find((l) => /^\d+$/.test(l.trim()));
        if (line) settle(undefined, Number(line.trim()));
      });
    });
  }

  /** GetAnalyzerInfo, ConfigureStack, then Configure with the reconciled config, as the engine does. */
  private async configure(stack: StackInfo, configFile?: string): Promise<void> {
    const info = await this.call<emptyTypes.Empty, pbTypes.AnalyzerInfo>(this.client.getAnalyzerInfo, new empty.Empty());
    this.name = info.getName();
    this.version = info.getVersion();
    this.policies = info.getPoliciesList().map((p) => {
      const schema = p.getConfigschema();
      return { name: p.getName(), enforcementLevel: LEVEL_OF[p.getEnforcementlevel()]!, ...(schema ? { configSchema: { properties: (schema.getProperties()?.toJavaScript() ?? {}) as never, required: schema.getRequiredList() } } : {}) };
    });
    const initial: Record<string, PolicyConfig> = {};
    info.getInitialconfigMap().forEach((c, name) => {
      const properties = c.getProperties()?.toJavaScript() as Record<string, unknown> | undefined;
      initial[name] = { enforcementLevel: LEVEL_OF[c.getEnforcementlevel()]!, ...(properties && Object.keys(properties).length ? { properties } : {}) };
    });
    const given = configFile ? parseConfigFile(fs.readFileSync(configFile, "utf8"), configFile) : {};
    const { config, errors } = reconcile(this.policies, initial, given);
    if (errors.length) throw new Error(`validating policy config: ${this.name} ${this.version}  ${errors.join("; ")}`);
    const sreq = new pb.AnalyzerStackConfigureRequest().setStack(stack.stack).setProject(stack.project).setOrganization(stack.organization).setDryRun(stack.dryRun).setConfigSecretKeysList(stack.secretKeys);
    for (const [k, v] of Object.entries(stack.config)) sreq.getConfigMap().set(k, v);
    await this.call(this.client.configureStack, sreq);
    const creq = new pb.ConfigureAnalyzerRequest();
    for (const [name, c] of Object.entries(config)) {
      creq.getPolicyconfigMap().set(name, new pb.PolicyConfig().setEnforcementlevel(LEVELS.indexOf(c.enforcementLevel!) as pbTypes.EnforcementLevel).setProperties(struct.Struct.fromJavaScript((c.properties ?? {}) as never)));
    }
    await this.call(this.client.configure, creq);
    this.policies = this.policies.map((p) => ({ ...p, enforcementLevel: config[p.name]?.enforcementLevel ?? p.enforcementLevel }));
  }

  async remediate(r: AnalyzedResource): Promise<Remediated[]> {
    const res = await this.call<pbTypes.AnalyzeRequest, pbTypes.RemediateResponse>(this.client.remediate, request(r, true));
    return res.getRemediationsList().map((x) => ({
      policyName: x.getPolicyname(), policyPackName: x.getPolicypackname(), policyPackVersion: x.getPolicypackversion(), description: x.getDescription(),
      ...(x.getDiagnostic() ? { diagnostic: x.getDiagnostic() } : { props: (x.getProperties()?.toJavaScript() ?? {}) as PropertyMap }),
    }));
  }

  async analyze(r: AnalyzedResource): Promise<Diagnostic[]> {
    return diagnostics(await this.call<pbTypes.AnalyzeRequest, pbTypes.AnalyzeResponse>(this.client.analyze, request(r, false)), r.urn);
  }

  async analyzeStack(resources: AnalyzedResource[]): Promise<Diagnostic[]> {
    const req = new pb.AnalyzeStackRequest().setResourcesList(resources.map(stackResource));
    return diagnostics(await this.call<pbTypes.AnalyzeStackRequest, pbTypes.AnalyzeResponse>(this.client.analyzeStack, req), "");
  }

  /** What the pack printed on stderr. */
  stderr(): string {
    return this.err.join("");
  }

  async close(): Promise<void> {
    this.client?.close();
    await endChild(this.proc);
  }

  private call<Req, Res>(method: Unary<Req, Res>, req: Req): Promise<Res> {
    return new Promise((resolve, reject) => {
      method.call(this.client, req, (err, res) => (err ? reject(new Error(`policy pack ${this.name || this.dir}: ${err.details || err.message}`)) : resolve(res)));
    });
  }
}

function options(o: AnalyzedResource["options"]): pbTypes.AnalyzerResourceOptions {
  const out = new pb.AnalyzerResourceOptions().setProtect(o.protect).setIgnorechangesList(o.ignoreChanges).setAdditionalsecretoutputsList(o.additionalSecretOutputs)
    .setAliasesList(o.aliases).setParent(o.parent).setCustomtimeouts(new pb.AnalyzerResourceOptions.CustomTimeouts());
  if (o.deleteBeforeReplace !== undefined) out.setDeletebeforereplace(o.deleteBeforeReplace).setDeletebeforereplacedefined(true);
  return out;
}

function provider(p: NonNullable<AnalyzedResource["provider"]>): pbTypes.AnalyzerProviderResource {
  return new pb.AnalyzerProviderResource().setUrn(p.urn).setType(p.type).setName(p.name).setProperties(toStruct(p.props, false));
}

function request(r: AnalyzedResource, internal: boolean): pbTypes.AnalyzeRequest {
  const req = new pb.AnalyzeRequest().setUrn(r.urn).setType(r.type).setName(r.name).setProperties(toStruct(r.props, internal)).setOptions(options(r.options));
  if (r.provider) req.setProvider(provider(r.provider));
  return req;
}

function stackResource(r: AnalyzedResource): pbTypes.AnalyzerResource {
  const out = new pb.AnalyzerResource().setUrn(r.urn).setType(r.type).setName(r.name).setProperties(toStruct(r.props, false)).setOptions(options(r.options))
    .setParent(r.options.parent).setDependenciesList(r.dependencies ?? []);
  if (r.provider) out.setProvider(provider(r.provider));
  for (const [k, urns] of Object.entries(r.propertyDependencies ?? {})) out.getPropertydependenciesMap().set(k, new pb.AnalyzerPropertyDependencies().setUrnsList(urns));
  return out;
}

function diagnostics(res: pbTypes.AnalyzeResponse, urn: string): Diagnostic[] {
  return res.getDiagnosticsList().map((d) => ({
    policyName: d.getPolicyname(), policyPackName: d.getPolicypackname(), policyPackVersion: d.getPolicypackversion(), description: d.getDescription(),
    message: d.getMessage(), enforcementLevel: LEVEL_OF[d.getEnforcementlevel()] ?? "advisory", urn: d.getUrn() || urn,
    ...(SEVERITY_OF[d.getSeverity()] ? { severity: SEVERITY_OF[d.getSeverity()] } : {}),
  }));
}
